import type { Metric, MetricInput } from "@fastrag/bench-core";
import { expectedAnswerAt, expectGenerationInput, questionOf } from "../internal/input.js";
import { functionOption, metricName, optionsObject, timeoutOption } from "../internal/options.js";
import {
  JUDGE_OPTIONS,
  type JudgeFunction,
  type JudgeMetricOptions,
  modelCall,
  numbered,
  parseJudgeScore,
} from "./judge.js";

/** What the {@link AnswerCorrectness} prompt is built from. */
export interface AnswerCorrectnessPromptParts {
  readonly question: string;
  readonly answer: string;
  /** The non-empty expected answers. */
  readonly expectedAnswers: readonly string[];
}

/**
 * The built-in prompt of {@link AnswerCorrectness}.
 *
 * It asks the judge to grade the answer against the reference answers, from 0 (wrong or
 * unsupported by the references) to 1 (says the same as a reference), and to reply with one JSON
 * object `{"score": <0..1>, "reason": "<one sentence>"}` and nothing else.
 */
export function answerCorrectnessPrompt(parts: AnswerCorrectnessPromptParts): string {
  return `You grade answers to questions against reference answers.

<question>
${parts.question}
</question>

<reference_answers>
${numbered(parts.expectedAnswers)}
</reference_answers>

<answer>
${parts.answer}
</answer>

Is the answer correct? Any one reference answer is enough. Judge meaning, not wording: extra
correct detail is fine, a contradiction or a missing key fact is not.
Score 1 if it says what a reference answer says, 0 if it is wrong or unrelated, and a value
in between for a partly correct answer.

Reply with exactly one JSON object and nothing else:
{"score": <a number from 0 to 1>, "reason": "<one sentence>"}`;
}

/**
 * `answer_correctness`: an LLM judge's grade, in [0, 1], of the answer against the expected
 * answers (see {@link answerCorrectnessPrompt}).
 *
 * The reply must be one JSON object with a numeric `score` from 0 to 1 (optionally inside a
 * ```json fence); anything else throws a `MetricUnavailableError`, so the sample records `null`
 * and the reason — never 0. `null` when the sample has no non-empty expected answer.
 *
 * @example
 * ```ts
 * new AnswerCorrectness({ judge: async (prompt, { signal }) => callMyModel(prompt, signal) });
 * ```
 */
export class AnswerCorrectness implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = true;
  private readonly judge: JudgeFunction;
  private readonly prompt: (parts: AnswerCorrectnessPromptParts) => string;
  private readonly timeoutMs: number | undefined;

  /**
   * @throws {ConfigurationError} when `judge` (or a given `prompt`) is not a function, or a given
   * `timeoutMs` is not a positive number of milliseconds.
   */
  constructor(options: JudgeMetricOptions<AnswerCorrectnessPromptParts>) {
    const o = optionsObject("AnswerCorrectness", options, true, JUDGE_OPTIONS) as Partial<
      JudgeMetricOptions<AnswerCorrectnessPromptParts>
    >;
    this.judge = functionOption("AnswerCorrectness", "judge", o.judge);
    this.prompt =
      o.prompt === undefined
        ? answerCorrectnessPrompt
        : functionOption("AnswerCorrectness", "prompt", o.prompt);
    this.name = metricName("AnswerCorrectness", o.name, "answer_correctness");
    this.timeoutMs = timeoutOption("AnswerCorrectness", o.timeoutMs);
  }

  /**
   * @throws {MetricUnavailableError} for an unparsable judge reply, or a judge call that outlasts
   * `timeoutMs`.
   * @throws whatever the judge throws (the runner records it as the reason).
   * @throws {ConfigurationError} for a malformed input (see the package README).
   */
  async score(input: MetricInput): Promise<number | null> {
    const sample = expectGenerationInput("AnswerCorrectness", input);
    if (input.answer === null) return null;
    const expected = sample.expectedAnswers;
    const expectedAnswers: string[] = [];
    for (let i = 0; i < expected.length; i++) {
      const answer = expectedAnswerAt("AnswerCorrectness", expected, i);
      if (answer.trim() !== "") expectedAnswers.push(answer);
    }
    if (expectedAnswers.length === 0) return null;
    const prompt = this.prompt({
      question: questionOf("AnswerCorrectness", sample),
      answer: input.answer,
      expectedAnswers,
    });
    return parseJudgeScore(
      await modelCall("judge", this.timeoutMs, input, (o) => this.judge(prompt, o)),
    );
  }
}
