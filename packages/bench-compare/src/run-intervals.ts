import type { BenchmarkResult } from "@fastrag/bench-core";
import { type BootstrapOptions, bootstrapCi } from "./bootstrap-ci.js";
import type { ComparedRuns } from "./compared-runs.js";
import type { RunInterval } from "./comparison-options.js";
import { scoreColumnOf } from "./internal/columns.js";
import { runLabel } from "./internal/labels.js";

/**
 * A bootstrap CI of each run's mean of each metric, over its non-null scores; metric by metric,
 * each in run order. `null` for a run without scores for the metric.
 *
 * @throws {ConfigurationError} for a metric no run has, or bad bootstrap options.
 */
export function runIntervals(
  runs: ComparedRuns,
  metrics: readonly string[],
  options: BootstrapOptions,
): RunInterval[] {
  const out: RunInterval[] = [];
  for (const metric of metrics) {
    runs.expectDirection(metric, "bootstrapCi");
    for (let i = 0; i < runs.results.length; i++) {
      const r = runs.results[i] as BenchmarkResult;
      const scores: number[] = [];
      const column = scoreColumnOf(r, metric);
      for (let j = 0; j < column.length; j++) {
        const v = column[j] as number;
        if (!Number.isNaN(v)) scores.push(v);
      }
      out.push({
        run: r.name,
        index: i,
        label: runLabel(i),
        metric,
        interval: scores.length === 0 ? null : bootstrapCi(scores, options),
      });
    }
  }
  return out;
}
