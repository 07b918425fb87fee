import type { Metric, MetricInput } from "@fastrag/bench-core";
import { expectGenerationInput } from "../internal/input.js";
import { goldAnswers, squadTokens, tokenF1 } from "../internal/squad.js";
import { expectMetricName, expectOptions } from "../kit.js";
import type { GenerationMetricOptions } from "./options.js";

/**
 * `f1`: token-overlap F1 between the answer and the best expected answer — the official SQuAD
 * v2.0 F1, in [0, 1].
 *
 * Both sides are normalized as for {@link ExactMatch} and split on whitespace; tokens are compared
 * as bags (a repeated token counts as often as it appears on both sides). When either side has no
 * tokens, F1 is 1 if both have none (a correct "no answer") and 0 otherwise.
 *
 * `null` when the sample has no expected answers.
 */
export class TokenF1 implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = true;
  /** The metric contract this class implements (see `Metric.specificationVersion`). */
  readonly specificationVersion = "v1" as const;

  /** @throws {ConfigurationError} for a bad `name`. */
  constructor(options?: GenerationMetricOptions) {
    const o = expectOptions("TokenF1", options, {
      required: false,
      known: ["name"],
    }) as GenerationMetricOptions;
    this.name = expectMetricName("TokenF1", o.name, "f1");
  }

  /** @throws {ConfigurationError} for a malformed input (see the package README). */
  score(input: MetricInput): number | null {
    const sample = expectGenerationInput("TokenF1", input);
    if (input.answer === null) return null;
    const gold = goldAnswers(sample.expectedAnswers, "TokenF1");
    if (gold === null) return null;
    const predicted = squadTokens(input.answer);
    let best = 0;
    for (const g of gold) {
      const f1 = tokenF1(squadTokens(g), predicted);
      if (f1 > best) best = f1;
    }
    return best;
  }
}
