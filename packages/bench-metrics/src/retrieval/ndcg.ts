import type { Metric, MetricInput } from "@fastrag/bench-core";
import { idealGainsOf } from "../internal/ideal-gains.js";
import { expectRelevance, expectRetrievalInput } from "../internal/input.js";
import { type MatchLevel, rankedGainsOf, relevantCountOf } from "../internal/judgments.js";
import { ndcgOfGains } from "../internal/kernels.js";
import { CUTOFF_OPTIONS } from "../internal/options.js";
import { expectCutoff, expectMatchLevel, expectMetricName, expectOptions } from "../kit.js";
import type { CutoffOptions } from "./options.js";

/**
 * `ndcg@k`: normalized discounted cumulative gain (trec_eval `ndcg_cut_k`).
 *
 * DCG = Σ_{rank r ≤ k} gain_r / log2(r + 1), and the score is DCG / ideal DCG. An id's gain:
 *
 * - its grade in `sample.relevance` when it has one, whether or not it is in `relevantIds`
 *   (grades ≤ 0 give none, even to a relevant id: trec_eval `-l0` with grade-0 documents);
 * - else 1 when it is in `relevantIds` (so without `relevance` every relevant id gains 1);
 * - else 0.
 *
 * The ideal DCG ranks every positive gain of the sample in descending order, retrieved or not, cut
 * at k. Since gains come from every graded id, a trec_eval `-l2` threshold (which only shrinks
 * `relevantIds`) changes the binary measures, not nDCG, as in trec_eval.
 *
 * `null` ("not scorable") for a sample with no relevant id and no positive grade: every ranking
 * would score alike. So a sample whose `relevantIds` is empty but that grades some id above 0 is
 * scored here while the binary measures leave it out (what `fastrag-bench eval -l` reports).
 * 0 when the sample has relevant ids but the ideal DCG is 0 (every one of them graded ≤ 0).
 */
export class NDCG implements Metric {
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
    const o = expectOptions("NDCG", options, {
      required: true,
      known: CUTOFF_OPTIONS,
    }) as Partial<CutoffOptions>;
    this.k = expectCutoff("NDCG", o.k);
    this.level = expectMatchLevel("NDCG", o.level);
    this.name = expectMetricName("NDCG", o.name, `ndcg@${this.k}`);
  }

  /**
   * @throws {MetricUnavailableError} at document level when a chunk has no `documentId`.
   * @throws {ConfigurationError} for a malformed input (see the package README).
   */
  score(input: MetricInput): number | null {
    expectRelevance("NDCG", expectRetrievalInput("NDCG", input));
    const r = relevantCountOf(input, "NDCG");
    const ideal = idealGainsOf(input, "NDCG");
    // No positive gain at all: `ideal.length` counts the positive grades and the relevant ids
    // that `relevance` does not grade, so with r > 0 it can only be 0 when each is graded ≤ 0.
    if (ideal.length === 0 && r === 0) return null;
    const ranked = rankedGainsOf(input, this.level, this.k, "NDCG");
    return ndcgOfGains(ranked.gains, ranked.length, ideal.gains, ideal.length, this.k);
  }
}
