// Consistency of a result file: its header's status counts and summaries must be its samples'.
import { ConfigurationError } from "../errors.js";
import type { DistributionSummary, SampleResult, StatusCounts } from "../types.js";
import { SUMMARY_STATS } from "../types.js";

/** The header's status counts must be the samples': a file that says otherwise is not one result. */
export function expectStatusCounts(
  header: StatusCounts,
  found: StatusCounts,
  source: string,
): void {
  for (const k of ["successful", "incomplete", "errored"] as const) {
    if (header[k] !== found[k]) {
      throw new ConfigurationError(
        `${source}: status.${k}: the header counts ${header[k]} but the samples hold ${found[k]} (successful ${found.successful}, incomplete ${found.incomplete}, errored ${found.errored})`,
        { kind: "invalid-input", path: source, field: `status.${k}` },
      );
    }
  }
}

/**
 * The header's summary must be the samples': a summary left stale after scores were edited would
 * show one number in tables while the paired tests, which read the scores, show another. Count,
 * min and max must match exactly; the mean to 1e-9 of the largest score's magnitude (another
 * implementation may sum in another order). With count 0 every statistic must be null; with a
 * count, mean, min and max must be numbers. Std and percentiles, whose definitions differ between
 * tools, are not compared.
 */
export function expectSummary(
  summary: Readonly<Record<string, DistributionSummary>>,
  metrics: readonly string[],
  column: (metric: string) => ArrayLike<number>,
  source: string,
): void {
  for (const m of Object.keys(summary)) expectMetricSummary(summary[m] as DistributionSummary, m);
  function expectMetricSummary(s: DistributionSummary, m: string): void {
    const values = column(m);
    let count = 0;
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < values.length; i++) {
      const v = values[i] as number;
      if (Number.isNaN(v)) continue;
      count++;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    // Summed in units of the largest magnitude, so that huge scores cannot overflow.
    const size = Math.max(Math.abs(min), Math.abs(max));
    let scaled = 0;
    if (size > 0) {
      for (let i = 0; i < values.length; i++) {
        const v = values[i] as number;
        if (!Number.isNaN(v)) scaled += v / size;
      }
    }
    const where = `${source}: summary["${m}"]`;
    const stale = (what: string) =>
      new ConfigurationError(
        `${where}.${what} does not match the samples' scores; was the file edited after it was saved? (BenchmarkResult recomputes summaries: merge or re-save it from its samples)`,
        { kind: "invalid-input", path: source, field: `summary.${m}` },
      );
    if (s.count !== count) {
      throw new ConfigurationError(
        `${where}.count is ${s.count}, but ${count} samples have a score for it; was the file edited after it was saved?`,
        { kind: "invalid-input", path: source, field: `summary.${m}` },
      );
    }
    if (count === 0) {
      // Nothing scored it: a number here (a 0 mean) would be a failure shown as a score.
      for (const stat of SUMMARY_STATS) {
        const v = s[stat];
        if (stat !== "count" && v !== null && v !== undefined) {
          throw new ConfigurationError(
            `${where}.${stat} is ${v}, but its count is 0: a metric that no sample scored has null statistics, never numbers; was the file edited after it was saved?`,
            { kind: "invalid-input", path: source, field: `summary.${m}` },
          );
        }
      }
      return;
    }
    for (const stat of ["mean", "min", "max"] as const) {
      if (s[stat] === null) {
        throw new ConfigurationError(
          `${where}.${stat} is null, but ${count} ${count === 1 ? "sample has" : "samples have"} a score for it: expected their ${stat}; was the file edited after it was saved?`,
          { kind: "invalid-input", path: source, field: `summary.${m}` },
        );
      }
    }
    if (s.min !== min) throw stale(`min (${s.min}, the scores' ${min})`);
    if (s.max !== max) throw stale(`max (${s.max}, the scores' ${max})`);
    const mean = (scaled / count) * size;
    // Relative to the scores' size, not the mean's: scores that cancel out leave a mean whose
    // rounding depends on the summation order. Relative to it alone: an absolute floor would let a
    // stale mean of small scores (1e-6) pass. MIN_VALUE covers subnormal scores, whose mean
    // another tool may round to the neighbouring subnormal.
    if (!(Math.abs((s.mean as number) - mean) <= Math.max(1e-9 * size, 4 * Number.MIN_VALUE))) {
      throw stale(`mean (${s.mean}, the scores' ${mean})`);
    }
  }
  // A metric with a direction but no summary entry: fine when nothing scored it, else the tables
  // would print "—" for real scores.
  for (const m of metrics) {
    if (Object.hasOwn(summary, m)) continue;
    const values = column(m);
    for (let i = 0; i < values.length; i++) {
      if (!Number.isNaN(values[i] as number)) {
        throw new ConfigurationError(
          `${source}: summary has no entry for "${m}", but samples score it (sample ${i + 1}); was the file edited after it was saved?`,
          { kind: "invalid-input", path: source, field: "summary" },
        );
      }
    }
  }
}

/** One metric's scores as a column, NaN where a sample has none. */
export function scoreColumnOfSamples(
  samples: readonly SampleResult[],
  metric: string,
): Float64Array {
  const column = new Float64Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const scores = (samples[i] as SampleResult).scores;
    const v = Object.hasOwn(scores, metric) ? scores[metric] : null;
    column[i] = v === null || v === undefined ? Number.NaN : v;
  }
  return column;
}
