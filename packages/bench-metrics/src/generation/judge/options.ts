// What every judge metric takes and reads: its options, and the parts of the input it judges.
import { ConfigurationError, type JudgeFunction, type MetricInput } from "@fastrag/bench-core";
import { expectSpecificationVersion } from "@fastrag/bench-core/internal/base";
import {
  answerOf,
  chunkAt,
  expectedAnswerAt,
  expectGenerationInput,
  expectRetrieved,
  questionOf,
} from "../../internal/input.js";
import { describeValue } from "../../internal/options.js";
import {
  expectFunctionOption,
  expectMetricName,
  expectOptions,
  expectTimeoutMs,
} from "../../kit.js";
import { type Asker, DEFAULT_JUDGE_TIMEOUT_MS } from "./ask.js";
import type { StepName, StepPrompts } from "./steps.js";

/** Options every judge metric takes. */
export interface JudgeMetricOptions {
  /** The judge: a `JudgeFunction` (e.g. `aiJudge(model)` of `@fastrag/bench-ai`). */
  readonly judge: JudgeFunction;
  /** Overrides the metric's name (the key in results). */
  readonly name?: string;
  /**
   * Replaces the built-in prompt of a step (by step name), from the step's input. The reply must
   * keep the step's shape (its schema is sent and checked either way). A custom prompt's replies
   * are keyed apart from the built-in one's, in the cache and in kept judgments.
   */
  readonly prompts?: StepPrompts;
  /**
   * Time limit on each judge (and embed) call, in milliseconds: default 120000 (2 minutes), at
   * most 2147483647. When it passes, the call's `signal` aborts and the metric stops waiting even
   * if the judge ignores it: the sample records `null` and "judge call timed out after … ms" as
   * the reason, never 0. It bounds each call, not the sample (a metric asks several steps).
   */
  readonly timeoutMs?: number;
}

/** The option names every judge metric takes. */
export const JUDGE_OPTIONS: readonly string[] = ["judge", "name", "prompts", "timeoutMs"];

const STEP_NAMES: readonly StepName[] = [
  "statements",
  "verdicts",
  "context_verdict",
  "attributions",
  "question_generation",
  "claims",
  "classification",
];

/**
 * Reads a judge metric's options: the shared ones checked, the metric's own (`extra`) left in the
 * returned object for it to read. Unknown names are refused.
 */
export function judgeOptions(
  metric: string,
  options: unknown,
  fallbackName: string,
  extra: readonly string[] = [],
): { readonly asker: Asker; readonly o: Record<string, unknown> } {
  const o = expectOptions(metric, options, {
    required: true,
    known: [...JUDGE_OPTIONS, ...extra],
  }) as Record<string, unknown>;
  const judge = expectFunctionOption<JudgeFunction>(metric, "judge", o.judge);
  expectSpecificationVersion(judge.specificationVersion, {
    where: `${metric}: option judge`,
    contract: "judges",
    kind: "invalid-option",
    option: "judge",
  });
  const prompts = o.prompts;
  if (prompts !== undefined) {
    if (typeof prompts !== "object" || prompts === null || Array.isArray(prompts)) {
      throw new ConfigurationError(
        `${metric}: option prompts must be an object of step name → function, found ${describeValue(prompts)}`,
        { kind: "invalid-option", option: "prompts" },
      );
    }
    for (const [step, fn] of Object.entries(prompts)) {
      if (!(STEP_NAMES as readonly string[]).includes(step)) {
        throw new ConfigurationError(
          `${metric}: option prompts names an unknown step ${JSON.stringify(step)}; the steps are ${STEP_NAMES.join(", ")}`,
          { kind: "invalid-option", option: "prompts" },
        );
      }
      expectFunctionOption(metric, `prompts.${step}`, fn);
    }
  }
  return {
    asker: {
      metric: expectMetricName(metric, o.name, fallbackName),
      judge,
      prompts: prompts as StepPrompts | undefined,
      timeoutMs: expectTimeoutMs(metric, o.timeoutMs) ?? DEFAULT_JUDGE_TIMEOUT_MS,
    },
    o,
  };
}

/** One of the listed string values of an option, or its default. */
export function choiceOption<T extends string>(
  metric: string,
  option: string,
  value: unknown,
  choices: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (typeof value === "string" && (choices as readonly string[]).includes(value))
    return value as T;
  throw new ConfigurationError(
    `${metric}: option ${option} must be ${choices.map((c) => JSON.stringify(c)).join(" or ")}, found ${describeValue(value)}`,
    { kind: "invalid-option", option },
  );
}

/** A positive finite number option, or its default. */
export function positiveOption(
  metric: string,
  option: string,
  value: unknown,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new ConfigurationError(
      `${metric}: option ${option} must be a positive number, found ${describeValue(value)}`,
      { kind: "invalid-option", option },
    );
  }
  return value;
}

/** What a judge metric reads of one sample. */
export interface Judged {
  readonly question: string;
  /** The answer, or `null` when there is none or it is blank (an abstention). */
  readonly answer: string | null;
  /** The first non-empty expected answer, or `null`. */
  readonly reference: string | null;
  /** The text of each retrieved chunk that has one, in rank order, with its 1-based rank. */
  readonly chunks: readonly { readonly rank: number; readonly text: string }[];
}

/** The parts of `input` a judge metric reads, each checked (a malformed input is a ConfigurationError). */
export function judged(metric: string, input: MetricInput): Judged {
  const sample = expectGenerationInput(metric, input);
  const question = questionOf(metric, sample);
  const raw = answerOf(metric, input);
  const answer = raw === null || raw.trim() === "" ? null : raw;
  let reference: string | null = null;
  const expected = sample.expectedAnswers;
  for (let i = 0; i < expected.length; i++) {
    const e = expectedAnswerAt(metric, expected, i);
    // Every entry is checked (a malformed one after the reference is still refused).
    if (reference === null && e.trim() !== "") reference = e;
  }
  const retrieved = input.retrieved;
  expectRetrieved(metric, retrieved);
  const chunks: { rank: number; text: string }[] = [];
  for (let i = 0; i < retrieved.length; i++) {
    const text = chunkAt(metric, retrieved, i).text;
    if (typeof text === "string" && text.trim() !== "") chunks.push({ rank: i + 1, text });
  }
  return { question, answer, reference, chunks };
}

/** The retrieved context as one text: the chunks' texts joined with "\n", in rank order. */
export function contextOf(chunks: Judged["chunks"]): string {
  return chunks.map((c) => c.text).join("\n");
}

/** F-β of counts: 0 when precision and recall are both 0; an empty ratio counts 0. */
export function fBeta(tp: number, fp: number, fn: number, beta: number): number {
  const precision = tp + fp === 0 ? 0 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 0 : tp / (tp + fn);
  if (precision + recall === 0) return 0;
  const b2 = beta * beta;
  return ((1 + b2) * precision * recall) / (b2 * precision + recall);
}
