// The error family: one base class with a brand, so that `isInstance` works across duplicate
// copies of the package. The errors `Benchmark.run` throws with a partial result are in
// run-errors.ts.
import { brand, hasBrand } from "./internal/brand.js";

const BRAND = Symbol.for("fastrag.bench.error");
const CONFIG_BRAND = Symbol.for("fastrag.bench.error.configuration");
const UNAVAILABLE_BRAND = Symbol.for("fastrag.bench.error.metric-unavailable");

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
 * What kind of problem a {@link ConfigurationError} is, for code that reacts to it (a message is
 * for people and may be reworded; a kind is not). It is `kind`, not `code`: Node's convention
 * reads `error.code` as a system error code (`ENOENT`), and code walking a `cause` chain for one
 * (this toolkit's loaders do, and so may a caller's) must not mistake this for it.
 * - `invalid-option`: an option or argument outside what is documented (`option` names it);
 * - `invalid-input`: a file's or a value's content is not as expected (`path`, `line`, `column`,
 *   `field` say where, when known);
 * - `unreadable-file` / `unwritable-file`: the file system refused (`path`; the system's error is
 *   the `cause`);
 * - `unsupported-target`: the target is neither a QueryEngine nor a Retriever, or a Retriever
 *   where an answer is needed;
 * - `journal-unusable`: a checkpoint journal belongs to another run, is not a journal, or is
 *   damaged (`path`); `journal-in-use`: another run is using or creating it;
 * - `unpairable-runs`: two results cannot be paired sample by sample (different datasets).
 */
export type ConfigurationErrorKind =
  | "invalid-option"
  | "invalid-input"
  | "unreadable-file"
  | "unwritable-file"
  | "unsupported-target"
  | "journal-unusable"
  | "journal-in-use"
  | "unpairable-runs";

/** Where a {@link ConfigurationError} is about, as far as it is known; every field optional. */
export interface ConfigurationErrorFields {
  /** The kind of problem; `invalid-input` when not given. */
  readonly kind?: ConfigurationErrorKind;
  /** The option or argument at fault (`timeoutMs`, `retries.attempts`, `--test`). */
  readonly option?: string;
  /** The file at fault, as the caller named it. */
  readonly path?: string;
  /** 1-based line in `path`. */
  readonly line?: number;
  /** 1-based column (or byte within the line, as the message says) in `path`. */
  readonly column?: number;
  /** The field or column name at fault (`expected_answers`, `sample_id`). */
  readonly field?: string;
  /** The error that caused this one. */
  readonly cause?: unknown;
}

/**
 * Misuse or bad input: a bad option, an unreadable file, a malformed row, a mismatched journal.
 *
 * Raised before work starts wherever the problem is knowable then. The message says what was
 * expected, what was found and where (file, line or row, column); `kind` and the fields
 * (`option`, `path`, `line`, `column`, `field`) say the same for code, which should react to them
 * and never to the message's text.
 *
 * @example
 * ```ts
 * try {
 *   await QADataset.load("eval.csv");
 * } catch (error) {
 *   if (ConfigurationError.isInstance(error)) {
 *     console.error(error.message);
 *     if (error.kind === "invalid-input" && error.line !== undefined) showLine(error.path, error.line);
 *   } else throw error;
 * }
 * ```
 */
export class ConfigurationError extends FastragBenchError {
  /** The kind of problem (see {@link ConfigurationErrorKind}). */
  readonly kind: ConfigurationErrorKind;
  /** The option or argument at fault, when one is. */
  declare readonly option?: string;
  /** The file at fault, when one is. */
  declare readonly path?: string;
  /** 1-based line in {@link ConfigurationError.path}, when known. */
  declare readonly line?: number;
  /** 1-based column in {@link ConfigurationError.path}, when known. */
  declare readonly column?: number;
  /** The field or column name at fault, when one is. */
  declare readonly field?: string;

  constructor(message: string, fields?: ConfigurationErrorFields) {
    super(message, fields !== undefined && "cause" in fields ? { cause: fields.cause } : undefined);
    this.name = "ConfigurationError";
    this.kind = fields?.kind ?? "invalid-input";
    if (fields?.option !== undefined) this.option = fields.option;
    if (fields?.path !== undefined) this.path = fields.path;
    if (fields?.line !== undefined) this.line = fields.line;
    if (fields?.column !== undefined) this.column = fields.column;
    if (fields?.field !== undefined) this.field = fields.field;
    brand(this, CONFIG_BRAND);
  }

  /** True for a `ConfigurationError` from any copy of the package. */
  static override isInstance(error: unknown): error is ConfigurationError {
    return hasBrand(error, CONFIG_BRAND);
  }
}

/**
 * Thrown by a metric when a sample cannot be scored for a reason worth reporting (an unparsable
 * judge reply, a missing embedding). The runner records `null` for the metric and keeps the
 * message in the sample's `error`, and the sample counts as `incomplete`: never as a zero.
 */
export class MetricUnavailableError extends FastragBenchError {
  /** The judge step that failed (`"verdicts"`, …), when a judge step did. */
  readonly step?: string;

  constructor(message: string, options?: { cause?: unknown; step?: string }) {
    super(message, options);
    this.name = "MetricUnavailableError";
    if (options?.step !== undefined) this.step = options.step;
    brand(this, UNAVAILABLE_BRAND);
  }

  /** True for a `MetricUnavailableError` from any copy of the package. */
  static override isInstance(error: unknown): error is MetricUnavailableError {
    return hasBrand(error, UNAVAILABLE_BRAND);
  }
}
