import {
  type BenchmarkResult,
  ConfigurationError,
  type DistributionSummary,
} from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";
import { bootstrapCi, type ConfidenceInterval } from "../bootstrap-ci.js";
import type { Comparison } from "../comparison.js";
import type { HtmlReportOptions } from "../comparison-options.js";
import { decimalsFor } from "../internal/format.js";
import { own } from "../internal/own.js";
import { expectInteger } from "../internal/validate.js";
import type { ComparisonTable } from "../table.js";
import { type DiffRow, type RunDiff, runDiff } from "./diff-rows.js";
import { hasJudgments } from "./judgments.js";
import { type RunTrials, runTrials, type TrialSpread } from "./trials.js";

/** Default cap of diff rows per category and run: keeps a 100k-sample report openable. */
export const DEFAULT_DIFF_ROWS: number = 500;
/** Default cap of listed samples per category and run that show their judgments. */
export const DEFAULT_JUDGMENT_ROWS: number = 100;
/** Bootstrap draws (resamples × n) per interval before the default resample count shrinks. */
const BOOTSTRAP_BUDGET = 20_000_000;
const DEFAULT_RESAMPLES = 10_000;
const MIN_RESAMPLES = 500;

/**
 * Whether the report shows a metric as a latency distribution by default: its name contains
 * `latency` or ends in `_ms` (case-insensitive), e.g. `latency_ms`, `retrieval_latency`,
 * `ttft_ms`. Pass `latencyMetrics` to `toHtml` to choose others.
 */
export function isLatencyMetric(metric: string): boolean {
  const m = metric.toLowerCase();
  return m.includes("latency") || m.endsWith("_ms");
}

/** One metric as the report shows it. */
export interface ReportMetric {
  readonly metric: string;
  readonly higherIsBetter: boolean;
  /** Decimals for means and CIs. */
  readonly decimals: number;
  /** Per run: the bootstrap CI of the mean, `null` without scores. */
  readonly intervals: readonly (ConfidenceInterval | null)[];
  /** Per run: the summary, `undefined` when the run lacks the metric. */
  readonly summaries: readonly (DistributionSummary | undefined)[];
  readonly latency: boolean;
}

/** Everything the HTML renderer draws, computed up front (pure data, no markup). */
export interface HtmlReport {
  readonly title: string;
  readonly results: readonly BenchmarkResult[];
  readonly table: ComparisonTable;
  readonly baselineIndex: number;
  readonly metrics: readonly ReportMetric[];
  /** Resamples per interval: one number, or a range when large runs got fewer. */
  readonly resamples: { readonly min: number; readonly max: number };
  readonly seed: number;
  readonly diffMetric: string;
  readonly diffHigherIsBetter: boolean;
  readonly diffs: readonly RunDiff[];
  readonly diffCap: number;
  /** Why the per-sample diff is missing or partial (runs over different datasets). */
  readonly diffNote: string | null;
  /** Whether any sample of any run has an answer (generation runs): the diff shows answers. */
  readonly showAnswers: boolean;
  /** Whether any sample of any run retrieved something: the diff shows retrieved ids. */
  readonly showIds: boolean;
  /** Runs with trials: per sample, the spread of its trials on `diffMetric` (capped as the diff). */
  readonly trials: readonly RunTrials[];
  /**
   * Whether a sample the report shows judgments for kept some: the diff and trials tables then
   * get a judgments column, and the page the judgments' stylesheet.
   */
  readonly showJudgments: boolean;
  /** Listed samples per category and run (per run in the trials table) that show their judgments. */
  readonly judgmentRows: number;
  /** The diff rows and trials rows that show their judgments: the first `judgmentRows` of each list. */
  readonly judgedRows: ReadonlySet<DiffRow | TrialSpread>;
  /** Listed rows with judgments past `judgmentRows`, which show none (the report says so). */
  readonly judgmentsLeftOut: { readonly diff: number; readonly trials: number };
}

/**
 * Computes the report of a comparison: the table (with significance, reusing `table()`),
 * bootstrap CIs per run and metric, and the per-sample diff of every run against the baseline.
 *
 * @throws {ConfigurationError} for bad options (see {@link HtmlReportOptions}) and as
 * `Comparison.table`.
 */
export function buildHtmlReport(
  comparison: Comparison,
  options: HtmlReportOptions = {},
): HtmlReport {
  if (options === null || typeof options !== "object") {
    throw new ConfigurationError(`toHtml: expected options, found ${describeValue(options)}`, {
      kind: "invalid-option",
    });
  }
  const results = comparison.results;
  const names = comparison.metrics();
  const stat = options.stat ?? "mean";
  const test = options.test ?? (results.length > 1 && stat === "mean" ? "randomization" : "none");
  const baseline = options.baseline ?? 0;
  const table = comparison.table({ ...options, stat, test, baseline });
  const baselineIndex = table.significance?.baselineIndex ?? expectRunIndex(comparison, baseline);

  const diffMetric = options.diffMetric ?? names[0];
  if (diffMetric === undefined) {
    throw new ConfigurationError("toHtml: the runs have no metric to report", {
      kind: "invalid-input",
    });
  }
  if (typeof diffMetric !== "string" || !names.includes(diffMetric)) {
    throw new ConfigurationError(
      `toHtml: diffMetric: expected a metric of the runs (${names.map((m) => `"${m}"`).join(", ")}), found ${describeValue(diffMetric)}`,
      { kind: "invalid-option", option: "diffMetric" },
    );
  }
  if (options.title !== undefined && typeof options.title !== "string") {
    throw new ConfigurationError(
      `toHtml: title: expected a string, found ${describeValue(options.title)}`,
      { kind: "invalid-option", option: "title" },
    );
  }
  const diffCap = expectInteger(
    options.maxDiffRows ?? DEFAULT_DIFF_ROWS,
    "toHtml: maxDiffRows",
    0,
    undefined,
    "maxDiffRows",
  );
  const judgmentRows = expectInteger(
    options.maxJudgmentRows ?? DEFAULT_JUDGMENT_ROWS,
    "toHtml: maxJudgmentRows",
    0,
    undefined,
    "maxJudgmentRows",
  );
  const fixedResamples =
    options.resamples === undefined
      ? undefined
      : expectInteger(options.resamples, "toHtml: resamples", 1, undefined, "resamples");
  let latencySet: ReadonlySet<string>;
  if (options.latencyMetrics === undefined) {
    latencySet = new Set(names.filter(isLatencyMetric));
  } else {
    if (!Array.isArray(options.latencyMetrics)) {
      throw new ConfigurationError(
        `toHtml: latencyMetrics: expected an array of metric names, found ${describeValue(options.latencyMetrics)}`,
        { kind: "invalid-option", option: "latencyMetrics" },
      );
    }
    for (const m of options.latencyMetrics) {
      if (!names.includes(m)) {
        throw new ConfigurationError(
          `toHtml: latencyMetrics: expected metrics of the runs (${names.map((n) => `"${n}"`).join(", ")}), found ${describeValue(m)}`,
          { kind: "invalid-option", option: "latencyMetrics" },
        );
      }
    }
    latencySet = new Set(options.latencyMetrics);
  }
  const seed = options.seed ?? 0;

  let minResamples = Number.POSITIVE_INFINITY;
  let maxResamples = 0;
  const metrics: ReportMetric[] = [];
  for (const metric of names) {
    const intervals: (ConfidenceInterval | null)[] = [];
    const summaries: (DistributionSummary | undefined)[] = [];
    const means: (number | null)[] = [];
    for (const r of results) {
      summaries.push(own(r.summary, metric));
      const scores = scoresOf(r, metric);
      if (scores.length === 0) {
        intervals.push(null);
        means.push(null);
        continue;
      }
      const resamples = fixedResamples ?? defaultResamples(scores.length);
      if (resamples < minResamples) minResamples = resamples;
      if (resamples > maxResamples) maxResamples = resamples;
      const ci = bootstrapCi(scores, { resamples, seed });
      intervals.push(ci);
      means.push(ci.mean);
    }
    metrics.push({
      metric,
      higherIsBetter: comparison.higherIsBetter(metric),
      decimals: decimalsFor(means, "mean"),
      intervals,
      summaries,
      latency: latencySet.has(metric),
    });
  }

  const diffs: RunDiff[] = [];
  let diffNote: string | null = null;
  const diffHigherIsBetter = comparison.higherIsBetter(diffMetric);
  for (let i = 0; i < results.length; i++) {
    if (i === baselineIndex) continue;
    try {
      diffs.push(runDiff(results, baselineIndex, i, diffMetric, diffHigherIsBetter, diffCap));
    } catch (error) {
      // Without significance marks, runs over different datasets still get their charts.
      if (!ConfigurationError.isInstance(error)) throw error;
      diffNote = (error as Error).message;
    }
  }

  let showAnswers = false;
  let showIds = false;
  for (const r of results) {
    for (const s of r.samples) {
      if (s.answer !== null) showAnswers = true;
      if (s.retrievedIds.length > 0) showIds = true;
      if (showAnswers && showIds) break;
    }
    if (showAnswers && showIds) break;
  }

  const trials = runTrials(results, diffMetric, diffCap);
  // The first rows of each list show their judgments; a row past the cap shows none. With a cap
  // of 0 (judgments turned off) nothing is counted, so nothing is said.
  const judgedRows = new Set<DiffRow | TrialSpread>();
  const judgmentsLeftOut = { diff: 0, trials: 0 };
  for (const d of judgmentRows === 0 ? [] : diffs) {
    const seen = new Map<string, number>();
    for (const row of d.rows) {
      if (!hasJudgments(row.base) && !hasJudgments(row.cand)) continue;
      const n = seen.get(row.kind) ?? 0;
      seen.set(row.kind, n + 1);
      if (n < judgmentRows) judgedRows.add(row);
      else judgmentsLeftOut.diff++;
    }
  }
  for (const t of judgmentRows === 0 ? [] : trials) {
    let n = 0;
    for (const row of t.rows) {
      if (!hasJudgments(row.sample)) continue;
      if (n++ < judgmentRows) judgedRows.add(row);
      else judgmentsLeftOut.trials++;
    }
  }
  const showJudgments = judgedRows.size > 0;

  return {
    title: options.title ?? defaultTitle(results),
    results,
    table,
    baselineIndex,
    metrics,
    resamples: {
      min: Number.isFinite(minResamples) ? minResamples : 0,
      max: maxResamples,
    },
    seed,
    diffMetric,
    diffHigherIsBetter,
    diffs,
    diffCap,
    diffNote,
    showAnswers,
    showIds,
    trials,
    showJudgments,
    judgmentRows,
    judgedRows,
    judgmentsLeftOut,
  };
}

/** 10,000 resamples, fewer past 2,000 scores (never under 500): at 100k scores, 500 × 100k draws. */
function defaultResamples(n: number): number {
  if (n * DEFAULT_RESAMPLES <= BOOTSTRAP_BUDGET) return DEFAULT_RESAMPLES;
  return Math.max(MIN_RESAMPLES, Math.floor(BOOTSTRAP_BUDGET / n));
}

function scoresOf(r: BenchmarkResult, metric: string): Float64Array {
  const samples = r.samples;
  const out = new Float64Array(samples.length);
  let k = 0;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i];
    const v = s === undefined ? undefined : own(s.scores, metric);
    if (typeof v === "number") out[k++] = v;
  }
  return out.subarray(0, k);
}

function expectRunIndex(
  comparison: Comparison,
  run: NonNullable<HtmlReportOptions["baseline"]>,
): number {
  // `label` validates the reference and throws the comparison's own error for a bad one.
  const label = comparison.label(run);
  let n = 0;
  for (const ch of label) n = n * 26 + (ch.charCodeAt(0) - 96);
  return n - 1;
}

function defaultTitle(results: readonly BenchmarkResult[]): string {
  if (results.length === 1) return `Benchmark report: ${(results[0] as BenchmarkResult).name}`;
  if (results.length <= 4)
    return `Benchmark comparison: ${results.map((r) => r.name).join(" vs ")}`;
  return `Benchmark comparison of ${results.length} runs`;
}
