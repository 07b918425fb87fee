import type { Metric, MetricInput } from "@fastrag/bench-core";
import { expectRetrievalInput } from "../internal/input.js";
import { type MatchLevel, rankedOf, relevantCountOf } from "../internal/judgments.js";
import { hitRateOfFlags } from "../internal/kernels.js";
import { CUTOFF_OPTIONS } from "../internal/options.js";
import { expectCutoff, expectMatchLevel, expectMetricName, expectOptions } from "../kit.js";
import type { CutoffOptions } from "./options.js";

/**
 * `hit_rate@k`: 1 when any relevant id is in the top k, else 0 (trec_eval `success_k`).
 *
 * `null` for a sample without relevant ids.
 */
export class HitRate implements Metric {
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
    const o = expectOptions("HitRate", options, {
      required: true,
      known: CUTOFF_OPTIONS,
    }) as Partial<CutoffOptions>;
    this.k = expectCutoff("HitRate", o.k);
    this.level = expectMatchLevel("HitRate", o.level);
    this.name = expectMetricName("HitRate", o.name, `hit_rate@${this.k}`);
  }

  /**
   * @throws {MetricUnavailableError} at document level when a chunk has no `documentId`.
   * @throws {ConfigurationError} for a malformed input (see the package README).
   */
  score(input: MetricInput): number | null {
    expectRetrievalInput("HitRate", input);
    const r = relevantCountOf(input, "HitRate");
    if (r === 0) return null;
    const ranked = rankedOf(input, this.level, "HitRate");
    return hitRateOfFlags(ranked.relevant, ranked.length, this.k);
  }
}
