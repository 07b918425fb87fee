// The checkpoint journal's format: one header line (`JournalHeader`, the run it belongs to), then
// one line per finished sample (or with trials, per finished trial) as it finishes. Read by
// journal-read.ts (whose lines journal-lines.ts parses), written by journal-writer.ts.
import type { SampleResult } from "../types.js";

export const JOURNAL_FORMAT = "fastrag-bench-journal/1";

/** What must match between a journal and the run that resumes it. */
export interface JournalHeader {
  readonly name: string;
  readonly fingerprint: string;
  readonly size: number;
  readonly metrics: readonly string[];
  readonly shard: { index: number; count: number } | null;
  /** Trials per sample (`trials`); 1 when absent. Written only when more than 1. */
  readonly trials?: number;
}

/** Samples recovered from an existing journal, by dataset position. */
export interface RecoveredJournal {
  readonly finished: Map<number, SampleResult>;
  /**
   * With trials: the finished trials of each sample, by dataset position (entry t is trial t's
   * record), from lines `{"index", "trial", "sample"}`. A sample with all its trials here is
   * finished; `finished` holds none of a run with trials.
   */
  readonly trials: Map<number, (SampleResult | undefined)[]>;
  /** Bytes of the journal that hold complete lines; anything after is a torn write. */
  readonly validBytes: number;
  /** Bytes read: more than `validBytes` when the last line is torn. */
  readonly readBytes: number;
  readonly exists: boolean;
  /**
   * One message per line that was dropped (a torn write, anywhere in the file), naming the line
   * and the sample it held: that sample runs again. Empty when nothing was lost.
   */
  readonly warnings: readonly string[];
}
