import type { RateLimitRecord } from "../result/result-init.js";
import type { CallLimiter, Usage } from "../types.js";
import { AdaptiveConcurrency } from "./adaptive-concurrency.js";
import { isRateLimitError, RateLimitWaitsExceededError, retryAfterOf } from "./rate-limit-error.js";

import {
  DEFAULT_MAX_WAITS,
  type RateLimitOptions,
  type RateLimitStats,
} from "./rate-limit-options.js";
import { sleep } from "./retry.js";
import { TokenBucket } from "./token-bucket.js";

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

  /** What the limiter counted, as the run's result records it. */
  record(): RateLimitRecord {
    const s = this.stats();
    return {
      rateLimitedCalls: s.rateLimitedCalls,
      concurrencyFinal: s.concurrency,
      concurrencyMin: s.lowestConcurrency,
    };
  }

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
