import type { CallLimiter, Usage } from "@fastrag/bench-core";
import { ConfigurationError } from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";
import { RateLimitError } from "../errors.js";

import type { AiCallOptions } from "../types.js";

type CallContext = AiCallOptions;

interface ErrorLike {
  readonly statusCode?: unknown;
  readonly responseHeaders?: unknown;
  readonly lastError?: unknown;
  readonly cause?: unknown;
  readonly message?: unknown;
}

/** The provider's HTTP error behind `error`: itself, a RetryError's last error, or its cause. */
function httpError(error: unknown): ErrorLike | undefined {
  let e: unknown = error;
  for (let depth = 0; depth < 4 && typeof e === "object" && e !== null; depth++) {
    const o = e as ErrorLike;
    if (typeof o.statusCode === "number") return o;
    e = o.lastError ?? o.cause;
  }
  return undefined;
}

/**
 * The wait a 429 response asked for, in milliseconds: `retry-after-ms`, else `retry-after` in
 * seconds or as an HTTP date (as the AI SDK reads them).
 */
export function retryAfterMs(headers: unknown, now: number = Date.now()): number | undefined {
  if (typeof headers !== "object" || headers === null) return undefined;
  const h = headers as Record<string, unknown>;
  const ms = h["retry-after-ms"];
  if (typeof ms === "string" && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = h["retry-after"];
  if (typeof after === "string" && after.trim() !== "") {
    const seconds = Number(after);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  return undefined;
}

/**
 * A 429 from the provider, found inside what the AI SDK threw, as a {@link RateLimitError}
 * (with the wait the response asked for); any other error as it was.
 */
function rateLimitOrSelf(error: unknown, model: string): unknown {
  const http = httpError(error);
  if (http === undefined || http.statusCode !== 429) return error;
  const wait = retryAfterMs(http.responseHeaders);
  const detail = wait === undefined ? "" : `; retry after ${wait} ms`;
  return new RateLimitError(`${model}: rate limited (HTTP 429)${detail}`, wait, { cause: error });
}

/** What {@link runModelCall} needs to know of a call besides how to send it. */
export interface ModelCall<R> {
  /** The model's name, for messages. */
  readonly model: string;
  /** The call's options: the run's signal, limiter and usage report. */
  readonly context: CallContext;
  /** The wrapper's own limiter, for a call the run gives none. */
  readonly ownLimiter: CallLimiter | undefined;
  /** The tokens the call is expected to take, for the limiter's budget. */
  readonly estimatedTokens: number;
  /** The call's usage, read from what it returned. */
  readonly usageOf: (value: R) => Usage;
}

/**
 * Runs one model call, `send`: through the limiter when there is one (the run's, else the
 * wrapper's own), turning a provider's 429 into a {@link RateLimitError} the limiter can wait
 * out, then reports the call's usage once. `send` gets the SDK's retry count to use when the
 * caller set none (0 under a limiter, else the SDK's own).
 */
export async function runModelCall<R>(
  call: ModelCall<R>,
  send: (maxRetriesDefault: number | undefined) => Promise<R>,
): Promise<R> {
  const { model, context, estimatedTokens, usageOf } = call;
  const limiter = context.limiter ?? call.ownLimiter;
  let value: R;
  if (limiter === undefined) {
    try {
      value = await send(undefined);
    } catch (error) {
      throw rateLimitOrSelf(error, model);
    }
  } else {
    // With a limiter, rate limits are its job: the SDK does not retry on its own (unless the
    // caller set maxRetries), so every 429 reaches the limiter, which backs off for the run.
    const limited = async (): Promise<R> => {
      try {
        return await send(0);
      } catch (error) {
        throw rateLimitOrSelf(error, model);
      }
    };
    const options =
      context.signal === undefined
        ? { estimatedTokens, usage: usageOf }
        : { signal: context.signal, estimatedTokens, usage: usageOf };
    value = await limiter.run(limited, options);
  }
  context.reportUsage?.(usageOf(value));
  return value;
}

/** Prices per million tokens, for the `cost` of the reported usage. */
export function costOf(
  inputTokens: number | undefined,
  outputTokens: number | undefined,
  inputPerMillion: number,
  outputPerMillion: number,
): number | undefined {
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  return (inputTokens * inputPerMillion + outputTokens * outputPerMillion) / 1_000_000;
}

/** A token count the provider reported, or undefined when it reported none (or nonsense). */
export function tokens(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Validates a limiter: an object with a `run` method. */
export function limiterOption(where: string, value: unknown): CallLimiter | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== "object" ||
    value === null ||
    typeof (value as { run?: unknown }).run !== "function"
  ) {
    throw new ConfigurationError(
      `${where}: option limiter must be an object with a run(call, options) method, found ${describeValue(value)}`,
      { kind: "invalid-option", option: "limiter" },
    );
  }
  return value as CallLimiter;
}
