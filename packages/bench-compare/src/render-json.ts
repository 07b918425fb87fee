import type { ComparisonTable } from "./table.js";

/** The `format` of {@link renderJson}'s output. */
export const COMPARISON_FORMAT = "fastrag-bench-comparison/1";

/**
 * Renders a comparison table as JSON, with snake_case keys like result files. In each run's
 * `values`, a metric the run lacks is absent and a metric without scores is `null`. With
 * significance on, `significance.comparisons` lists every test (p, mean difference, pairs, pairs
 * left out), and each run's `beats` maps a metric to the labels of the runs it beats.
 */
export function renderJson(table: ComparisonTable, paths?: readonly string[]): string {
  const sig = table.significance;
  const out = {
    format: COMPARISON_FORMAT,
    stat: table.stat,
    metrics: table.columns.map((c) => ({ name: c.metric, higher_is_better: c.higherIsBetter })),
    runs: table.rows.map((row) => {
      const values: Record<string, number | null> = {};
      const beats: Record<string, string[]> = {};
      for (let i = 0; i < table.columns.length; i++) {
        const metric = (table.columns[i] as { metric: string }).metric;
        const cell = row.cells[i];
        if (cell === undefined || cell.value === undefined) continue;
        values[metric] = cell.value;
        if (cell.beats.length > 0) beats[metric] = [...cell.beats];
      }
      return {
        label: row.label,
        name: row.name,
        ...(paths ? { path: paths[row.index] } : {}),
        ...(sig ? { baseline: row.isBaseline } : {}),
        values,
        ...(sig ? { beats } : {}),
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
            correction: "none",
            comparisons: sig.comparisons.map((c) => ({
              run: c.run,
              label: c.label,
              metric: c.metric,
              p: c.p,
              mean_diff: c.meanDiff,
              ...(c.t !== undefined ? { t: c.t, df: c.df } : {}),
              n: c.n,
              left_out: c.leftOut,
              paired_by: c.pairedBy,
              significant: c.significant,
              better: c.better,
              ...(c.reason !== undefined ? { reason: c.reason } : {}),
            })),
          },
        }
      : {}),
  };
  return `${JSON.stringify(out, null, 2)}\n`;
}
