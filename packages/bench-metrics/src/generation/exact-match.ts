import type { Metric, MetricInput } from "@fastrag/bench-core";
import { expectGenerationInput } from "../internal/input.js";
import { exactMatchScore, goldAnswers } from "../internal/squad.js";
import { expectMetricName, expectOptions } from "../kit.js";
import type { GenerationMetricOptions } from "./options.js";

/**
 * `exact_match`: 1 when the normalized answer equals a normalized expected answer, else 0 — the
 * official SQuAD v2.0 exact score, in [0, 1] rather than ×100.
 *
 * Normalization: lowercase; remove ASCII punctuation; remove the words a/an/the; collapse
 * whitespace. Expected answers that normalize to `""` are dropped unless all do, in which case
 * the question is unanswerable and only an empty answer matches.
 *
 * `null` when the sample has no expected answers (a retrieval-only sample).
 *
 * @example
 * ```ts
 * // expected ["The Eiffel Tower"], answer "eiffel tower!" → 1
 * new ExactMatch();
 * ```
 */
export class ExactMatch implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = true;
  /** The metric contract this class implements (see `Metric.specificationVersion`). */
  readonly specificationVersion = "v1" as const;

  /** @throws {ConfigurationError} for a bad `name`. */
  constructor(options?: GenerationMetricOptions) {
    const o = expectOptions("ExactMatch", options, {
      required: false,
      known: ["name"],
    }) as GenerationMetricOptions;
    this.name = expectMetricName("ExactMatch", o.name, "exact_match");
  }

  /** @throws {ConfigurationError} for a malformed input (see the package README). */
  score(input: MetricInput): number | null {
    const sample = expectGenerationInput("ExactMatch", input);
    if (input.answer === null) return null;
    const gold = goldAnswers(sample.expectedAnswers, "ExactMatch");
    if (gold === null) return null;
    for (const g of gold) if (exactMatchScore(g, input.answer) === 1) return 1;
    return 0;
  }
}
