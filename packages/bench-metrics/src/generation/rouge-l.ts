import { ConfigurationError, type Metric, type MetricInput } from "@fastrag/bench-core";
import { expectedAnswerAt, expectGenerationInput } from "../internal/input.js";
import { rougeLF, rougeTokens } from "../internal/lcs.js";
import { describeValue } from "../internal/options.js";
import { expectMetricName, expectOptions } from "../kit.js";
import type { GenerationMetricOptions } from "./options.js";

/** Options of {@link RougeL}. */
export interface RougeLOptions extends GenerationMetricOptions {
  /**
   * Weight of recall against precision in the F-measure. Default 1 (the F1 that Google's
   * `rouge-score` reports as `fmeasure`); the original ROUGE papers' β = 1.2 weighs recall more.
   */
  readonly beta?: number;
}

/**
 * `rouge_l`: ROUGE-L, the longest-common-subsequence F-measure between the answer and the best
 * expected answer, in [0, 1].
 *
 * - Tokenization: lowercase, then split on every character that is not a letter or a digit (any
 *   script); no stemming, no stop words. On ASCII text this is `rouge-score`'s default tokenizer.
 * - With LCS the length of the longest common token subsequence: P = LCS / answer tokens,
 *   R = LCS / expected tokens, F = (1 + β²)·P·R / (R + β²·P), β = 1 by default.
 * - Expected answers without tokens are dropped unless all are; then the question has no
 *   answer, and an answer without tokens scores 1, any other 0.
 *
 * `null` when the sample has no expected answers.
 */
export class RougeL implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = true;
  /** The metric contract this class implements (see `Metric.specificationVersion`). */
  readonly specificationVersion = "v1" as const;
  readonly beta: number;

  /** @throws {ConfigurationError} for a bad `name` or a `beta` that is not a positive number. */
  constructor(options?: RougeLOptions) {
    const o = expectOptions("RougeL", options, {
      required: false,
      known: ["beta", "name"],
    }) as RougeLOptions;
    const beta: unknown = o.beta ?? 1;
    if (typeof beta !== "number" || !Number.isFinite(beta) || beta <= 0) {
      throw new ConfigurationError(
        `RougeL: option beta must be a positive number, found ${describeValue(beta)}`,
        { kind: "invalid-option", option: "beta" },
      );
    }
    this.beta = beta;
    this.name = expectMetricName("RougeL", o.name, "rouge_l");
  }

  /** @throws {ConfigurationError} for a malformed input (see the package README). */
  score(input: MetricInput): number | null {
    const expected = expectGenerationInput("RougeL", input).expectedAnswers;
    if (input.answer === null) return null;
    if (expected.length === 0) return null;
    const candidate = rougeTokens(input.answer);
    let best = 0;
    let anyGold = false;
    for (let i = 0; i < expected.length; i++) {
      const reference = rougeTokens(expectedAnswerAt("RougeL", expected, i));
      if (reference.length === 0) continue;
      anyGold = true;
      if (candidate.length === 0) continue;
      const f = rougeLF(reference, candidate, this.beta);
      if (f > best) best = f;
    }
    if (!anyGold) return candidate.length === 0 ? 1 : 0;
    return best;
  }
}
