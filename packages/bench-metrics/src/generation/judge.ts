import {
  type EmbedCallOptions,
  type JudgeCallOptions,
  type MetricInput,
  MetricUnavailableError,
} from "@fastrag/bench-core";

export type { EmbedFunction, JudgeFunction, JudgeReply } from "@fastrag/bench-core";

import { describeValue } from "../internal/options.js";

/**
 * The second argument of a {@link JudgeFunction} and an {@link EmbedFunction}: core's
 * `JudgeCallOptions` (the signal, `reportUsage`, `limiter`, and for a judge the step being asked:
 * `step`, `metric`, `input`, `schema`, `attempt`).
 */
export type ModelCallOptions = JudgeCallOptions;

let idleSignal: AbortSignal | undefined;

/** The signal handed to a model: the run's, or one that never aborts. */
export function callSignal(signal: AbortSignal | undefined): AbortSignal {
  if (signal !== undefined) return signal;
  idleSignal ??= new AbortController().signal;
  return idleSignal;
}

/** The options of a model call: the signal, plus the input's usage sink and limiter when present. */
function callOptions(signal: AbortSignal, input: ModelCallSource): EmbedCallOptions {
  const { reportUsage, limiter } = input;
  if (reportUsage === undefined && limiter === undefined) return { signal };
  if (limiter === undefined) return { signal, reportUsage };
  if (reportUsage === undefined) return { signal, limiter };
  return { signal, reportUsage, limiter };
}

/** What {@link modelCall} reads from a metric's input. */
export type ModelCallSource = Pick<MetricInput, "signal" | "reportUsage" | "limiter">;

/**
 * Calls a model (`judge` or `embed`) with the run's signal, and the input's `reportUsage` and
 * `limiter` when it has them. Without `timeoutMs` that is all: the call gets {@link callSignal}'s
 * signal. With it, the call gets a
 * signal that also aborts after `timeoutMs`, and is raced against that timer, so a model that
 * ignores its signal still cannot hold the sample: the result rejects with a
 * `MetricUnavailableError` on time. The timer is cleared when the call settles, and a call that
 * settles after the timeout (even by rejecting) is ignored.
 */
export function modelCall<T>(
  kind: "judge" | "embed",
  timeoutMs: number | undefined,
  input: ModelCallSource,
  call: (options: EmbedCallOptions) => Promise<T> | T,
): Promise<T> | T {
  const runSignal = input.signal;
  if (timeoutMs === undefined) return call(callOptions(callSignal(runSignal), input));
  const message = `${kind} call timed out after ${timeoutMs} ms`;
  const timeout = new AbortController();
  const signal: AbortSignal = timeout.signal;
  let unlink: (() => void) | undefined;
  if (runSignal !== undefined) {
    // The run's abort is forwarded by hand, and the listener removed once the call settles. Not
    // AbortSignal.any, which leaks on Node 20 (docs/decisions/abort-forwarding.md).
    if (runSignal.aborted) {
      timeout.abort(runSignal.reason);
    } else {
      const forward = (): void => timeout.abort(runSignal.reason);
      runSignal.addEventListener("abort", forward, { once: true });
      unlink = () => runSignal.removeEventListener("abort", forward);
    }
  }
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      unlink?.();
      // The reason a fetch-based client rejects with, as with `AbortSignal.timeout`.
      timeout.abort(new DOMException(message, "TimeoutError"));
      reject(new MetricUnavailableError(message));
    }, timeoutMs);
    const settle = (): void => {
      clearTimeout(timer);
      unlink?.();
    };
    let pending: Promise<T>;
    try {
      pending = Promise.resolve(call(callOptions(signal, input)));
    } catch (error) {
      settle();
      reject(error);
      return;
    }
    // Both handlers are attached at once, so a rejection after the timeout is handled (and
    // dropped: the promise has settled), never an unhandled rejection.
    pending.then(
      (value) => {
        settle();
        resolve(value);
      },
      (error: unknown) => {
        settle();
        reject(error);
      },
    );
  });
}

const FENCED = /^```(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n?```$/;

/**
 * Parses a judge reply strictly. An object is taken as it is (structured output); text must be
 * one JSON object and nothing else: optional surrounding whitespace, optionally inside a single
 * ```json fence. Prose before or after it, two
 * objects, or invalid JSON make the reply unparsable.
 *
 * @throws {MetricUnavailableError} naming what was wrong and quoting the start of the reply.
 */
export function parseJudgeObject(reply: unknown): Record<string, unknown> {
  if (typeof reply === "object" && reply !== null && !Array.isArray(reply)) {
    // An object already parsed (structured output): a plain copy, so a later change by the
    // judge's client cannot reach what is checked and kept.
    try {
      return JSON.parse(JSON.stringify(reply)) as Record<string, unknown>;
    } catch {
      throw new MetricUnavailableError(
        `the judge returned an object JSON cannot hold (${describeValue(reply)})`,
      );
    }
  }
  if (typeof reply !== "string") {
    throw new MetricUnavailableError(
      `the judge returned ${describeValue(reply)}, expected a JSON object or its text`,
    );
  }
  let text = reply.trim();
  const fenced = FENCED.exec(text);
  if (fenced !== null) text = (fenced[1] as string).trim();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new MetricUnavailableError(
      `unparsable judge reply: expected a single JSON object, found ${describeValue(reply)}`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new MetricUnavailableError(
      `unparsable judge reply: expected a JSON object, found ${describeValue(reply)}`,
    );
  }
  return value as Record<string, unknown>;
}
