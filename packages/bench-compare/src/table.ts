import type { BenchmarkResult, SummaryStat } from "@fastrag/bench-core";
import type { PairedComparison, SignificanceTest } from "./significance.js";

/** A run named by its name, its index in the comparison, or the result object itself. */
export type RunRef = string | number | BenchmarkResult;

/** Options of the tables (`toMarkdown`, `toCsv`, `toJson`, `table`). */
export interface TableOptions {
  /** Which DistributionSummary field to tabulate. Default `"mean"`. */
  readonly stat?: SummaryStat;
  /** The run the others are tested against. Default: the first run, when a test is on. */
  readonly baseline?: RunRef;
  /**
   * Significance marks. Default `"none"`, or `"randomization"` when `baseline` is given. Only
   * with `stat: "mean"`: the tests compare per-sample scores, i.e. means.
   */
  readonly test?: SignificanceTest | "none";
  /** p < alpha counts as significant. Default 0.05. No multiple-comparison correction. */
  readonly alpha?: number;
  /** Randomization test draws. Default 10,000. */
  readonly permutations?: number;
  /** Randomization test seed. Default 0. */
  readonly seed?: number;
}

/** One metric column. */
export interface TableColumn {
  readonly metric: string;
  /** `"recall@5"` for the mean, `"latency_ms p95"` for another statistic. */
  readonly header: string;
  readonly higherIsBetter: boolean;
  /** Decimals used by text renderers (see the README's formatting rules). */
  readonly decimals: number;
}

/** One cell: a run's statistic of a metric. */
export interface TableCell {
  /** `undefined`: the run has no such metric (`—`); `null`: it has no scores for it (`—`). */
  readonly value: number | null | undefined;
  /** Labels of the runs this cell beats significantly (p < alpha, in the metric's direction). */
  readonly beats: readonly string[];
  /** The paired test behind the cell, for a non-baseline run. */
  readonly test?: PairedComparison;
}

/** One run. */
export interface TableRow {
  readonly index: number;
  /** a, b, c…, aa, ab… */
  readonly label: string;
  readonly name: string;
  readonly isBaseline: boolean;
  readonly cells: readonly TableCell[];
}

/** The significance settings behind the marks. */
export interface TableSignificance {
  readonly test: SignificanceTest;
  readonly alpha: number;
  readonly permutations: number;
  readonly seed: number;
  readonly baselineIndex: number;
  readonly baselineLabel: string;
  readonly baseline: string;
  /** Every test run, per non-baseline run and metric. */
  readonly comparisons: readonly PairedComparison[];
}

/**
 * The renderer-neutral model of a comparison table. Markdown, CSV and JSON render it, and it is
 * the extension point for other formats (an HTML report renders this same model).
 */
export interface ComparisonTable {
  readonly stat: SummaryStat;
  readonly columns: readonly TableColumn[];
  readonly rows: readonly TableRow[];
  readonly significance: TableSignificance | null;
}
