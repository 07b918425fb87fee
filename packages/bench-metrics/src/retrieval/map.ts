import type { Metric, MetricInput } from "@fastrag/bench-core";
import { expectRetrievalInput } from "../internal/input.js";
import { type MatchLevel, rankedOf, relevantCountOf } from "../internal/judgments.js";
import { averagePrecisionOfFlags } from "../internal/kernels.js";
import { CUTOFF_OPTIONS } from "../internal/options.js";
import { expectCutoff, expectMatchLevel, expectMetricName, expectOptions } from "../kit.js";
import type { OptionalCutoffOptions } from "./options.js";

/**
 * `map` (or `map@k`): average precision of one sample; its mean over samples is MAP. The sum,
 * over the ranks i ≤ k that hold a relevant id, of precision at i, divided by the number of
 * relevant ids R, so relevant ids never retrieved count as 0 (trec_eval `map`, `map_cut_k`).
 *
 * `null` for a sample without relevant ids.
 */
export class MAP implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = true;
  readonly needsAnswer: boolean = false;
  /** The metric contract this class implements (see `Metric.specificationVersion`). */
  readonly specificationVersion = "v1" as const;
  /** The cutoff, `undefined` for the whole ranking. */
  readonly k: number | undefined;
  readonly level: MatchLevel;
  private readonly cut: number;

  /** @throws {ConfigurationError} when `k` is given but not a positive integer, or `level` is unknown. */
  constructor(options?: OptionalCutoffOptions) {
    const o = expectOptions("MAP", options, {
      required: false,
      known: CUTOFF_OPTIONS,
    }) as OptionalCutoffOptions;
    this.k = o.k === undefined ? undefined : expectCutoff("MAP", o.k);
    this.cut = this.k ?? Number.POSITIVE_INFINITY;
    this.level = expectMatchLevel("MAP", o.level);
    this.name = expectMetricName("MAP", o.name, this.k === undefined ? "map" : `map@${this.k}`);
  }

  /**
   * @throws {MetricUnavailableError} at document level when a chunk has no `documentId`.
   * @throws {ConfigurationError} for a malformed input (see the package README).
   */
  score(input: MetricInput): number | null {
    expectRetrievalInput("MAP", input);
    const r = relevantCountOf(input, "MAP");
    if (r === 0) return null;
    const ranked = rankedOf(input, this.level, "MAP");
    return averagePrecisionOfFlags(ranked.relevant, ranked.length, r, this.cut);
  }
}
