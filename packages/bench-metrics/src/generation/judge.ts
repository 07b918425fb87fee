import {
  type CallLimiter,
  type MetricInput,
  MetricUnavailableError,
  type Usage,
} from "@fastrag/bench-core";
import { describeValue } from "../internal/options.js";

/** The second argument of a {@link JudgeFunction} and an {@link EmbedFunction}. */
export interface ModelCallOptions {
  /**
   * Abort the model call when it fires. It follows the run's signal: it is the sample's own
   * signal, which aborts with the run (one that never aborts outside a run); with the metric's
   * `timeoutMs` option, it also aborts when that time has passed.
   */
  readonly signal: AbortSignal;
  /**
   * The run's usage sink, forwarded from the metric's input when the runner records judge usage:
   * call it once per model call with that call's tokens (and cost), so the result's
   * `judge_usage` counts them. Absent when the runner does not record it.
   */
  readonly reportUsage?: (usage: Usage) => void;
  /**
   * The run's shared rate limiter, forwarded from the metric's input: run the model call through
   * `limiter.run(…)` so judge calls share the run's budget. Absent when the run has none.
   */
  readonly limiter?: CallLimiter;
}

/**
 * A caller-supplied language model: a prompt in, the model's reply text out. No client ships
 * with this package; wrap whichever SDK you use, and pass `signal` on to it.
 *
 * @example
 * ```ts
 * const judge: JudgeFunction = async (prompt, { signal }) => {
 *   const r = await openai.chat.completions.create(
 *     { model: "gpt-4o-mini", temperature: 0, messages: [{ role: "user", content: prompt }] },
 *     { signal },
 *   );
 *   return r.choices[0]?.message.content ?? "";
 * };
 * ```
 */
export type JudgeFunction = (prompt: string, options: ModelCallOptions) => Promise<string> | string;

/** Options shared by the judge-based metrics. */
export interface JudgeMetricOptions<P> {
  readonly judge: JudgeFunction;
  /** Overrides the metric's name (the key in results). */
  readonly name?: string;
  /**
   * Replaces the built-in prompt. The reply must keep the format the metric parses (see its
   * docs), so a custom prompt should end with the same reply instructions.
   */
  readonly prompt?: (parts: P) => string;
  /**
   * Time limit on each judge call, in milliseconds (a positive number, at most 2147483647). When
   * it passes, the `signal` handed to the judge aborts, and the metric stops waiting even if the
   * judge ignores that signal: it throws a `MetricUnavailableError` ("judge call timed out after
   * … ms"), so the sample records `null` and the reason — never a 0. A call that settles later is
   * ignored. The limit applies to each judge call, not to the sample: a metric that makes
   * several calls for one sample may take up to that many times `timeoutMs`. Without it a judge
   * call is not bounded (the run's `timeoutMs` limits the pipeline call, not metrics).
   *
   * @example
   * ```ts
   * new Faithfulness({ judge, timeoutMs: 60_000 }); // give up on a judge call after a minute
   * ```
   */
  readonly timeoutMs?: number;
}

/** The option names of the judge metrics: another name is refused, not ignored. */
export const JUDGE_OPTIONS: readonly string[] = ["judge", "name", "prompt", "timeoutMs"];

let idleSignal: AbortSignal | undefined;

/** The signal handed to a model: the run's, or one that never aborts. */
export function callSignal(signal: AbortSignal | undefined): AbortSignal {
  if (signal !== undefined) return signal;
  idleSignal ??= new AbortController().signal;
  return idleSignal;
}

/** The options of a model call: the signal, plus the input's usage sink and limiter when present. */
function callOptions(signal: AbortSignal, input: ModelCallSource): ModelCallOptions {
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
  call: (options: ModelCallOptions) => Promise<T> | T,
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
 * Parses a judge reply strictly. The reply must be one JSON object and nothing else: optional
 * surrounding whitespace, optionally inside a single ```json fence. Prose before or after it, two
 * objects, or invalid JSON make the reply unparsable.
 *
 * @throws {MetricUnavailableError} naming what was wrong and quoting the start of the reply.
 */
export function parseJudgeObject(reply: unknown): Record<string, unknown> {
  if (typeof reply !== "string") {
    throw new MetricUnavailableError(
      `the judge returned ${describeValue(reply)}, expected a string`,
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

/**
 * Reads `{"score": x}` with x a number in [0, 1].
 *
 * @throws {MetricUnavailableError} when the reply is unparsable or the score missing or out of range.
 */
export function parseJudgeScore(reply: unknown): number {
  const object = parseJudgeObject(reply);
  const score = object.score;
  if (typeof score !== "number" || !Number.isFinite(score) || score < 0 || score > 1) {
    throw new MetricUnavailableError(
      `unparsable judge reply: expected "score" to be a number from 0 to 1, found ${describeValue(score)}`,
    );
  }
  return score;
}

/** Lists strings for a prompt, one numbered line block each. */
export function numbered(items: readonly string[]): string {
  let out = "";
  for (let i = 0; i < items.length; i++) out += `[${i + 1}] ${items[i]}\n`;
  return out.trimEnd();
}
