import type { Metric, MetricInput } from "@fastrag/bench-core";
import { expectRetrievalInput } from "../internal/input.js";
import { type MatchLevel, rankedOf, relevantCountOf } from "../internal/judgments.js";
import { rPrecisionOfFlags } from "../internal/kernels.js";
import { expectMatchLevel, expectMetricName, expectOptions } from "../kit.js";
import type { RetrievalMetricOptions } from "./options.js";

/**
 * `r_precision`: relevant ids in the top R, divided by R, where R is the number of relevant ids
 * (trec_eval `Rprec`). It needs no cutoff: R adapts it to each sample.
 *
 * `null` for a sample without relevant ids.
 */
export class RPrecision implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = true;
  readonly needsAnswer: boolean = false;
  /** The metric contract this class implements (see `Metric.specificationVersion`). */
  readonly specificationVersion = "v1" as const;
  readonly level: MatchLevel;

  /** @throws {ConfigurationError} when `level` is unknown. */
  constructor(options?: RetrievalMetricOptions) {
    const o = expectOptions("RPrecision", options, {
      required: false,
      known: ["level", "name"],
    }) as RetrievalMetricOptions;
    this.level = expectMatchLevel("RPrecision", o.level);
    this.name = expectMetricName("RPrecision", o.name, "r_precision");
  }

  /**
   * @throws {MetricUnavailableError} at document level when a chunk has no `documentId`.
   * @throws {ConfigurationError} for a malformed input (see the package README).
   */
  score(input: MetricInput): number | null {
    expectRetrievalInput("RPrecision", input);
    const r = relevantCountOf(input, "RPrecision");
    if (r === 0) return null;
    const ranked = rankedOf(input, this.level, "RPrecision");
    return rPrecisionOfFlags(ranked.relevant, ranked.length, r);
  }
}
