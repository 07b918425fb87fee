// The errors `Benchmark.run` throws with the finished part of the run (`partial`). Apart from
// errors.ts so that the error family's base types no longer need the result's: only these two
// name `BenchmarkResult` (as the type of `partial`).
import type { BenchmarkResult } from "./benchmark-result.js";
import { ConfigurationError, FastragBenchError } from "./errors.js";
import { brand, hasBrand } from "./internal/brand.js";
import type { JournaledCounts } from "./runner/journaled-count.js";

export type { JournaledCounts } from "./runner/journaled-count.js";

const ABORT_BRAND = Symbol.for("fastrag.bench.error.run-aborted");
const JOURNAL_BRAND = Symbol.for("fastrag.bench.error.journal-write");

/** The argument of `new JournalWriteError(…)`. */
export interface JournalWriteErrorInit<TPartial> {
  readonly message: string;
  /** The checkpoint journal. */
  readonly path: string;
  readonly partial: TPartial;
  /** The system's error. */
  readonly cause?: unknown;
  /** Samples of the run (of its shard, with a shard). */
  readonly samplesInRun: number;
  /** Samples the run did not start. */
  readonly samplesNotRun: number;
  /** What the journal keeps. */
  readonly journaled: JournaledCounts;
  /** Finished samples whose line could not be written: they are in `partial` only. */
  readonly unjournaledSamples: number;
  /** See {@link JournalWriteError.summary}. */
  readonly summary?: string;
  /** See {@link JournalWriteError.unjournaled}. */
  readonly unjournaled?: string;
}

/**
 * Thrown by `Benchmark.run` when a line of its checkpoint journal cannot be written (a full disk,
 * a file size limit, an I/O error). The run stops at once: no new sample starts, since a sample
 * that cannot be journaled would be paid for and then lost to a crash. Samples in flight settle.
 *
 * Nothing finished is lost: every sample whose line was written is in the journal (`path`), which
 * a run with the same checkpoint resumes once the disk has room; `partial` holds every finished
 * sample, those that finished after the failure included. Pass `continueWithoutJournal: true` to
 * `run` to go on without a journal instead. The counts (`samplesNotRun`, `journaled`,
 * `unjournaledSamples`) say the same as the message, for code that words its own advice.
 *
 * A `ConfigurationError` of kind `unwritable-file`, so that code which handles those (the CLI:
 * exit 2, one line) handles it; its `cause` is the system's error, with its `code` (`ENOSPC`, `EFBIG`, …).
 */
export class JournalWriteError<TPartial = BenchmarkResult> extends ConfigurationError {
  /** The checkpoint journal that could not be written; it keeps every line written before. */
  declare readonly path: string;
  /** The result of every finished sample (unstarted samples are absent). */
  readonly partial: TPartial;
  /** Samples of the run (of its shard, with a shard). */
  readonly samplesInRun: number;
  /** Samples the run did not start: a resume runs them. */
  readonly samplesNotRun: number;
  /** What the journal keeps: a run with the same checkpoint resumes from it. */
  readonly journaled: JournaledCounts;
  /** Finished samples whose line could not be written: they are in {@link partial} only. */
  readonly unjournaledSamples: number;
  /**
   * The message without the library's advice: the cause, the samples not run, what the journal
   * keeps.
   *
   * @deprecated Word your own from `cause`, `samplesNotRun`, `samplesInRun`, `journaled` and
   * `path`; this goes once the CLI does.
   */
  readonly summary: string;
  /**
   * The message's note on {@link unjournaledSamples} (" (the 1 sample whose line …)"), or "".
   *
   * @deprecated Read {@link unjournaledSamples}; this goes once the CLI does.
   */
  readonly unjournaled: string;

  constructor(init: JournalWriteErrorInit<TPartial>) {
    super(init.message, {
      kind: "unwritable-file",
      path: init.path,
      ...("cause" in init ? { cause: init.cause } : {}),
    });
    this.name = "JournalWriteError";
    this.partial = init.partial;
    this.samplesInRun = init.samplesInRun;
    this.samplesNotRun = init.samplesNotRun;
    this.journaled = init.journaled;
    this.unjournaledSamples = init.unjournaledSamples;
    this.summary = init.summary ?? init.message;
    this.unjournaled = init.unjournaled ?? "";
    brand(this, JOURNAL_BRAND);
  }

  /** True for a `JournalWriteError` from any copy of the package. */
  static override isInstance(error: unknown): error is JournalWriteError {
    return hasBrand(error, JOURNAL_BRAND);
  }
}

/**
 * Thrown by `Benchmark.run` when its `signal` aborts. Samples already in flight are settled
 * first; `partial` holds every finished sample, so nothing finished is lost.
 */
export class RunAbortedError<TPartial = BenchmarkResult> extends FastragBenchError {
  /** The result of the samples that finished before the abort (unstarted samples are absent). */
  readonly partial: TPartial;

  constructor(message: string, partial: TPartial, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RunAbortedError";
    this.partial = partial;
    brand(this, ABORT_BRAND);
  }

  /** True for a `RunAbortedError` from any copy of the package. */
  static override isInstance(error: unknown): error is RunAbortedError {
    return hasBrand(error, ABORT_BRAND);
  }
}
