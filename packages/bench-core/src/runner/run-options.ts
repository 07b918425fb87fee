// The options of `Benchmark.run`, and their check before any sample runs.
import type { ResponseCache } from "../cache.js";
import { describeValue } from "../describe-value.js";
import { ConfigurationError } from "../errors.js";
import { expectSpecificationVersion } from "../internal/specification-version.js";
import { isTimeoutMs } from "../internal/timer.js";
import { expectProvenance } from "../result/provenance.js";
import type { Provenance, ShardSpec } from "../result/result-init.js";
import type { Progress } from "../types.js";
import type { RetryOptions } from "./retry.js";

/** Options of `Benchmark.run`. */
export interface RunOptions {
  /** The run's name: the row label in comparisons and the result file's `name`. */
  readonly name: string;
  /**
   * Aborting stops scheduling samples; in-flight ones settle and `run` rejects with a
   * `RunAbortedError`. A metric still pending is waited for up to 10 s after the abort; a sample
   * whose metric is pending after that (a hung judge) is left for a resume.
   */
  readonly signal?: AbortSignal;
  /**
   * A graceful stop: once it aborts, no new sample starts, but the samples in flight are not
   * told to stop (their `signal` stays quiet, so a paid call is not cancelled and paid again on
   * resume); they finish, are scored and kept (in the journal too), and `run` then rejects with
   * a `RunAbortedError`. Abort `signal` as well to cancel those in flight (a second Ctrl-C).
   */
  readonly stop?: AbortSignal;
  /**
   * Per-sample limit on the pipeline call, not on metrics. On expiry the target's signal aborts
   * and the sample is errored.
   */
  readonly timeoutMs?: number;
  readonly retries?: RetryOptions;
  /** Called after every finished sample. An error it throws is ignored (a progress bar must not kill a run). */
  readonly onProgress?: (progress: Progress) => void;
  /**
   * Path of a JSONL checkpoint journal. Finished samples are appended as they finish; re-running
   * with the same path skips them. The journal is kept after the run; delete it to start over.
   */
  readonly checkpoint?: string;
  /** With `checkpoint`: also re-run samples that errored in the journal. */
  readonly retryErrored?: boolean;
  /**
   * With `checkpoint`: what to do when a journal line cannot be written (a full disk, a file size
   * limit). By default the run stops at once with a `JournalWriteError`: every sample journaled
   * so far is kept, and no more calls are paid for that a crash could lose. `true` goes on
   * without a journal: a warning says so at once, and the run's samples from then on are only in
   * its result.
   */
  readonly continueWithoutJournal?: boolean;
  /**
   * Receives the run's warnings as they happen: lines of a resumed journal that were dropped
   * (torn writes, naming the sample each held), a journal given up under
   * `continueWithoutJournal`. Default: `process.emitWarning` with code `FASTRAG_BENCH_JOURNAL`.
   */
  readonly onWarning?: (message: string) => void;
  /** Run only a deterministic slice: the samples at positions `i` with `i % count === index`. */
  readonly shard?: ShardSpec;
  /**
   * A response cache (off by default): a sample whose output is stored under its key
   * (`targetCacheKey`: the target's `cacheKey`, else the run name, and the sample's id,
   * question and metadata) is scored from the store without calling the target, and its record
   * says `cached: true`. Only successful outputs are stored, with their latency and usage, so a
   * cached re-run writes the same scores. A store that cannot be read errors the sample (no call).
   */
  readonly cache?: ResponseCache;
  /** With `cache`: call the target for every sample anyway, and overwrite what is stored. */
  readonly refresh?: boolean;
  /**
   * Keep each retrieved chunk's `text` in the result (format 2's `retrieved[].text`). Off by
   * default: chunk text can be most of a result's size. Turn it on to rescore the saved run later
   * with a metric that reads chunk text (`needsChunkText`, e.g. `Faithfulness`).
   */
  readonly keepChunkText?: boolean;
  /**
   * Where the run came from (the config's hash, the git commit, the target's params), recorded
   * as is in the result. The CLI fills it in; the library records only what it is given.
   */
  readonly provenance?: Provenance;
  /**
   * Run every sample this many times (default: the Benchmark's `trials`, else 1), each trial an
   * independent call of the target: its own attempts and retries, its own cache entry. With
   * n > 1 the result keeps every trial (`SampleResult.trials`), a sample's scores are each
   * metric's mean over its trials, and the summary adds `trial_std` (how much a metric moves
   * from trial to trial). A checkpoint journal keeps each trial as it finishes.
   */
  readonly trials?: number;
}

/** Checks a `trials` option (run or Benchmark): a positive safe integer. */
export function expectTrials(trials: unknown, where: string): void {
  if (trials !== undefined && !(Number.isSafeInteger(trials) && (trials as number) >= 1)) {
    throw new ConfigurationError(
      `${where}: trials must be a positive integer (runs per sample), found ${describeValue(trials)}`,
      { kind: "invalid-option", option: "trials" },
    );
  }
}

/**
 * Checks the options of `Benchmark.run` before any sample runs.
 *
 * @throws {ConfigurationError} of kind `invalid-option` naming the first option that is not as
 * documented.
 */
export function expectRunOptions(options: RunOptions): void {
  if (typeof options !== "object" || options === null) {
    throw new ConfigurationError(
      "Benchmark.run: expected options { name, … } as the second argument",
      { kind: "invalid-option" },
    );
  }
  if (typeof options.name !== "string" || options.name.trim() === "") {
    throw refused("name", `must be a non-empty string, found ${describeValue(options.name)}`);
  }
  const { timeoutMs } = options;
  if (timeoutMs !== undefined && !isTimeoutMs(timeoutMs)) {
    throw refused(
      "timeoutMs",
      `must be a positive number of milliseconds, found ${describeValue(timeoutMs)}`,
    );
  }
  if (options.retries !== undefined) expectRetries(options.retries);
  if (options.shard !== undefined) expectShard(options.shard);
  expectJournalOptions(options);
  expectSignal("signal", options.signal);
  expectCacheOptions(options);
  expectTrials(options.trials, "Benchmark.run");
  if (options.provenance !== undefined)
    expectProvenance(options.provenance, "Benchmark.run: provenance");
  expectSignal("stop", options.stop);
  if (options.onProgress !== undefined && typeof options.onProgress !== "function") {
    throw refused("onProgress", "must be a function");
  }
}

/** The refusal of one option: `Benchmark.run: <option> <problem>`, kind `invalid-option`. */
function refused(option: string, problem: string): ConfigurationError {
  return new ConfigurationError(`Benchmark.run: ${option} ${problem}`, {
    kind: "invalid-option",
    option,
  });
}

/** An optional AbortSignal option. */
function expectSignal(option: string, value: unknown): void {
  if (value !== undefined && !(value instanceof AbortSignal)) {
    throw refused(option, "must be an AbortSignal");
  }
}

/** An optional boolean option. */
function expectFlag(option: string, value: unknown): void {
  if (value !== undefined && typeof value !== "boolean") {
    throw refused(option, `must be true or false, found ${describeValue(value)}`);
  }
}

function expectRetries(retries: RetryOptions): void {
  if (typeof retries !== "object" || retries === null) {
    throw refused(
      "retries",
      `must be { attempts, backoffMs?, retryOn }, found ${describeValue(retries)}`,
    );
  }
  if (!Number.isSafeInteger(retries.attempts) || retries.attempts < 1) {
    throw refused(
      "retries.attempts",
      `must be a positive integer, found ${describeValue(retries.attempts)}`,
    );
  }
  if (typeof retries.retryOn !== "function") {
    throw refused(
      "retries.retryOn",
      "must be a function (error) => boolean that marks transient errors",
    );
  }
  for (const key of ["backoffMs", "maxBackoffMs"] as const) {
    const v = retries[key];
    if (v !== undefined && !(typeof v === "number" && v >= 0 && Number.isFinite(v))) {
      throw refused(`retries.${key}`, `must be a non-negative number, found ${describeValue(v)}`);
    }
  }
}

function expectShard(shard: ShardSpec): void {
  if (typeof shard !== "object" || shard === null) {
    throw refused("shard", `must be { index, count }, found ${describeValue(shard)}`);
  }
  const { index, count } = shard;
  if (
    !Number.isSafeInteger(count) ||
    count < 1 ||
    !Number.isSafeInteger(index) ||
    index < 0 ||
    index >= count
  ) {
    throw refused(
      "shard",
      `must be { index, count } with integers 0 ≤ index < count, found ${JSON.stringify(shard)}`,
    );
  }
}

/** `checkpoint` and what goes with a journal: `continueWithoutJournal`, `onWarning`. */
function expectJournalOptions(options: RunOptions): void {
  const { checkpoint, onWarning } = options;
  if (checkpoint !== undefined && (typeof checkpoint !== "string" || checkpoint === "")) {
    throw refused("checkpoint", "must be a file path");
  }
  expectFlag("continueWithoutJournal", options.continueWithoutJournal);
  if (onWarning !== undefined && typeof onWarning !== "function") {
    throw refused(
      "onWarning",
      `must be a function (message) => void, found ${describeValue(onWarning)}`,
    );
  }
}

/** `cache` (a ResponseCache of a version this core uses), `refresh`, `keepChunkText`. */
function expectCacheOptions(options: RunOptions): void {
  const { cache } = options;
  if (cache !== undefined) {
    if (
      typeof cache !== "object" ||
      cache === null ||
      typeof cache.get !== "function" ||
      typeof cache.set !== "function"
    ) {
      throw refused(
        "cache",
        `must be a ResponseCache (an object with get and set), found ${describeValue(cache)}`,
      );
    }
    expectSpecificationVersion(cache.specificationVersion, {
      where: "Benchmark.run: the cache",
      contract: "response caches",
      kind: "invalid-option",
      option: "cache",
    });
  }
  expectFlag("refresh", options.refresh);
  expectFlag("keepChunkText", options.keepChunkText);
}
