// `rateLimit`: the options a run's limiter takes, checked when a Benchmark is built, and the
// counts it reports.

import { describeValue } from "../describe-value.js";
import { ConfigurationError } from "../errors.js";

/** Default of {@link RateLimitOptions.maxWaits}. */
export const DEFAULT_MAX_WAITS = 30;

/**
 * A run's rate limit (`rateLimit` of `new Benchmark(...)`): run as fast as the provider allows,
 * and no faster.
 *
 * A call is rate-limited when it throws an error with HTTP status 429 (`status` or `statusCode`),
 * a numeric `retryAfterMs`, or one `isRateLimit` accepts. Such a call is neither an error nor a
 * retry attempt: it waits (as long as the error's `retryAfterMs` or `Retry-After` header says,
 * else an exponential backoff) and runs again, up to `maxWaits` times in a row; past that its
 * sample is `errored`, saying so.
 */
export interface RateLimitOptions {
  /**
   * Requests per minute, shared by every call of the run (the target's and, through
   * `MetricInput.limiter`, the metrics' model calls). Spread evenly: at most a second's worth
   * start in a burst.
   */
  readonly requestsPerMinute?: number;
  /**
   * Tokens per minute, shared likewise. A call's tokens are its `usage` (`totalTokens`, else
   * input + output): estimated before the call from the mean of the last calls (or the caller's
   * `estimatedTokens`), and settled when it returns. The first calls, with nothing to estimate
   * from, count as 0 until they settle.
   */
  readonly tokensPerMinute?: number;
  /**
   * Adapt concurrency to the provider: start at `maxConcurrent`, halve on a rate-limit error,
   * add one after a window of successes (as many as the concurrency in force), never below 1 nor
   * above `maxConcurrent`. Default false: `maxConcurrent` calls in flight.
   */
  readonly adaptive?: boolean;
  /** Marks further errors as rate limits (e.g. a provider's own error class); added to the defaults. */
  readonly isRateLimit?: (error: unknown) => boolean;
  /**
   * How many times in a row one call may be rate-limited and run again; the next rate limit
   * errors its sample ("rate limited 31 times in a row …"). A non-negative integer; default 30.
   */
  readonly maxWaits?: number;
}

/** What a run's limiter counted, for progress and for the result. */
export interface RateLimitStats {
  /** Calls that were rate-limited (each waited and ran again, or gave up past `maxWaits`). */
  readonly rateLimitedCalls: number;
  /** The concurrency in force: `maxConcurrent` unless adaptive. */
  readonly concurrency: number;
  /** The lowest concurrency of the run. */
  readonly lowestConcurrency: number;
}

/**
 * How a check of `rateLimit` names what it refuses: `where` the value came from (a message's
 * prefix) and the name of the value or of one of its fields, for each field (`undefined` for the
 * whole value). The CLI names a config file, or the flag that set a field.
 */
export interface RateLimitNames {
  where(field?: string): string;
  label(field?: string): string;
}

const BENCHMARK_NAMES: RateLimitNames = {
  where: () => "Benchmark",
  label: (field) => (field === undefined ? "rateLimit" : `rateLimit.${field}`),
};

/**
 * Checks `rateLimit` of `new Benchmark(...)` (or of a config, with `names`).
 * @throws {ConfigurationError} naming the first field that is not as documented; `option` is
 * always `rateLimit` or `rateLimit.<field>`, whatever `names` says.
 */
export function expectRateLimit(
  value: unknown,
  names: RateLimitNames = BENCHMARK_NAMES,
): asserts value is RateLimitOptions | undefined {
  const at = (field?: string) => `${names.where(field)}: ${names.label(field)}`;
  if (value === undefined) return;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigurationError(
      `${at()} must be { requestsPerMinute?, tokensPerMinute?, adaptive?, isRateLimit?, maxWaits? }, found ${describeValue(value)}`,
      { kind: "invalid-option", option: "rateLimit" },
    );
  }
  const known = ["requestsPerMinute", "tokensPerMinute", "adaptive", "isRateLimit", "maxWaits"];
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      throw new ConfigurationError(
        `${at()} has an unknown field "${key}"; the fields are ${known.join(", ")}`,
        { kind: "invalid-option", option: `rateLimit.${key}` },
      );
    }
  }
  const o = value as Record<string, unknown>;
  for (const key of ["requestsPerMinute", "tokensPerMinute"]) {
    const v = o[key];
    if (v !== undefined && !(typeof v === "number" && Number.isFinite(v) && v > 0)) {
      throw new ConfigurationError(
        `${at(key)} must be a positive number, found ${describeValue(v)}`,
        { kind: "invalid-option", option: `rateLimit.${key}` },
      );
    }
  }
  if (o.adaptive !== undefined && typeof o.adaptive !== "boolean") {
    throw new ConfigurationError(
      `${at("adaptive")} must be true or false, found ${describeValue(o.adaptive)}`,
      { kind: "invalid-option", option: "rateLimit.adaptive" },
    );
  }
  if (o.isRateLimit !== undefined && typeof o.isRateLimit !== "function") {
    throw new ConfigurationError(
      `${at("isRateLimit")} must be a function (error) => boolean, found ${describeValue(o.isRateLimit)}`,
      { kind: "invalid-option", option: "rateLimit.isRateLimit" },
    );
  }
  const w = o.maxWaits;
  if (w !== undefined && !(Number.isSafeInteger(w) && (w as number) >= 0)) {
    throw new ConfigurationError(
      `${at("maxWaits")} must be a non-negative integer, found ${describeValue(w)}`,
      { kind: "invalid-option", option: "rateLimit.maxWaits" },
    );
  }
}
