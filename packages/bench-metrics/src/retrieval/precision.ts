import type { Metric, MetricInput } from "@fastrag/bench-core";
import { expectRetrievalInput } from "../internal/input.js";
import { type MatchLevel, rankedOf, relevantCountOf } from "../internal/judgments.js";
import { precisionOfFlags } from "../internal/kernels.js";
import { CUTOFF_OPTIONS } from "../internal/options.js";
import { expectCutoff, expectMatchLevel, expectMetricName, expectOptions } from "../kit.js";
import type { CutoffOptions } from "./options.js";

/**
 * `precision@k`: relevant ids in the top k, divided by k (trec_eval `P_k`). Missing ranks count
 * as non-relevant: a target that returns 2 chunks, both relevant, has precision@5 = 0.4.
 *
 * `null` for a sample without relevant ids.
 */
export class Precision implements Metric {
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
    const o = expectOptions("Precision", options, {
      required: true,
      known: CUTOFF_OPTIONS,
    }) as Partial<CutoffOptions>;
    this.k = expectCutoff("Precision", o.k);
    this.level = expectMatchLevel("Precision", o.level);
    this.name = expectMetricName("Precision", o.name, `precision@${this.k}`);
  }

  /**
   * @throws {MetricUnavailableError} at document level when a chunk has no `documentId`.
   * @throws {ConfigurationError} for a malformed input (see the package README).
   */
  score(input: MetricInput): number | null {
    expectRetrievalInput("Precision", input);
    const r = relevantCountOf(input, "Precision");
    if (r === 0) return null;
    const ranked = rankedOf(input, this.level, "Precision");
    return precisionOfFlags(ranked.relevant, ranked.length, this.k);
  }
}
