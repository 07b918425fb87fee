import type { Metric, MetricInput } from "@fastrag/bench-core";
import { checkGenerationInput } from "../internal/input.js";
import { metricName, optionsObject } from "../internal/options.js";
import { goldAnswers, normalizeAnswer } from "../internal/squad.js";
import type { GenerationMetricOptions } from "./options.js";

/**
 * `answer_contains`: 1 when some normalized expected answer is a substring of the normalized
 * answer, else 0 — the "accuracy" of open-domain QA, where a long generated answer is right if it
 * contains a gold answer.
 *
 * Normalization and gold answers are those of {@link ExactMatch}. The match is on characters:
 * gold "art" is contained in "start". An unanswerable question (gold `[""]`) matches only an
 * answer that normalizes to `""`: the empty string is in every string, and counting every
 * answer as right would say nothing.
 *
 * `null` when the sample has no expected answers.
 */
export class AnswerContains implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = true;

  /** @throws {ConfigurationError} for a bad `name`. */
  constructor(options?: GenerationMetricOptions) {
    const o = optionsObject("AnswerContains", options, false, ["name"]) as GenerationMetricOptions;
    this.name = metricName("AnswerContains", o.name, "answer_contains");
  }

  /** @throws {ConfigurationError} for a malformed input (see the package README). */
  score(input: MetricInput): number | null {
    const sample = checkGenerationInput("AnswerContains", input);
    if (input.answer === null) return null;
    const gold = goldAnswers(sample.expectedAnswers, "AnswerContains");
    if (gold === null) return null;
    const answer = normalizeAnswer(input.answer);
    for (const g of gold) {
      const n = normalizeAnswer(g);
      if (n === "" ? answer === "" : answer.includes(n)) return 1;
    }
    return 0;
  }
}
