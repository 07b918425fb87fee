/**
 * Thrown by an `aiJudge` or `aiEmbed` call that the provider rate-limited (HTTP 429) once the AI
 * SDK's own retries, if any, are spent. It carries what a rate limiter reads: `statusCode` 429
 * and, when the response said how long to wait (`retry-after-ms` or `retry-after`),
 * `retryAfterMs`. The run's limiter (`CallLimiter`) then waits and runs the call again; without
 * one, the metric records `null` and this message. The provider's error is the `cause`.
 */
export class RateLimitError extends Error {
  /** Always 429. */
  readonly statusCode: 429 = 429;
  /** How long the provider asked to wait, in milliseconds; absent when it did not say. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, retryAfterMs: number | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RateLimitError";
    this.retryAfterMs = retryAfterMs;
  }

  /** True for a `RateLimitError` from any copy of this package. */
  static isInstance(error: unknown): error is RateLimitError {
    return (
      typeof error === "object" &&
      error !== null &&
      (error as { [BRAND]?: unknown })[BRAND] === true
    );
  }
}

const BRAND: unique symbol = Symbol.for("fastrag.bench.ai.rate-limit-error");
Object.defineProperty(RateLimitError.prototype, BRAND, { value: true });
