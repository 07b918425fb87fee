import {
  aliasConflict,
  COLUMN_ALIASES,
  type ColumnMapping,
  missingQuestion,
  normalizeColumnMapping,
  resolveColumns,
  SAMPLE_FIELDS,
  type SampleField,
} from "./column-mapping.js";
import { inputError } from "./problems.js";
import type { RecordPositions } from "./record-positions.js";
import { IS_IMPOSSIBLE } from "./squad-v2.js";

const hasOwn = Object.hasOwn;

/**
 * Which column holds which sample field, for one file: from the mapping given, else from the
 * aliases (`COLUMN_ALIASES`) as records or a header name them. Object records are resolved by
 * their keys (a later record may name a field the first did not, but never by another alias);
 * tables by their header. Columns that hold no field are the extras, kept as metadata.
 */
export class ColumnResolver {
  /** The fields the mapping names: to a column, or to `null` (no such column). */
  readonly explicit: ReadonlyMap<SampleField, string | null>;
  /** field → the column it is read from, as resolved so far. */
  readonly columnOf: Map<SampleField, string> = new Map();
  private readonly mapping: ColumnMapping | undefined;
  private readonly positions: RecordPositions;
  /** alias or mapped column → field; only for fields that may still be read. */
  private readonly aliasRole = new Map<string, SampleField>();
  /** Own keys of the previous record, in order, and which of them were extra columns. */
  private lastKeys: string[] = [];
  private lastExtras: string[] | undefined;
  private firstRecordSeen = false;
  /** A table's header (after {@link setHeader}), with unnamed columns named `column_<n>`. */
  header: readonly string[] | undefined;
  /** Per field, in `SAMPLE_FIELDS` order: its column's index in the header, else -1. */
  headerIndex: number[] = [];
  /** Header indexes of the extra columns. */
  extraIndexes: number[] = [];
  /** The header index of an `is_impossible` column kept as metadata, else -1. */
  impossibleAt = -1;

  constructor(mapping: ColumnMapping | undefined, positions: RecordPositions) {
    this.mapping = mapping;
    this.positions = positions;
    this.explicit = normalizeColumnMapping(mapping);
    for (const field of SAMPLE_FIELDS) {
      if (this.explicit.has(field)) {
        const column = this.explicit.get(field);
        if (typeof column === "string") {
          this.aliasRole.set(column, field);
          this.columnOf.set(field, column);
        }
      } else {
        for (const alias of COLUMN_ALIASES[field]) {
          if (!this.aliasRole.has(alias)) this.aliasRole.set(alias, field);
        }
      }
    }
  }

  /**
   * Resolves an object record's keys and returns its extra columns (`undefined` for none).
   * @throws {ConfigurationError} for two aliases of one field, or a field switching columns.
   */
  extrasOf(
    record: Record<string, unknown>,
    position: number,
    label?: string,
  ): string[] | undefined {
    if (!this.firstRecordSeen) {
      this.firstRecordSeen = true;
      resolveColumns(Object.keys(record), this.mapping, this.positions.place(position, label));
    }
    // Records of one file nearly always share their keys and key order: then the previous
    // record's resolution holds, and no key needs looking up.
    const lastKeys = this.lastKeys;
    let count = 0;
    let same = lastKeys.length > 0;
    if (same) {
      for (const key in record) {
        if (lastKeys[count] !== key) {
          same = false;
          break;
        }
        count++;
      }
    }
    return same && count === lastKeys.length
      ? this.lastExtras
      : this.resolveKeys(record, position, label);
  }

  /**
   * The column of an object record that holds its question.
   * @throws {ConfigurationError} when no column does.
   */
  questionColumn(record: Record<string, unknown>, position: number, label?: string): string {
    const column = this.columnOf.get("question");
    if (column !== undefined && hasOwn(record, column)) return column;
    if (column === undefined) {
      throw missingQuestion(
        this.positions.place(position, label),
        Object.keys(record),
        this.explicit.get("question"),
      );
    }
    throw inputError(
      this.positions.place(position, label, column),
      `expected a question (a non-empty string), found nothing`,
    );
  }

  /** The record's value for `field`; `undefined` when no column holds it. */
  valueOf(record: Record<string, unknown>, field: SampleField): unknown {
    const column = this.columnOf.get(field);
    return column === undefined ? undefined : record[column];
  }

  /** True when `column` is read as a field (or may be), not kept as an extra. */
  readsColumn(column: string): boolean {
    return this.aliasRole.has(column);
  }

  /** Maps each key of `record` to a field (or to the extras), checking alias consistency. */
  private resolveKeys(
    record: Record<string, unknown>,
    position: number,
    label: string | undefined,
  ): string[] | undefined {
    let extras: string[] | undefined;
    const keys: string[] = [];
    for (const key in record) {
      if (!hasOwn(record, key)) continue;
      keys.push(key);
      const field = this.aliasRole.get(key);
      if (field === undefined) {
        if (extras === undefined) extras = [key];
        else extras.push(key);
        continue;
      }
      const column = this.columnOf.get(field);
      if (column === key) continue;
      if (column === undefined) {
        this.columnOf.set(field, key);
      } else if (hasOwn(record, column)) {
        throw aliasConflict(this.positions.place(position, label), field, column, key);
      } else {
        throw inputError(
          { ...this.positions.place(position, label), field: key },
          `column "${key}" holds the ${field} here, but earlier records used "${column}"; ` +
            `use one column name throughout, or map one with { ${field}: "${column}" }`,
        );
      }
    }
    this.lastKeys = keys;
    this.lastExtras = extras;
    return extras;
  }

  /**
   * Resolves a table's columns from its header.
   * @throws {ConfigurationError} for a name given twice, or no question column.
   */
  setHeader(header: readonly string[], label: string): void {
    const where = this.positions.place(0, label);
    const seen = new Set<string>();
    // An unnamed column (e.g. the index pandas writes) is kept as `column_<n>`.
    header = header.map((name, i) => (name === "" ? `column_${i + 1}` : name));
    for (let i = 0; i < header.length; i++) {
      const name = header[i]!;
      if (seen.has(name)) {
        throw inputError(where, `column "${name}" appears twice in the header`, { field: name });
      }
      seen.add(name);
    }
    const resolved = resolveColumns(header, this.mapping, where);
    this.header = header;
    this.headerIndex = [];
    for (const field of SAMPLE_FIELDS) {
      const column = resolved.get(field);
      this.headerIndex.push(column === undefined ? -1 : header.indexOf(column));
      if (column !== undefined) this.columnOf.set(field, column);
    }
    const used = new Set(resolved.values());
    this.extraIndexes = [];
    for (let i = 0; i < header.length; i++) if (!used.has(header[i]!)) this.extraIndexes.push(i);
    this.impossibleAt = used.has(IS_IMPOSSIBLE) ? -1 : header.indexOf(IS_IMPOSSIBLE);
  }

  /** The columns kept as metadata: the header's extras, or the last object record's. */
  extraColumns(): string[] {
    const header = this.header;
    return header !== undefined
      ? this.extraIndexes.map((i) => header[i] as string)
      : (this.lastExtras ?? []);
  }
}
