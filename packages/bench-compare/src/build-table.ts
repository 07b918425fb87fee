import { type BenchmarkResult, ConfigurationError } from "@fastrag/bench-core";
import { describeValue, trialsDisagree } from "@fastrag/bench-core/internal";
import type { ComparedRuns } from "./compared-runs.js";
import { commonColumn } from "./internal/common-samples.js";
import { decimalsFor } from "./internal/format.js";
import { runLabel } from "./internal/labels.js";
import { hasOwn, own } from "./internal/own.js";
import { expectInteger, expectStat } from "./internal/validate.js";
import { leftOutSamples } from "./left-out.js";
import { expectTestOptions, type PairedComparison, type SignificanceTest } from "./significance.js";
import {
  type ComparisonTable,
  DEFAULT_MAX_PAIRWISE_RUNS,
  type MarkMode,
  type RowTrials,
  type SampleBasis,
  type TableCell,
  type TableColumn,
  type TableOptions,
  type TableRow,
  type TableSignificance,
} from "./table.js";
import { testAgainstBaseline, testEveryPair } from "./test-runs.js";

// The renderer-neutral table of `Comparison.table`, in three steps: each cell's statistic (over
// the common samples or each run's own), the significance marks, then the rows.

/** One significance mark: the run beaten, and the test that says so. */
interface Mark {
  readonly loser: number;
  readonly test: PairedComparison;
}

/** A column of values per run: `undefined` where the run lacks the metric, `null` unscored. */
type Values = (number | null | undefined)[][];

/**
 * The comparison table of `runs` (see `Comparison.table` for the contract).
 *
 * @throws {ConfigurationError} for bad options, an unknown baseline, significance asked with a
 * statistic other than the mean, or runs over different datasets.
 */
export function buildTable(runs: ComparedRuns, options: TableOptions): ComparisonTable {
  if (options === null || typeof options !== "object") {
    throw new ConfigurationError(`table: expected options, found ${describeValue(options)}`, {
      kind: "invalid-option",
    });
  }
  if ((options as { by?: unknown }).by !== undefined) {
    throw new ConfigurationError(
      "table: by slices a comparison into several tables; use slices(by) and each slice's comparison.table(), or toMarkdown/toCsv/toJson/toHtml({ by })",
      { kind: "invalid-option", option: "by" },
    );
  }
  const stat = expectStat(options.stat ?? "mean", "table", "stat");
  const maxPairwiseRuns = expectInteger(
    options.maxPairwiseRuns ?? DEFAULT_MAX_PAIRWISE_RUNS,
    "table: maxPairwiseRuns",
    0,
    undefined,
    "maxPairwiseRuns",
  );
  const testName = options.test ?? (options.baseline !== undefined ? "randomization" : "none");
  // Checked even when no test runs: a mistyped baseline in a CI gate must not pass unnoticed.
  if (options.baseline !== undefined) runs.expectRunIndex(options.baseline, "table: baseline");
  const asked = expectBasis(options.samples ?? "common");
  const results = runs.results;
  const metrics = runs.metrics();
  const allValues: Values = results.map((r) =>
    metrics.map((m) => {
      const s = own(r.summary, m);
      if (s === undefined) return hasOwn(r.higherIsBetter, m) ? null : undefined;
      return s[stat];
    }),
  );
  let basis: SampleBasis = "all";
  let basisNote: string | null = null;
  const values = allValues.map((row) => row.slice());
  const dropped: number[][] = results.map(() => metrics.map(() => 0));
  const commonCounts: (number | null)[] = metrics.map(() => null);
  if (asked === "common" && results.length > 1) {
    const aligned = runs.alignment();
    if (aligned.positions === null) basisNote = aligned.reason;
    else {
      basis = "common";
      for (let j = 0; j < metrics.length; j++) {
        const c = commonColumn(results, aligned.positions, metrics[j] as string, stat);
        commonCounts[j] = c.common;
        for (let i = 0; i < results.length; i++) {
          const v = c.values[i];
          if (v !== undefined) (values[i] as (number | null | undefined)[])[j] = v;
          (dropped[i] as number[])[j] = c.dropped[i] as number;
        }
      }
    }
  }
  const columns: TableColumn[] = metrics.map((metric, j) => ({
    metric,
    header: stat === "mean" ? metric : `${metric} ${stat}`,
    higherIsBetter: runs.direction.get(metric) as boolean,
    decimals: decimalsFor(
      values.map((row) => row[j]),
      stat,
    ),
    commonSamples: commonCounts[j] ?? null,
    narrowed: dropped.some((row) => (row[j] as number) > 0),
  }));
  const wins: Mark[][][] = results.map(() => metrics.map(() => []));
  const tests: (PairedComparison | undefined)[][] = results.map(() => metrics.map(() => undefined));
  let significance: TableSignificance | null = null;
  if (testName !== "none") {
    if (stat !== "mean") {
      throw new ConfigurationError(
        `table: significance marks need stat "mean" (the tests compare per-sample scores), found stat "${stat}"; use test: "none"`,
        { kind: "invalid-option", option: "stat" },
      );
    }
    significance = markSignificance(runs, options, testName, maxPairwiseRuns, wins, tests);
  }
  const rows: TableRow[] = results.map((r, i) => ({
    index: i,
    label: runLabel(i),
    name: r.name,
    isBaseline: significance?.baselineIndex === i,
    status: r.status,
    ...(r.trials > 1 ? { trials: rowTrials(r, metrics) } : {}),
    cells: metrics.map((_, j): TableCell => {
      const test = tests[i]?.[j];
      const marks = (wins[i] as Mark[][])[j] as Mark[];
      // In run order: a before b before c, whichever test found them.
      if (marks.length > 1) marks.sort((x, y) => x.loser - y.loser);
      const cell = {
        value: values[i]?.[j],
        beats: marks.map((m) => runLabel(m.loser)),
        wins: marks.map((m) => m.test),
        allValue: allValues[i]?.[j],
        dropped: dropped[i]?.[j] ?? 0,
      };
      return test === undefined ? cell : { ...cell, test };
    }),
  }));
  return { stat, samples: basis, basisNote, columns, rows, significance };
}

/**
 * Runs the tests behind the marks and fills `wins` (per winner and column, the runs it beats) and
 * `tests` (per run and column, its test against the baseline).
 */
function markSignificance(
  runs: ComparedRuns,
  options: TableOptions,
  testName: SignificanceTest,
  maxPairwiseRuns: number,
  wins: Mark[][][],
  tests: (PairedComparison | undefined)[][],
): TableSignificance {
  const metrics = runs.metrics();
  const resolved = expectTestOptions({ ...options, test: testName }, "table");
  const baselineIndex = runs.expectRunIndex(options.baseline ?? 0, "table: baseline");
  const comparisons = testAgainstBaseline(runs, baselineIndex, metrics, resolved);
  const marks: MarkMode = runs.results.length <= maxPairwiseRuns ? "all-pairs" : "baseline";
  const pairwise =
    marks === "all-pairs" ? testEveryPair(runs, baselineIndex, metrics, resolved) : [];
  const column = new Map<string, number>();
  for (let j = 0; j < metrics.length; j++) column.set(metrics[j] as string, j);
  for (const c of comparisons) {
    (tests[c.index] as (PairedComparison | undefined)[])[column.get(c.metric) as number] = c;
  }
  // Every test behind the marks: the winner's cell names the loser.
  for (const list of [comparisons, pairwise]) {
    for (const c of list) {
      if (c.better === null) continue;
      const j = column.get(c.metric) as number;
      const runWon = c.better === "run";
      const winner = runWon ? c.index : c.baselineIndex;
      const loser = runWon ? c.baselineIndex : c.index;
      ((wins[winner] as Mark[][])[j] as Mark[]).push({ loser, test: c });
    }
  }
  const base = runs.results[baselineIndex] as BenchmarkResult;
  return {
    test: resolved.test,
    alpha: resolved.alpha,
    permutations: resolved.permutations,
    seed: resolved.seed,
    baselineIndex,
    baselineLabel: runLabel(baselineIndex),
    baseline: base.name,
    marks,
    maxPairwiseRuns,
    comparisons,
    pairwise,
    leftOutSamples: leftOutSamples(runs.results, [...comparisons, ...pairwise], (i, j) =>
      runs.pairing(i, j),
    ),
  };
}

/**
 * A sample basis option (`"common"` or `"all"`).
 *
 * @throws {ConfigurationError} for any other value.
 */
export function expectBasis(samples: unknown): SampleBasis {
  if (samples === "common" || samples === "all") return samples;
  throw new ConfigurationError(
    `samples: expected "common" (the samples every run scored) or "all" (each run's own scores), found ${describeValue(samples)}`,
    { kind: "invalid-option", option: "samples" },
  );
}

/**
 * How many samples' trials disagree on each metric, and each metric's `trial_std` (a run with
 * trials: its records are read).
 */
function rowTrials(r: BenchmarkResult, metrics: readonly string[]): RowTrials {
  const samples = r.samples;
  const flipped = metrics.map((m) => {
    if (!hasOwn(r.higherIsBetter, m)) return undefined;
    let n = 0;
    for (const s of samples) if (trialsDisagree(s, m)) n++;
    return n;
  });
  const trialStd = metrics.map((m) => {
    const s = own(r.summary, m);
    if (s === undefined) return hasOwn(r.higherIsBetter, m) ? null : undefined;
    return s.trial_std ?? null;
  });
  return { trials: r.trials, samples: samples.length, flipped, trialStd };
}
