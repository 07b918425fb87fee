// What a rate-limit error is, how long it asks to wait, and the error a call gets once it was
// rate-limited more than `maxWaits` times in a row.
import { errorMessage } from "../error-message.js";

/**
 * How long a rate-limited call is asked to wait, in milliseconds, read from the error: a numeric
 * `retryAfterMs`, else a `retry-after-ms` or `Retry-After` header (seconds, or an HTTP date) in
 * `error.headers`, `error.response.headers` or `error.responseHeaders` (where the AI SDK's
 * `APICallError` keeps them), looked up through `cause` and `lastError` (the AI SDK's
 * `RetryError`) too. `undefined` when it does not say.
 */
export function retryAfterOf(error: unknown, now: number = Date.now()): number | undefined {
  let e: unknown = error;
  for (let depth = 0; depth < 4 && typeof e === "object" && e !== null; depth++) {
    const after = ownRetryAfter(e, now);
    if (after !== undefined) return after;
    e = read(e, "lastError") ?? read(e, "cause");
  }
  return undefined;
}

/**
 * Whether `error` is a rate-limit error: HTTP status 429 (`status` or `statusCode`, on the error,
 * its `response`, or its `cause`/`lastError`), a numeric `retryAfterMs`, or what the user's
 * `isRateLimit` says (an `isRateLimit` that throws says no).
 */
export function isRateLimitError(
  error: unknown,
  isRateLimit: ((error: unknown) => boolean) | undefined,
): boolean {
  let e: unknown = error;
  for (let depth = 0; depth < 4 && typeof e === "object" && e !== null; depth++) {
    if (read(e, "status") === 429 || read(e, "statusCode") === 429) return true;
    const response = read(e, "response");
    if (typeof response === "object" && response !== null && read(response, "status") === 429) {
      return true;
    }
    const ms = read(e, "retryAfterMs");
    if (typeof ms === "number" && Number.isFinite(ms) && ms >= 0) return true;
    e = read(e, "lastError") ?? read(e, "cause");
  }
  if (isRateLimit === undefined) return false;
  try {
    return isRateLimit(error) === true;
  } catch {
    return false;
  }
}

function ownRetryAfter(e: object, now: number): number | undefined {
  const ms = read(e, "retryAfterMs");
  if (typeof ms === "number" && Number.isFinite(ms) && ms >= 0) return ms;
  const response = read(e, "response");
  for (const headers of [
    read(e, "headers"),
    read(e, "responseHeaders"),
    typeof response === "object" && response !== null ? read(response, "headers") : undefined,
  ]) {
    const after = headerRetryAfter(headers, now);
    if (after !== undefined) return after;
  }
  return undefined;
}

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date, from a `Headers` or a plain record. */
export function headerRetryAfter(headers: unknown, now: number): number | undefined {
  const ms = Number(header(headers, "retry-after-ms") ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const after = header(headers, "retry-after");
  if (after === undefined || after.trim() === "") return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(after);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** A header's value, by case-insensitive name, from a `Headers`-like object or a plain record. */
function header(headers: unknown, name: string): string | undefined {
  if (typeof headers !== "object" || headers === null) return undefined;
  try {
    const get = (headers as { get?: unknown }).get;
    if (typeof get === "function") {
      const v: unknown = get.call(headers, name);
      return typeof v === "string" ? v : undefined;
    }
    for (const key of Object.keys(headers)) {
      if (key.toLowerCase() !== name) continue;
      const v = (headers as Record<string, unknown>)[key];
      if (typeof v === "string") return v;
      if (typeof v === "number") return String(v);
      if (Array.isArray(v) && typeof v[0] === "string") return v[0];
    }
  } catch {
    // A getter or Proxy that throws gives no hint.
  }
  return undefined;
}

/** A property of a value the caller threw, which may be a Proxy or have throwing getters. */
function read(o: object, key: string): unknown {
  try {
    return (o as Record<string, unknown>)[key];
  } catch {
    return undefined;
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
