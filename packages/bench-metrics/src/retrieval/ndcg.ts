import type { Metric, MetricInput } from "@fastrag/bench-core";
import {
  idealGainsOf,
  type MatchLevel,
  rankedGainsOf,
  relevantCountOf,
} from "../internal/judgments.js";
import { ndcgOfGains } from "../internal/kernels.js";
import {
  CUTOFF_OPTIONS,
  cutoff,
  matchLevel,
  metricName,
  optionsObject,
} from "../internal/options.js";
import type { CutoffOptions } from "./options.js";

/**
 * `ndcg@k`: normalized discounted cumulative gain (trec_eval `ndcg_cut_k`).
 *
 * DCG = Σ_{rank r ≤ k} gain_r / log2(r + 1). Gains are the grades of `sample.relevance` (grades
 * ≤ 0 give none); without `relevance` every relevant id has gain 1. The ideal DCG ranks every
 * positive grade of the sample in descending order, cut at k, whether retrieved or not. The score
 * is DCG / ideal DCG.
 *
 * Gains come from every graded id, not only from `relevantIds`: a trec_eval `-l2` threshold
 * changes the binary measures, not nDCG. `null` for a sample with neither a relevant id nor a
 * positive grade; 0 when the ideal DCG is 0.
 */
export class NDCG implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = true;
  readonly needsAnswer: boolean = false;
  readonly k: number;
  readonly level: MatchLevel;

  /** @throws {ConfigurationError} when `k` is not a positive integer or `level` is unknown. */
  constructor(options: CutoffOptions) {
    const o = optionsObject("NDCG", options, true, CUTOFF_OPTIONS) as Partial<CutoffOptions>;
    this.k = cutoff("NDCG", o.k);
    this.level = matchLevel("NDCG", o.level);
    this.name = metricName("NDCG", o.name, `ndcg@${this.k}`);
  }

  /** @throws {MetricUnavailableError} at document level when a chunk has no `documentId`. */
  score(input: MetricInput): number | null {
    const r = relevantCountOf(input);
    const ideal = idealGainsOf(input);
    if (ideal.length === 0 && r === 0) return null;
    const ranked = rankedGainsOf(input, this.level, this.k);
    return ndcgOfGains(ranked.gains, ranked.length, ideal.gains, ideal.length, this.k);
  }
}
