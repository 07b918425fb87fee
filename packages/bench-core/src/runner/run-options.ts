// The options of `Benchmark.run`, and their check before any sample runs.
import { ConfigurationError } from "../errors.js";
import { isTimeoutMs } from "../internal/timer.js";
import type { ShardSpec } from "../result/model.js";
import type { Progress } from "../types.js";
import { describeValue } from "./describe-value.js";
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
  /** Run only a deterministic slice: the samples at positions `i` with `i % count === index`. */
  readonly shard?: ShardSpec;
}

/**
 * Checks the options of `Benchmark.run` before any sample runs.
 *
 * @throws {ConfigurationError} naming the first option that is not as documented.
 */
export function validateRunOptions(options: RunOptions): void {
  if (typeof options !== "object" || options === null) {
    throw new ConfigurationError(
      "Benchmark.run: expected options { name, … } as the second argument",
      { kind: "invalid-option" },
    );
  }
  if (typeof options.name !== "string" || options.name.trim() === "") {
    throw new ConfigurationError(
      `Benchmark.run: name must be a non-empty string, found ${describeValue(options.name)}`,
      { kind: "invalid-option", option: "name" },
    );
  }
  const { timeoutMs, retries, shard, checkpoint, signal } = options;
  if (timeoutMs !== undefined && !isTimeoutMs(timeoutMs)) {
    throw new ConfigurationError(
      `Benchmark.run: timeoutMs must be a positive number of milliseconds, found ${describeValue(timeoutMs)}`,
      { kind: "invalid-option", option: "timeoutMs" },
    );
  }
  if (retries !== undefined) {
    if (typeof retries !== "object" || retries === null) {
      throw new ConfigurationError(
        `Benchmark.run: retries must be { attempts, backoffMs?, retryOn }, found ${describeValue(retries)}`,
        { kind: "invalid-option", option: "retries" },
      );
    }
    if (!Number.isSafeInteger(retries.attempts) || retries.attempts < 1) {
      throw new ConfigurationError(
        `Benchmark.run: retries.attempts must be a positive integer, found ${describeValue(retries.attempts)}`,
        { kind: "invalid-option", option: "retries.attempts" },
      );
    }
    if (typeof retries.retryOn !== "function") {
      throw new ConfigurationError(
        "Benchmark.run: retries.retryOn must be a function (error) => boolean that marks transient errors",
        { kind: "invalid-option", option: "retries.retryOn" },
      );
    }
    for (const key of ["backoffMs", "maxBackoffMs"] as const) {
      const v = retries[key];
      if (v !== undefined && !(typeof v === "number" && v >= 0 && Number.isFinite(v))) {
        throw new ConfigurationError(
          `Benchmark.run: retries.${key} must be a non-negative number, found ${describeValue(v)}`,
          { kind: "invalid-option", option: `retries.${key}` },
        );
      }
    }
  }
  if (shard !== undefined) {
    if (typeof shard !== "object" || shard === null) {
      throw new ConfigurationError(
        `Benchmark.run: shard must be { index, count }, found ${describeValue(shard)}`,
        { kind: "invalid-option", option: "shard" },
      );
    }
    const { index, count } = shard;
    if (
      !Number.isSafeInteger(count) ||
      count < 1 ||
      !Number.isSafeInteger(index) ||
      index < 0 ||
      index >= count
    ) {
      throw new ConfigurationError(
        `Benchmark.run: shard must be { index, count } with integers 0 ≤ index < count, found ${JSON.stringify(shard)}`,
        { kind: "invalid-option", option: "shard" },
      );
    }
  }
  if (checkpoint !== undefined && (typeof checkpoint !== "string" || checkpoint === "")) {
    throw new ConfigurationError("Benchmark.run: checkpoint must be a file path", {
      kind: "invalid-option",
      option: "checkpoint",
    });
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new ConfigurationError("Benchmark.run: signal must be an AbortSignal", {
      kind: "invalid-option",
      option: "signal",
    });
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== "function") {
    throw new ConfigurationError("Benchmark.run: onProgress must be a function", {
      kind: "invalid-option",
      option: "onProgress",
    });
  }
}
