/**
 * One record on its way to a sample: its values as its columns hold them, and where it is. The
 * builder fills one of these per record, reused from record to record (no object per row).
 */
export interface RawRecord {
  id: unknown;
  question: unknown;
  answers: unknown;
  relevantIds: unknown;
  relevance: unknown;
  /** The metadata column's object with the extra columns, or `undefined` for none. */
  metadata: Record<string, unknown> | undefined;
  /** The `is_impossible` cell when that column is not read as a field. */
  impossible: unknown;
  /** The record's line, record or row number (1-based), or its `label`. */
  position: number;
  label: string | undefined;
}
