import type { Metric, MetricInput } from "@fastrag/bench-core";
import { expectRetrievalInput } from "../internal/input.js";
import { type MatchLevel, rankedOf, relevantCountOf } from "../internal/judgments.js";
import { recallOfFlags } from "../internal/kernels.js";
import { CUTOFF_OPTIONS } from "../internal/options.js";
import { expectCutoff, expectMatchLevel, expectMetricName, expectOptions } from "../kit.js";
import type { CutoffOptions } from "./options.js";

/**
 * `recall@k`: the share of the relevant ids found in the top k (trec_eval `recall_k`).
 *
 * `null` for a sample without relevant ids.
 *
 * @example
 * ```ts
 * new Recall({ k: 5 }); // name "recall@5"
 * ```
 */
export class Recall implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = true;
  readonly needsAnswer: boolean = false;
  /** The metric contract this class implements (see `Metric.specificationVersion`). */
  readonly specificationVersion = "v1" as const;
  readonly k: number;
  readonly level: MatchLevel;

  /** @throws {ConfigurationError} when `k` is not a positive integer or `level` is unknown. */
  constructor(options: CutoffOptions) {
    const o = expectOptions("Recall", options, {
      required: true,
      known: CUTOFF_OPTIONS,
    }) as Partial<CutoffOptions>;
    this.k = expectCutoff("Recall", o.k);
    this.level = expectMatchLevel("Recall", o.level);
    this.name = expectMetricName("Recall", o.name, `recall@${this.k}`);
  }

  /**
   * @throws {MetricUnavailableError} at document level when a chunk has no `documentId`.
   * @throws {ConfigurationError} for a malformed input (see the package README).
   */
  score(input: MetricInput): number | null {
    expectRetrievalInput("Recall", input);
    const r = relevantCountOf(input, "Recall");
    if (r === 0) return null;
    const ranked = rankedOf(input, this.level, "Recall");
    return recallOfFlags(ranked.relevant, ranked.length, r, this.k);
  }
}
