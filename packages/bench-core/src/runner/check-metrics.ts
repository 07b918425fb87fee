// Checking the metrics a Benchmark is built with: each a Metric of a contract version this core
// runs, names distinct, and at least one that can score the dataset.

import { describeValue } from "../describe-value.js";
import { ConfigurationError } from "../errors.js";
import { expectSpecificationVersion } from "../internal/specification-version.js";
import type { EvalSample, Metadata, Metric } from "../types.js";
import { isJudged } from "./check-sample.js";

/**
 * The metrics of a Benchmark: at least one, each a Metric of a contract this core runs, with a
 * direction, names distinct.
 *
 * @throws {ConfigurationError} naming the first metric that is not usable (`field`
 * `specificationVersion` for a metric of a later contract).
 */
export function expectMetrics<M extends Metadata>(metrics: readonly Metric<M>[]): void {
  if (!Array.isArray(metrics) || metrics.length === 0) {
    throw new ConfigurationError("Benchmark: expected at least one metric, found none", {
      kind: "invalid-option",
      option: "metrics",
    });
  }
  const seen = new Set<string>();
  for (const [i, m] of metrics.entries()) {
    if (
      typeof m !== "object" ||
      m === null ||
      typeof m.name !== "string" ||
      typeof m.score !== "function"
    ) {
      throw new ConfigurationError(
        `Benchmark: metrics[${i}] is not a Metric (expected { name, score(), … })`,
        { kind: "invalid-option", option: "metrics" },
      );
    }
    if (typeof m.higherIsBetter !== "boolean") {
      // Saved with the result as its direction: a file without one would not load back.
      throw new ConfigurationError(
        `Benchmark: metric "${m.name}": higherIsBetter must be true or false (the direction is saved with every result), found ${describeValue(m.higherIsBetter)}`,
        { kind: "invalid-option", option: "metrics", field: "higherIsBetter" },
      );
    }
    // A metric written for a later contract would be called the wrong way: refuse it here.
    expectSpecificationVersion(m.specificationVersion, {
      where: `Benchmark: metric "${m.name}"`,
      contract: "metrics",
      kind: "invalid-option",
      option: "metrics",
    });
    if (seen.has(m.name)) {
      throw new ConfigurationError(
        `Benchmark: two metrics are named "${m.name}"; each summary entry would overwrite the other. Give them distinct names (e.g. different k)`,
        { kind: "invalid-option", option: "metrics", field: "name" },
      );
    }
    seen.add(m.name);
  }
}

/**
 * Some metric can score `samples`: not every metric needs relevant ids when no sample has any.
 *
 * @throws {ConfigurationError} naming the metrics.
 */
export function expectMetricsCanScore<M extends Metadata>(
  metrics: readonly Metric<M>[],
  samples: readonly EvalSample<M>[],
): void {
  if (metrics.every((m) => m.needsRelevantIds) && !samples.some(isJudged)) {
    throw new ConfigurationError(
      `Benchmark: no metric can score this dataset: every metric (${metrics.map((m) => m.name).join(", ")}) needs relevant ids and no sample has any (nor a positive grade in \`relevance\`). Map a relevant-ids column or add a generation/operational metric`,
      { kind: "invalid-option", option: "metrics" },
    );
  }
}
