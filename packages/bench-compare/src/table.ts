import type { BenchmarkResult, StatusCounts, SummaryStat } from "@fastrag/bench-core";
import type { LeftOutSamples } from "./left-out.js";
import type { PairedComparison, SignificanceTest } from "./significance.js";

/**
 * Default of {@link TableOptions.maxPairwiseRuns}: up to 12 runs, every pair is tested (66 tests
 * per metric); past it, marks fall back to tests against the baseline only.
 */
export const DEFAULT_MAX_PAIRWISE_RUNS: number = 12;

/** How the significance marks were tested: every pair of runs, or each run against the baseline. */
export type MarkMode = "all-pairs" | "baseline";

/** A run named by its name, its index in the comparison, or the result object itself. */
export type RunRef = string | number | BenchmarkResult;

/**
 * Which samples a table's statistics cover: `"common"`, per metric, the samples that every run
 * with scores for it scored (a fair comparison: a run that errored on its hard samples is not
 * ranked on its easy ones); `"all"`, each run's own non-null scores (its stored summary).
 */
export type SampleBasis = "common" | "all";

/** Options of the tables (`toMarkdown`, `toCsv`, `toJson`, `table`). */
export interface TableOptions {
  /** Which DistributionSummary field to tabulate. Default `"mean"`. */
  readonly stat?: SummaryStat;
  /**
   * Which samples the statistics cover (see {@link SampleBasis}). Default `"common"`. Runs that
   * cannot be paired (different datasets) fall back to `"all"`, and `ComparisonTable.basisNote`
   * says why.
   */
  readonly samples?: SampleBasis;
  /**
   * The reference run: the p-values of each cell (`TableCell.test`, the CSV's `p` columns, the
   * JSON's `comparisons`) are against it, and giving it turns the test on. Marks do not depend on
   * it while every pair is tested (see `maxPairwiseRuns`). Default: the first run, when a test is
   * on.
   */
  readonly baseline?: RunRef;
  /**
   * Significance marks. Default `"none"`, or `"randomization"` when `baseline` is given. Only
   * with `stat: "mean"`: the tests compare per-sample scores, i.e. means.
   */
  readonly test?: SignificanceTest | "none";
  /**
   * Most runs for which marks test every pair of runs, as ranx does: n(n−1)/2 tests per metric.
   * With more runs, each run is tested against the baseline only (n − 1 tests per metric), and
   * `TableSignificance.marks` and the legends say so. Default
   * {@link DEFAULT_MAX_PAIRWISE_RUNS} (12). 0 or 1 always tests against the baseline only.
   */
  readonly maxPairwiseRuns?: number;
  /** p < alpha counts as significant. Default 0.05. No multiple-comparison correction. */
  readonly alpha?: number;
  /** Randomization test draws: an integer in [1, 10⁸]. Default 10,000. */
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
  /**
   * With the `"common"` basis: how many samples every run with scores for this metric scored.
   * `null` with the `"all"` basis.
   */
  readonly commonSamples?: number | null;
  /** Whether the common basis left out any run's own score of this metric. */
  readonly narrowed?: boolean;
}

/** One cell: a run's statistic of a metric. */
export interface TableCell {
  /** `undefined`: the run has no such metric (`—`); `null`: it has no scores for it (`—`). */
  readonly value: number | null | undefined;
  /**
   * Labels of the runs this cell beats significantly (p < alpha, in the metric's direction), in
   * run order. With `marks: "all-pairs"`, any run; with `marks: "baseline"`, a run's cell can only
   * name the baseline, and the baseline's cell names every run it beats.
   */
  readonly beats: readonly string[];
  /** The test behind each mark: `wins[k]` is the test in which this run beat run `beats[k]`. */
  readonly wins: readonly PairedComparison[];
  /** The paired test of this run against the baseline, for a non-baseline run. */
  readonly test?: PairedComparison;
  /** The statistic over all of this run's own scores (its stored summary), whatever the basis. */
  readonly allValue?: number | null | undefined;
  /** How many of this run's own scores the common basis left out (0 with the `"all"` basis). */
  readonly dropped?: number;
}

/** One run. */
export interface TableRow {
  readonly index: number;
  /** a, b, c…, aa, ab… */
  readonly label: string;
  readonly name: string;
  readonly isBaseline: boolean;
  readonly cells: readonly TableCell[];
  /** The run's samples per status: a run with errors is never shown as best without a mark. */
  readonly status?: StatusCounts;
  /** For a run with trials (`trials: n`, n > 1): how many samples' trials disagree per metric. */
  readonly trials?: RowTrials;
}

/** A run with trials, as a table row sees it. */
export interface RowTrials {
  /** Trials per sample. */
  readonly trials: number;
  /** The run's samples. */
  readonly samples: number;
  /**
   * Per column: samples whose trials disagree on the metric (their scores' max ≠ min), i.e. whose
   * score flips from run to run; `undefined` where the run has no such metric.
   */
  readonly flipped: readonly (number | undefined)[];
  /**
   * Per column: the run's `trial_std` of the metric (from its summary, over all its samples: the
   * mean over samples of the standard deviation of their trials' scores); `null` when the run has
   * the metric but no such figure, `undefined` where the run has no such metric. Absent in a table
   * built by hand.
   */
  readonly trialStd?: readonly (number | null | undefined)[];
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
  /**
   * `"all-pairs"`: every pair of runs was tested per metric (at most `maxPairwiseRuns` runs);
   * `"baseline"`: there were more runs, so each was tested against the baseline only.
   */
  readonly marks: MarkMode;
  /** The limit in force (see {@link TableOptions.maxPairwiseRuns}). */
  readonly maxPairwiseRuns: number;
  /** The tests against the baseline, per non-baseline run and metric. */
  readonly comparisons: readonly PairedComparison[];
  /**
   * With `marks: "all-pairs"`, the tests between two runs neither of which is the baseline, per
   * pair (the later run as `run`, the earlier as its reference) and metric; empty otherwise.
   * With `comparisons`, every test behind the marks.
   */
  readonly pairwise: readonly PairedComparison[];
  /**
   * The samples the tests left out (a run errored on them or scored them `null`), each counted
   * once however many tests left it out; the legends report these rather than pairs summed over
   * tests.
   */
  readonly leftOutSamples?: LeftOutSamples;
}

/**
 * The renderer-neutral model of a comparison table. Markdown, CSV and JSON render it, and it is
 * the extension point for other formats (an HTML report renders this same model).
 */
export interface ComparisonTable {
  readonly stat: SummaryStat;
  /** The samples the statistics cover (see {@link TableOptions.samples}). */
  readonly samples?: SampleBasis;
  /** Why `"common"` was asked but `"all"` used (runs that cannot be paired); else `null`. */
  readonly basisNote?: string | null;
  readonly columns: readonly TableColumn[];
  readonly rows: readonly TableRow[];
  readonly significance: TableSignificance | null;
}

/** Whether any run of the tables has trials (`trials: n`, n > 1). @internal */
export function hasTrials(tables: readonly ComparisonTable[]): boolean {
  return tables.some((t) => t.rows.some((row) => row.trials !== undefined));
}
