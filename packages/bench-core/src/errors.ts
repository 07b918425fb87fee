const BRAND = Symbol.for("fastrag.bench.error");
const CONFIG_BRAND = Symbol.for("fastrag.bench.error.configuration");
const ABORT_BRAND = Symbol.for("fastrag.bench.error.run-aborted");
const UNAVAILABLE_BRAND = Symbol.for("fastrag.bench.error.metric-unavailable");
const JOURNAL_BRAND = Symbol.for("fastrag.bench.error.journal-write");

function brand(target: object, symbol: symbol): void {
  Object.defineProperty(target, symbol, { value: true, enumerable: false });
}

function hasBrand(error: unknown, symbol: symbol): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as Record<symbol, unknown>)[symbol] === true
  );
}

/**
 * Base of the fastrag bench error family.
 *
 * Every error this toolkit throws on purpose extends it. Use {@link FastragBenchError.isInstance}
 * rather than `instanceof`: when two copies of a package are installed, `instanceof` fails, while
 * the brand (`Symbol.for("fastrag.bench.error")`) is shared across copies.
 */
export class FastragBenchError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "FastragBenchError";
    brand(this, BRAND);
  }

  /** True for any error of the fastrag bench family, from any copy of the package. */
  static isInstance(error: unknown): error is FastragBenchError {
    return hasBrand(error, BRAND);
  }
}

/**
 * Misuse or bad input: a bad option, an unreadable file, a malformed row, a mismatched journal.
 *
 * Raised before work starts wherever the problem is knowable then. The message says what was
 * expected, what was found and where (file, line or row, column).
 *
 * @example
 * ```ts
 * try {
 *   await QADataset.load("eval.csv");
 * } catch (error) {
 *   if (ConfigurationError.isInstance(error)) console.error(error.message);
 *   else throw error;
 * }
 * ```
 */
export class ConfigurationError extends FastragBenchError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ConfigurationError";
    brand(this, CONFIG_BRAND);
  }

  /** True for a `ConfigurationError` from any copy of the package. */
  static override isInstance(error: unknown): error is ConfigurationError {
    return hasBrand(error, CONFIG_BRAND);
  }
}

/**
 * Thrown by `Benchmark.run` when a line of its checkpoint journal cannot be written (a full disk,
 * a file size limit, an I/O error). The run stops at once: no new sample starts, since a sample
 * that cannot be journaled would be paid for and then lost to a crash. Samples in flight settle.
 *
 * Nothing finished is lost: every sample whose line was written is in the journal (`path`), which
 * a run with the same checkpoint resumes once the disk has room; `partial` holds every finished
 * sample, those that finished after the failure included. Pass `continueWithoutJournal: true` to
 * `run` to go on without a journal instead.
 *
 * A `ConfigurationError`, so that code which handles those (the CLI: exit 2, one line) handles it;
 * its `cause` is the system's error, with its `code` (`ENOSPC`, `EFBIG`, …).
 */
export class JournalWriteError<TPartial = unknown> extends ConfigurationError {
  /** The checkpoint journal that could not be written; it keeps every line written before. */
  readonly path: string;
  /** The result of every finished sample (unstarted samples are absent). */
  readonly partial: TPartial;

  constructor(message: string, path: string, partial: TPartial, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "JournalWriteError";
    this.path = path;
    this.partial = partial;
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
export class RunAbortedError<TPartial = unknown> extends FastragBenchError {
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

/**
 * Thrown by a metric when a sample cannot be scored for a reason worth reporting (an unparsable
 * judge reply, a missing embedding). The runner records `null` for the metric and keeps the
 * message in the sample's `error`, and the sample counts as `incomplete`: never as a zero.
 */
export class MetricUnavailableError extends FastragBenchError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MetricUnavailableError";
    brand(this, UNAVAILABLE_BRAND);
  }

  /** True for a `MetricUnavailableError` from any copy of the package. */
  static override isInstance(error: unknown): error is MetricUnavailableError {
    return hasBrand(error, UNAVAILABLE_BRAND);
  }
}
