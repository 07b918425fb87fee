import { CONTROL_CHARACTERS_BUT_C0, unicodeEscape } from "./internal/control-chars.js";
import { setOwn } from "./internal/own.js";
import type { PairedComparison } from "./significance.js";
import { type ComparisonTable, hasTrials, type TableRow } from "./table.js";

/** The `format` of {@link renderJson}'s output. */
export const COMPARISON_FORMAT = "fastrag-bench-comparison/1";

/**
 * Renders a comparison table as JSON, with snake_case keys like result files. In each run's
 * `values`, a metric the run lacks is absent and a metric without scores is `null`. With
 * significance on, `significance.comparisons` lists every test against the baseline (p, mean
 * difference, pairs, pairs left out), `significance.marks` says whether every pair of runs was
 * tested (`"all-pairs"`, the other tests in `significance.pairwise`, each naming the run it is
 * `against`) or only each run against the baseline (`"baseline"`, past `max_pairwise_runs`), and
 * each run's `beats` maps a metric to the labels of the runs it beats. `samples` says which samples
 * the `values` cover (`"common"`: per metric the `common_samples` every run scored, with each run's
 * own all-samples statistic in `all_samples_values`; `"all"`), and each run carries its `status`
 * counts. When a run has trials, every run says its `trials` (per sample; 1 without), and each
 * run with trials maps each metric to `flipped` (samples whose trials disagree) and to its
 * `trial_std` (the mean within-sample standard deviation, over all its samples). A metric named
 * `__proto__`
 * is written as an ordinary key. Every control character in a string (a name, a path), bidi
 * overrides included, is written as a `\uXXXX` escape, so the output is safe to print.
 */
export function renderJson(table: ComparisonTable, paths?: readonly string[]): string {
  const sig = table.significance;
  const trials = hasTrials([table]);
  const out = {
    format: COMPARISON_FORMAT,
    stat: table.stat,
    ...(table.samples !== undefined ? { samples: table.samples } : {}),
    ...(table.basisNote ? { samples_note: table.basisNote } : {}),
    metrics: table.columns.map((c) => ({
      name: c.metric,
      higher_is_better: c.higherIsBetter,
      ...(typeof c.commonSamples === "number" ? { common_samples: c.commonSamples } : {}),
    })),
    runs: table.rows.map((row) => {
      const values: Record<string, number | null> = {};
      const allValues: Record<string, number | null> = {};
      const beats: Record<string, string[]> = {};
      for (let i = 0; i < table.columns.length; i++) {
        const metric = (table.columns[i] as { metric: string }).metric;
        const cell = row.cells[i];
        if (cell === undefined || cell.value === undefined) continue;
        setOwn(values, metric, cell.value);
        if (cell.allValue !== undefined) setOwn(allValues, metric, cell.allValue);
        if (cell.beats.length > 0) setOwn(beats, metric, [...cell.beats]);
      }
      return {
        label: row.label,
        name: row.name,
        ...(paths ? { path: paths[row.index] } : {}),
        ...(sig ? { baseline: row.isBaseline } : {}),
        ...(row.status ? { status: { ...row.status } } : {}),
        values,
        ...(table.samples === "common" ? { all_samples_values: allValues } : {}),
        ...(sig ? { beats } : {}),
        ...(trials ? trialsJson(table, row) : {}),
      };
    }),
    ...(sig
      ? {
          significance: {
            test: sig.test,
            alpha: sig.alpha,
            ...(sig.test === "randomization"
              ? { permutations: sig.permutations, seed: sig.seed }
              : {}),
            baseline: sig.baseline,
            baseline_label: sig.baselineLabel,
            marks: sig.marks,
            max_pairwise_runs: sig.maxPairwiseRuns,
            correction: "none",
            comparisons: sig.comparisons.map((c) => testJson(c, false)),
            pairwise: sig.pairwise.map((c) => testJson(c, true)),
            // Each sample once, however many tests left it out (`left_out` of a test counts pairs).
            ...(sig.leftOutSamples !== undefined
              ? {
                  left_out_samples: {
                    samples: sig.leftOutSamples.samples,
                    errored: sig.leftOutSamples.errored,
                    unscored: sig.leftOutSamples.unscored,
                  },
                }
              : {}),
          },
        }
      : {}),
  };
  // JSON.stringify escapes C0 controls (ESC included) but writes DEL, C1 controls and bidi
  // overrides raw, and a terminal can act on those: escape them too (`\u009b`), which any JSON
  // parser reads back as the same string. They can only occur inside strings.
  const text = JSON.stringify(out, null, 2).replace(CONTROL_CHARACTERS_BUT_C0, unicodeEscape);
  return `${text}\n`;
}

/**
 * One test in snake_case. A pairwise test names its reference run `against`, and `better` is
 * `"run"`, `"against"` or `null`.
 */
function testJson(c: PairedComparison, against: boolean): Record<string, unknown> {
  return {
    run: c.run,
    label: c.label,
    ...(against ? { against: c.baseline, against_label: c.baselineLabel } : {}),
    metric: c.metric,
    p: c.p,
    mean_diff: c.meanDiff,
    ...(c.t !== undefined ? { t: c.t, df: c.df } : {}),
    n: c.n,
    left_out: c.leftOut,
    paired_by: c.pairedBy,
    significant: c.significant,
    // In a pairwise test the reference is `against`, not the baseline.
    better: against && c.better === "baseline" ? "against" : c.better,
    ...(c.reason !== undefined ? { reason: c.reason } : {}),
  };
}

/** A run's trials in snake_case: `trials`, and for a run with trials `flipped` and `trial_std`. */
function trialsJson(table: ComparisonTable, row: TableRow): Record<string, unknown> {
  const t = row.trials;
  if (t === undefined) return { trials: 1 };
  const flipped: Record<string, number> = {};
  const trialStd: Record<string, number | null> = {};
  for (let j = 0; j < table.columns.length; j++) {
    const metric = (table.columns[j] as { metric: string }).metric;
    const n = t.flipped[j];
    if (n !== undefined) setOwn(flipped, metric, n);
    const std = t.trialStd?.[j];
    if (std !== undefined) setOwn(trialStd, metric, std);
  }
  return { trials: t.trials, flipped, trial_std: trialStd };
}
