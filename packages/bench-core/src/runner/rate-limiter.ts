// The run's rate limiter: token buckets for requests and tokens per minute, adaptive concurrency,
// and rate-limited calls waited out and run again. One per run, shared by the target's calls and
// by the model calls of metrics (judges, embedders) through `MetricInput.limiter`.
import { ConfigurationError } from "../errors.js";
import type { CallLimiter, Usage } from "../types.js";
import { AdaptiveConcurrency } from "./adaptive-concurrency.js";
import { describeValue } from "./describe-value.js";
import { errorMessage } from "./error-message.js";
import { isRateLimitError, retryAfterOf } from "./rate-limit-error.js";
import { sleep } from "./retry.js";

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
 * Checks `rateLimit` of `new Benchmark(...)`.
 * @throws {ConfigurationError} naming the first field that is not as documented.
 */
export function validateRateLimit(value: unknown): asserts value is RateLimitOptions | undefined {
  if (value === undefined) return;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigurationError(
      `Benchmark: rateLimit must be { requestsPerMinute?, tokensPerMinute?, adaptive?, isRateLimit?, maxWaits? }, found ${describeValue(value)}`,
      { kind: "invalid-option", option: "rateLimit" },
    );
  }
  const known = ["requestsPerMinute", "tokensPerMinute", "adaptive", "isRateLimit", "maxWaits"];
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      throw new ConfigurationError(
        `Benchmark: rateLimit has an unknown field "${key}"; the fields are ${known.join(", ")}`,
        { kind: "invalid-option", option: `rateLimit.${key}` },
      );
    }
  }
  const o = value as Record<string, unknown>;
  for (const key of ["requestsPerMinute", "tokensPerMinute"]) {
    const v = o[key];
    if (v !== undefined && !(typeof v === "number" && Number.isFinite(v) && v > 0)) {
      throw new ConfigurationError(
        `Benchmark: rateLimit.${key} must be a positive number, found ${describeValue(v)}`,
        { kind: "invalid-option", option: `rateLimit.${key}` },
      );
    }
  }
  if (o.adaptive !== undefined && typeof o.adaptive !== "boolean") {
    throw new ConfigurationError(
      `Benchmark: rateLimit.adaptive must be true or false, found ${describeValue(o.adaptive)}`,
      { kind: "invalid-option", option: "rateLimit.adaptive" },
    );
  }
  if (o.isRateLimit !== undefined && typeof o.isRateLimit !== "function") {
    throw new ConfigurationError(
      `Benchmark: rateLimit.isRateLimit must be a function (error) => boolean, found ${describeValue(o.isRateLimit)}`,
      { kind: "invalid-option", option: "rateLimit.isRateLimit" },
    );
  }
  const w = o.maxWaits;
  if (w !== undefined && !(Number.isSafeInteger(w) && (w as number) >= 0)) {
    throw new ConfigurationError(
      `Benchmark: rateLimit.maxWaits must be a non-negative integer, found ${describeValue(w)}`,
      { kind: "invalid-option", option: "rateLimit.maxWaits" },
    );
  }
}

/**
 * A token bucket: `perMinute` spread evenly, holding at most a second's worth (at least 1). A
 * call may take more than the bucket holds (a long prompt): it starts once the bucket is full,
 * and leaves it in debt, which later calls wait out.
 */
export class TokenBucket {
  private readonly rate: number;
  readonly capacity: number;
  private level: number;
  private last: number;

  constructor(perMinute: number, now: number) {
    this.rate = perMinute / 60_000;
    this.capacity = Math.max(1, perMinute / 60);
    this.level = this.capacity;
    this.last = now;
  }

  /** Milliseconds until `n` can be taken (0: now). */
  waitFor(n: number, now: number): number {
    this.refill(now);
    const need = Math.min(n, this.capacity);
    const missing = need - this.level;
    return missing <= 1e-9 ? 0 : missing / this.rate;
  }

  take(n: number): void {
    this.level -= n;
  }

  /** Gives back `n` (negative: takes more), as a call settles its estimate. */
  give(n: number): void {
    this.level = Math.min(this.capacity, this.level + n);
  }

  private refill(now: number): void {
    if (now > this.last) {
      this.level = Math.min(this.capacity, this.level + (now - this.last) * this.rate);
      this.last = now;
    }
  }
}

/** A rate-limited call that was run again `maxWaits` times and was rate-limited once more. */
export class RateLimitWaitsExceededError extends Error {
  constructor(waits: number, last: unknown) {
    super(
      `rate limited ${waits + 1} times in a row (rateLimit.maxWaits is ${waits}); last: ${errorMessage(last)}`,
      { cause: last },
    );
    this.name = "RateLimitWaitsExceededError";
  }
}

/** Whether `error` is a {@link RateLimitWaitsExceededError} (safe on any thrown value, a Proxy too). */
export function isWaitsExceeded(error: unknown): boolean {
  try {
    return error instanceof RateLimitWaitsExceededError;
  } catch {
    return false;
  }
}

interface Waiter {
  /** The call's arrival order: a call run again keeps its place ahead of later arrivals. */
  readonly seq: number;
  readonly tokens: number;
  readonly resolve: (epoch: number) => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** Options of {@link RunLimiter.run}: those of {@link CallLimiter}, plus the runner's own. */
export interface LimitedCallOptions<T> {
  readonly signal?: AbortSignal;
  readonly estimatedTokens?: number;
  readonly usage?: (value: T) => Usage | undefined;
  /** The error a call failed with, when it wraps one (the runner's failed attempt). */
  readonly unwrap?: (error: unknown) => unknown;
}

const HISTORY = 16;
/** Bounds of the window over which the concurrency a provider serves is measured. */
const MIN_WINDOW_MS = 500;
const MAX_WINDOW_MS = 60_000;
const BASE_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 60_000;

/** The tokens a usage counts: `totalTokens`, else input + output; `undefined` when it has none. */
export function usageTokens(usage: Usage | undefined): number | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const total = usage.totalTokens;
  if (typeof total === "number" && Number.isFinite(total) && total >= 0) return total;
  const input = usage.inputTokens;
  const output = usage.outputTokens;
  const i = typeof input === "number" && Number.isFinite(input) && input >= 0 ? input : undefined;
  const o =
    typeof output === "number" && Number.isFinite(output) && output >= 0 ? output : undefined;
  return i === undefined && o === undefined ? undefined : (i ?? 0) + (o ?? 0);
}

/**
 * A run's limiter: a FIFO of calls waiting for a slot (adaptive concurrency), for the request and
 * token buckets, and for the pause a `Retry-After` asked for. Implements {@link CallLimiter}, so
 * metrics' model calls share it with the target.
 */
export class RunLimiter implements CallLimiter {
  private readonly requests: TokenBucket | undefined;
  private readonly tokens: TokenBucket | undefined;
  private readonly adaptive: AdaptiveConcurrency | undefined;
  private readonly isRateLimit: ((error: unknown) => boolean) | undefined;
  private readonly maxWaits: number;
  private readonly queue: Waiter[] = [];
  private inFlight = 0;
  private arrivals = 0;
  private pausedUntil = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private rateLimited = 0;
  private readonly history: number[] = [];
  private historyNext = 0;
  /** Recent successful calls (see {@link RunLimiter.measure}): when each ended, and its duration. */
  private readonly servedEnds: number[] = [];
  private readonly servedTimes: number[] = [];
  private servedHead = 0;
  private servedSum = 0;
  /** Start times of the calls in flight, summed: their time in service so far, in O(1). */
  private startSum = 0;
  private readonly startedAt: number;

  constructor(
    options: RateLimitOptions,
    private readonly maxConcurrent: number,
  ) {
    const now = performance.now();
    this.startedAt = now;
    if (options.requestsPerMinute !== undefined) {
      this.requests = new TokenBucket(options.requestsPerMinute, now);
    }
    if (options.tokensPerMinute !== undefined) {
      this.tokens = new TokenBucket(options.tokensPerMinute, now);
    }
    if (options.adaptive === true) this.adaptive = new AdaptiveConcurrency(maxConcurrent);
    this.isRateLimit = options.isRateLimit;
    this.maxWaits = options.maxWaits ?? DEFAULT_MAX_WAITS;
  }

  /** What the limiter counted so far. */
  stats(): RateLimitStats {
    return {
      rateLimitedCalls: this.rateLimited,
      concurrency: this.adaptive?.limit ?? this.maxConcurrent,
      lowestConcurrency: this.adaptive?.lowest ?? this.maxConcurrent,
    };
  }

  /**
   * Runs `call` once the run's budgets allow it. A rate-limited call waits (the error's
   * `retryAfterMs` or `Retry-After`, which also pauses every other call of the run; else a
   * jittered exponential backoff) and runs again, up to `maxWaits` times; any other error is
   * thrown as it is.
   * @throws the call's own error; `RateLimitWaitsExceededError` past `maxWaits`; the signal's
   * reason when `signal` aborts while the call waits its turn.
   */
  async run<T>(call: () => Promise<T>, options?: LimitedCallOptions<T>): Promise<T> {
    const signal = options?.signal;
    const usage = options?.usage;
    const given = options?.estimatedTokens;
    const estimated =
      typeof given === "number" && Number.isFinite(given) && given >= 0 ? given : undefined;
    let waits = 0;
    const seq = this.arrivals++;
    for (;;) {
      const tokens = this.tokens === undefined ? 0 : (estimated ?? this.estimate());
      const epoch = await this.acquire(seq, tokens, signal);
      const start = performance.now();
      this.startSum += start;
      let value: T;
      try {
        value = await call();
      } catch (thrown) {
        this.inFlight--;
        this.startSum -= start;
        const error = options?.unwrap ? options.unwrap(thrown) : thrown;
        if (!isRateLimitError(error, this.isRateLimit)) {
          this.pump();
          throw thrown;
        }
        this.rateLimited++;
        // A refused call used none of the token budget.
        this.tokens?.give(tokens);
        if (this.adaptive !== undefined) {
          const { served, roundTripMs } = this.measure();
          this.adaptive.rateLimited(epoch, served, performance.now(), roundTripMs);
        }
        const after = retryAfterOf(error);
        if (after !== undefined) {
          this.pausedUntil = Math.max(this.pausedUntil, performance.now() + after);
        }
        this.pump();
        if (waits >= this.maxWaits) throw new RateLimitWaitsExceededError(this.maxWaits, error);
        waits++;
        if (after === undefined) {
          const exp = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (waits - 1));
          const waited = await sleep(exp / 2 + Math.random() * (exp / 2), signal);
          if (!waited) throw signal?.reason ?? thrown;
        }
        continue;
      }
      this.inFlight--;
      this.startSum -= start;
      if (this.adaptive !== undefined) {
        this.adaptive.succeeded(epoch);
        this.recordServed(start, performance.now());
      }
      if (this.tokens !== undefined) {
        let used: number | undefined;
        try {
          used = usageTokens(usage?.(value));
        } catch {
          used = undefined;
        }
        if (used !== undefined) {
          this.tokens.give(tokens - used);
          if (estimated === undefined) this.remember(used);
        }
      }
      this.pump();
      return value;
    }
  }

  private recordServed(start: number, end: number): void {
    this.servedEnds.push(end);
    this.servedTimes.push(end - start);
    this.servedSum += end - start;
  }

  /**
   * The concurrency the provider served over the last few round trips, by Little's law: the time
   * calls spent in service (successful ones that ended in the window, and those in flight), over
   * the window's length. The window is four times the mean latency of recent successes, within
   * [{@link MIN_WINDOW_MS}, {@link MAX_WINDOW_MS}].
   */
  private measure(): { served: number; roundTripMs: number } {
    const now = performance.now();
    const recent = this.servedEnds.length - this.servedHead;
    const mean = recent === 0 ? 0 : this.servedSum / recent;
    const window = Math.min(MAX_WINDOW_MS, Math.max(MIN_WINDOW_MS, 4 * mean));
    const from = now - window;
    const ends = this.servedEnds;
    while (this.servedHead < ends.length && (ends[this.servedHead] as number) < from) {
      this.servedSum -= this.servedTimes[this.servedHead] as number;
      this.servedHead++;
    }
    if (this.servedHead > 1024 && this.servedHead * 2 > ends.length) {
      ends.splice(0, this.servedHead);
      this.servedTimes.splice(0, this.servedHead);
      this.servedHead = 0;
    }
    const span = Math.min(window, now - this.startedAt);
    // The call that was just refused has left the in-flight sum already.
    const inService = this.inFlight * now - this.startSum;
    const left = this.servedEnds.length - this.servedHead;
    // Before any call succeeded nothing was measured, not even a round trip: after one cut,
    // the next waits for a success (a first burst refused as a whole is one overload).
    if (left === 0 || span <= 0) return { served: 0, roundTripMs: Number.POSITIVE_INFINITY };
    return { served: (this.servedSum + inService) / span, roundTripMs: this.servedSum / left };
  }

  /** Tokens a call without its own estimate is expected to use: the mean of the last calls. */
  private estimate(): number {
    const h = this.history;
    if (h.length === 0) return 0;
    let sum = 0;
    for (let i = 0; i < h.length; i++) sum += h[i] as number;
    return sum / h.length;
  }

  private remember(used: number): void {
    if (this.history.length < HISTORY) this.history.push(used);
    else this.history[this.historyNext] = used;
    this.historyNext = (this.historyNext + 1) % HISTORY;
  }

  /**
   * Waits for a slot and the budgets, in order of first arrival (a call run again goes before the
   * calls that came after it, so none is refused over and over while others pass); its epoch.
   */
  private acquire(seq: number, tokens: number, signal: AbortSignal | undefined): Promise<number> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<number>((resolve, reject) => {
      const waiter: Waiter = { seq, tokens, resolve, reject, signal, onAbort: undefined };
      if (signal !== undefined) {
        waiter.onAbort = () => {
          const at = this.queue.indexOf(waiter);
          if (at >= 0) this.queue.splice(at, 1);
          reject(signal.reason);
          this.pump();
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      const queue = this.queue;
      let at = queue.length;
      // New arrivals (the common case) go last at once; a call run again finds its place.
      while (at > 0 && (queue[at - 1] as Waiter).seq > seq) at--;
      if (at === queue.length) queue.push(waiter);
      else queue.splice(at, 0, waiter);
      this.pump();
    });
  }

  /** Starts waiting calls while the slots, the pause and the buckets allow. */
  private pump(): void {
    const limit = this.adaptive?.limit ?? Number.POSITIVE_INFINITY;
    while (this.queue.length > 0) {
      if (this.inFlight >= limit) return;
      const head = this.queue[0] as Waiter;
      const now = performance.now();
      let wait = this.pausedUntil - now;
      if (this.requests !== undefined) wait = Math.max(wait, this.requests.waitFor(1, now));
      if (this.tokens !== undefined) wait = Math.max(wait, this.tokens.waitFor(head.tokens, now));
      if (wait > 0) {
        this.wakeAt(now + wait);
        return;
      }
      this.queue.shift();
      this.requests?.take(1);
      this.tokens?.take(head.tokens);
      this.inFlight++;
      if (head.onAbort !== undefined) head.signal?.removeEventListener("abort", head.onAbort);
      head.resolve(this.adaptive?.epoch ?? 0);
    }
  }

  private wakeAt(at: number): void {
    if (this.timer !== undefined && this.timerAt <= at) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Number.POSITIVE_INFINITY;
        this.pump();
      },
      Math.max(1, Math.ceil(at - performance.now())),
    );
  }
}
