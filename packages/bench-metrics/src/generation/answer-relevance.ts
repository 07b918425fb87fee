import type { Metric, MetricInput } from "@fastrag/bench-core";
import { answerOf, questionOf, sampleOf } from "../internal/input.js";
import { functionOption, metricName, optionsObject, timeoutOption } from "../internal/options.js";
import {
  JUDGE_OPTIONS,
  type JudgeFunction,
  type JudgeMetricOptions,
  modelCall,
  parseJudgeScore,
} from "./judge.js";

/** What the {@link AnswerRelevance} prompt is built from. */
export interface AnswerRelevancePromptParts {
  readonly question: string;
  readonly answer: string;
}

/**
 * The built-in prompt of {@link AnswerRelevance}.
 *
 * It asks the judge whether the answer addresses the question — not whether it is true — from 0
 * (off-topic or evasive) to 1 (directly and completely answers it), and to reply with one JSON
 * object `{"score": <0..1>, "reason": "<one sentence>"}` and nothing else.
 */
export function answerRelevancePrompt(parts: AnswerRelevancePromptParts): string {
  return `You judge whether an answer addresses the question it was given.

<question>
${parts.question}
</question>

<answer>
${parts.answer}
</answer>

Does the answer address the question? Do not judge whether it is true, only whether it
responds to what was asked. Score 1 if it answers the question directly and completely,
0 if it is off-topic, evasive or a refusal, and a value in between if it is partial or
padded with unrelated material.

Reply with exactly one JSON object and nothing else:
{"score": <a number from 0 to 1>, "reason": "<one sentence>"}`;
}

/**
 * `answer_relevance`: an LLM judge's grade, in [0, 1], of how well the answer addresses the
 * question, true or not (see {@link answerRelevancePrompt}). It needs no expected answer.
 *
 * The reply must be one JSON object with a numeric `score` from 0 to 1 (optionally inside a
 * ```json fence); anything else throws a `MetricUnavailableError`: `null` and the reason, never 0.
 */
export class AnswerRelevance implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = true;
  private readonly judge: JudgeFunction;
  private readonly prompt: (parts: AnswerRelevancePromptParts) => string;
  private readonly timeoutMs: number | undefined;

  /**
   * @throws {ConfigurationError} when `judge` (or a given `prompt`) is not a function, or a given
   * `timeoutMs` is not a positive number of milliseconds.
   */
  constructor(options: JudgeMetricOptions<AnswerRelevancePromptParts>) {
    const o = optionsObject("AnswerRelevance", options, true, JUDGE_OPTIONS) as Partial<
      JudgeMetricOptions<AnswerRelevancePromptParts>
    >;
    this.judge = functionOption("AnswerRelevance", "judge", o.judge);
    this.prompt =
      o.prompt === undefined
        ? answerRelevancePrompt
        : functionOption("AnswerRelevance", "prompt", o.prompt);
    this.name = metricName("AnswerRelevance", o.name, "answer_relevance");
    this.timeoutMs = timeoutOption("AnswerRelevance", o.timeoutMs);
  }

  /**
   * @throws {MetricUnavailableError} for an unparsable judge reply, or a judge call that outlasts
   * `timeoutMs`.
   * @throws whatever the judge throws (the runner records it as the reason).
   * @throws {ConfigurationError} for a malformed input (see the package README).
   */
  async score(input: MetricInput): Promise<number | null> {
    const sample = sampleOf("AnswerRelevance", input);
    const answer = answerOf("AnswerRelevance", input);
    if (answer === null) return null;
    const question = questionOf("AnswerRelevance", sample);
    const prompt = this.prompt({ question, answer });
    return parseJudgeScore(
      await modelCall("judge", this.timeoutMs, input, (o) => this.judge(prompt, o)),
    );
  }
}
