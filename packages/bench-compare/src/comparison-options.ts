import type { BootstrapOptions, ConfidenceInterval } from "./bootstrap-ci.js";
import type { TestOptions } from "./significance.js";
import type { RunRef, TableOptions } from "./table.js";

/** Options of {@link Comparison.significance}. */
export interface SignificanceOptions extends TestOptions {
  /** The run every other run is tested against. Default: the first run. */
  readonly baseline?: RunRef;
  /** Metrics to test. Default: every metric, in {@link Comparison.metrics} order. */
  readonly metrics?: readonly string[];
}

/** Options of {@link Comparison.pairedTest}. */
export interface PairedTestOptions extends TestOptions {
  readonly metric: string;
}

/** A bootstrap CI of one run's mean of one metric. */
export interface RunInterval {
  readonly run: string;
  readonly index: number;
  readonly label: string;
  readonly metric: string;
  /** `null` when the run lacks the metric or has no scores for it. */
  readonly interval: ConfidenceInterval | null;
}

/** Options of {@link Comparison.bootstrapCi}. */
export interface ComparisonBootstrapOptions extends BootstrapOptions {
  /** Metrics to cover. Default: every metric. */
  readonly metrics?: readonly string[];
}

/**
 * Options of the rendered tables (`toMarkdown`, `toCsv`, `toJson`): the table's, and `by`.
 */
export interface RenderOptions extends TableOptions {
  /**
   * Slice the table by a metadata field, `"metadata.<key>"` (e.g. `"metadata.is_impossible"` on
   * SQuAD v2): one table per value of the field, over the samples that have it, and one for the
   * samples without it; each with its own statistics and tests, and its group's size. Markdown
   * gives a heading and a table per slice; CSV one long table whose first columns are the value,
   * `missing` and `samples`; JSON a `fastrag-bench-comparison-slices/1` document. See
   * {@link Comparison.slices}.
   */
  readonly by?: string;
}

/** Options of {@link Comparison.toHtml}: the table's options and the report's own. */
export interface HtmlReportOptions extends TableOptions {
  /**
   * Adds a section with the table sliced by a metadata field, `"metadata.<key>"`: one table per
   * value (and one for the samples without it), each with its size. See {@link RenderOptions.by}.
   */
  readonly by?: string;
  /**
   * The metric of the per-sample diff (baseline against each run). Default: the first metric.
   */
  readonly diffMetric?: string;
  /** The page title. Default: "Benchmark comparison: a vs b vs c" (run names). */
  readonly title?: string;
  /**
   * Bootstrap resamples per confidence interval. Default 10,000, fewer for runs past 2,000 scores
   * (20 million draws per interval, never under 500) so a 100k-sample report stays quick. The
   * bootstrap uses `seed` too.
   */
  readonly resamples?: number;
  /**
   * Changed samples listed per category (improved, regressed, newly errored, recovered) and run,
   * largest changes first; the report says how many more there are. Default 500.
   */
  readonly maxDiffRows?: number;
  /**
   * Listed samples whose judgments (what judge metrics asked and were told, kept in results of
   * format 2) the report shows beside their scores: the first of each category and run in the
   * per-sample diff (the largest changes), and the first of each run in the trials table. Default
   * 100; 0 shows none. Judgments are the bulk of a report's bytes, hence a cap of their own.
   */
  readonly maxJudgmentRows?: number;
  /**
   * Metrics drawn as a latency distribution (p50/p90/p95/p99/max). Default: every metric whose
   * name contains `latency` or ends in `_ms` (see {@link isLatencyMetric}).
   */
  readonly latencyMetrics?: readonly string[];
}

/** Whether rendering options slice the table (`by` given). */
export function hasBy<T extends { readonly by?: string }>(
  options: T,
): options is T & { by: string } {
  return options !== null && typeof options === "object" && options.by !== undefined;
}

/** The table's own options out of rendering options (without `by` and the report's). */
export function tableOptionsOf(options: TableOptions): TableOptions {
  const { stat, samples, baseline, test, maxPairwiseRuns, alpha, permutations, seed } = options;
  const out: Record<string, unknown> = {};
  const entries = { stat, samples, baseline, test, maxPairwiseRuns, alpha, permutations, seed };
  for (const [k, v] of Object.entries(entries)) if (v !== undefined) out[k] = v;
  return out as TableOptions;
}
