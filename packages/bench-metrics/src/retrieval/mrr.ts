import type { Metric, MetricInput } from "@fastrag/bench-core";
import { expectRetrievalInput } from "../internal/input.js";
import { type MatchLevel, rankedOf, relevantCountOf } from "../internal/judgments.js";
import { reciprocalRankOfFlags } from "../internal/kernels.js";
import { CUTOFF_OPTIONS } from "../internal/options.js";
import { expectCutoff, expectMatchLevel, expectMetricName, expectOptions } from "../kit.js";
import type { OptionalCutoffOptions } from "./options.js";

/**
 * `mrr` (or `mrr@k` with a cutoff): 1 / rank of the first relevant id, 0 when none is retrieved
 * (within k). Its mean over samples is the mean reciprocal rank (trec_eval `recip_rank`).
 *
 * `null` for a sample without relevant ids.
 *
 * @example
 * ```ts
 * new MRR();          // "mrr"
 * new MRR({ k: 10 }); // "mrr@10"
 * ```
 */
export class MRR implements Metric {
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
    const o = expectOptions("MRR", options, {
      required: false,
      known: CUTOFF_OPTIONS,
    }) as OptionalCutoffOptions;
    this.k = o.k === undefined ? undefined : expectCutoff("MRR", o.k);
    this.cut = this.k ?? Number.POSITIVE_INFINITY;
    this.level = expectMatchLevel("MRR", o.level);
    this.name = expectMetricName("MRR", o.name, this.k === undefined ? "mrr" : `mrr@${this.k}`);
  }

  /**
   * @throws {MetricUnavailableError} at document level when a chunk has no `documentId`.
   * @throws {ConfigurationError} for a malformed input (see the package README).
   */
  score(input: MetricInput): number | null {
    expectRetrievalInput("MRR", input);
    const r = relevantCountOf(input, "MRR");
    if (r === 0) return null;
    const ranked = rankedOf(input, this.level, "MRR");
    return reciprocalRankOfFlags(ranked.relevant, ranked.length, this.cut);
  }
}
