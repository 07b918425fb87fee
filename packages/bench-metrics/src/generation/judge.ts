import { MetricUnavailableError } from "@fastrag/bench-core";
import { describe } from "../internal/options.js";

/** The second argument of a {@link JudgeFunction} and an {@link EmbedFunction}. */
export interface ModelCallOptions {
  /** The run's signal: abort the model call when it fires. Never aborted outside a run. */
  readonly signal: AbortSignal;
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
}

/** The option names of the judge metrics: another name is refused, not ignored. */
export const JUDGE_OPTIONS: readonly string[] = ["judge", "name", "prompt"];

let idleSignal: AbortSignal | undefined;

/** The signal handed to a model: the run's, or one that never aborts. */
export function callSignal(signal: AbortSignal | undefined): AbortSignal {
  if (signal !== undefined) return signal;
  idleSignal ??= new AbortController().signal;
  return idleSignal;
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
    throw new MetricUnavailableError(`the judge returned ${describe(reply)}, expected a string`);
  }
  let text = reply.trim();
  const fenced = FENCED.exec(text);
  if (fenced !== null) text = (fenced[1] as string).trim();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new MetricUnavailableError(
      `unparsable judge reply: expected a single JSON object, found ${describe(reply)}`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new MetricUnavailableError(
      `unparsable judge reply: expected a JSON object, found ${describe(reply)}`,
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
      `unparsable judge reply: expected "score" to be a number from 0 to 1, found ${describe(score)}`,
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
