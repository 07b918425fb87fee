// Retry policy: which errors are retried, how long to wait between attempts, and the wait itself.

/** Retry policy for errors the caller marks transient (rate limits, 5xx). Default: no retries. */
export interface RetryOptions {
  /** Total attempts per sample, including the first. A positive integer. */
  readonly attempts: number;
  /** Base of the exponential backoff; attempt n waits about `backoffMs · 2^(n−1)`, jittered. Default 500. */
  readonly backoffMs?: number;
  /** Cap of a single wait. Default 60,000. */
  readonly maxBackoffMs?: number;
  /**
   * Decides whether an error is transient. Only those are retried. An error carrying a numeric
   * `retryAfterMs` waits at least that long.
   */
  readonly retryOn: (error: unknown) => boolean;
}

export function isRetryable(retries: RetryOptions | undefined, error: unknown): boolean {
  if (!retries) return false;
  try {
    return retries.retryOn(error) === true;
  } catch {
    return false;
  }
}

export function backoffDelay(retries: RetryOptions, attempt: number, error: unknown): number {
  const base = retries.backoffMs ?? 500;
  const cap = retries.maxBackoffMs ?? 60_000;
  const exp = Math.min(cap, base * 2 ** (attempt - 1));
  // "Equal jitter": half fixed, half random, so retries of many samples spread out.
  const delay = exp / 2 + Math.random() * (exp / 2);
  let after: unknown;
  try {
    after = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  } catch {
    // A getter that throws (or a Proxy) gives no hint: use the computed delay.
  }
  return typeof after === "number" && Number.isFinite(after) && after > delay
    ? Math.min(after, cap)
    : delay;
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
