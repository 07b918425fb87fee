// The results table: each run's statistic per metric, with its bootstrap CI, its significance
// marks and the best run's ★, and the legend that says how to read them.
import { formatNumber, pairCount } from "../internal/format.js";
import { equalUpToRounding } from "../internal/rounding.js";
import { basisNote, leftOutText, showStatus } from "../render-markdown.js";
import type { TableCell, TableColumn, TableRow } from "../table.js";
import { escapeHtml } from "./escape.js";
import type { HtmlReport, ReportMetric } from "./model.js";
import { formatP, signed } from "./numbers.js";
import { swatch } from "./swatch.js";

/** The section of the results table and its legend. */
export function tableSection(report: HtmlReport): string {
  const table = report.table;
  const sig = table.significance;
  const withCi = table.stat === "mean";
  const best = table.columns.map((c, j) => bestRows(table.rows, j, c.higherIsBetter));
  const head = table.columns
    .map(
      (c) =>
        `<th class="num" title="${c.higherIsBetter ? "higher is better" : "lower is better"}">${escapeHtml(c.header)} ${c.higherIsBetter ? "↑" : "↓"}</th>`,
    )
    .join("");
  const statuses = showStatus(table);
  const statusHead = statuses
    ? '<th class="num" title="samples whose pipeline call failed">errored</th><th class="num" title="samples with a metric that failed to score">incomplete</th>'
    : "";
  const body: string[] = [];
  for (const row of table.rows) {
    const cells: string[] = [];
    if (statuses) {
      cells.push(
        `<td class="num${(row.status?.errored ?? 0) > 0 ? " warn" : ""}">${row.status?.errored ?? ""}</td><td class="num">${row.status?.incomplete ?? ""}</td>`,
      );
    }
    for (let j = 0; j < table.columns.length; j++) {
      const metric = report.metrics[j] as ReportMetric;
      cells.push(
        resultCell(
          row,
          row.cells[j] as TableCell,
          table.columns[j] as TableColumn,
          withCi ? (metric.intervals[row.index] ?? null) : null,
          withCi ? metric.decimals : (table.columns[j] as TableColumn).decimals,
          best[j]?.has(row.index) === true,
        ),
      );
    }
    body.push(
      `<tr data-run="${row.index}"><td>${swatch({ index: row.index, label: row.label, name: row.name, isBaseline: row.isBaseline })}</td><td class="run-name">${escapeHtml(row.name)}${row.isBaseline ? '<span class="tag">baseline</span>' : ""}</td>${cells.join("")}</tr>`,
    );
  }
  const legend: string[] = [];
  legend.push(
    withCi
      ? `Each cell: the mean, and under it its 95 % percentile-bootstrap confidence interval (${resamplesText(report)}, seed ${report.seed}).`
      : `Each cell: the ${escapeHtml(table.stat)} of the metric.`,
  );
  legend.push(
    "★ marks the best run of each metric in its own direction (↑ higher, ↓ lower is better); ★⚠ a best run that errored on some samples.",
  );
  const note = basisNote(table);
  if (note !== null) {
    legend.push(
      `${escapeHtml(note)}${withCi ? " Confidence intervals are over each run's own scores." : ""}`,
    );
  }
  if (sig) {
    const test =
      sig.test === "t-test"
        ? "paired two-sided t-test"
        : `paired two-sided approximate randomization test, ${sig.permutations.toLocaleString("en-US")} permutations, seed ${sig.seed}`;
    const base = `<span class="letter">${escapeHtml(sig.baselineLabel)}</span> ${escapeHtml(sig.baseline)}`;
    legend.push(
      `A superscript letter names a run the cell beats significantly (${test}, p &lt; ${sig.alpha}, in the metric's own direction). ${
        sig.marks === "all-pairs"
          ? `Every pair of runs is tested on every metric (${pairCount(table.rows.length)} per metric), so a cell can name any run; the Δ and p in a cell's tooltip are against the baseline ${base}.`
          : `With ${table.rows.length} runs, more than the all-pairs limit of ${sig.maxPairwiseRuns}, every run is tested against the baseline ${base} only: a run's cell can only name the baseline, and the baseline's cell names every run it beats.`
      } No multiple-comparison correction.`,
    );
    let leftOut = 0;
    for (const list of [sig.comparisons, sig.pairwise]) {
      for (const c of list) leftOut += c.leftOut;
    }
    if (leftOut > 0) {
      legend.push(`${escapeHtml(leftOutText(sig.leftOutSamples, leftOut))} left out of the tests.`);
    }
  }
  return `<section id="results">
<h2>Results</h2>
<div class="table-wrap"><table id="results-table">
<thead><tr><th>#</th><th>run</th>${statusHead}${head}</tr></thead>
<tbody>
${body.join("\n")}
</tbody></table></div>
<p class="legend">${legend.join(" ")}</p>
</section>`;
}

function resamplesText(report: HtmlReport): string {
  const { min, max } = report.resamples;
  if (min === max) return `${max.toLocaleString("en-US")} resamples`;
  return `${min.toLocaleString("en-US")}–${max.toLocaleString("en-US")} resamples, fewer for larger runs`;
}

/**
 * The rows holding the best value of column `j`: every row tied with it, up to floating-point
 * rounding (a mean of 0.30000000000000004 ties one of 0.3).
 */
function bestRows(rows: readonly TableRow[], j: number, higher: boolean): Set<number> {
  let best: number | undefined;
  for (const row of rows) {
    const v = row.cells[j]?.value;
    if (typeof v !== "number") continue;
    if (best === undefined || (higher ? v > best : v < best)) best = v;
  }
  const out = new Set<number>();
  if (best === undefined || rows.length < 2) return out;
  for (const row of rows) {
    const v = row.cells[j]?.value;
    if (typeof v === "number" && equalUpToRounding(v, best)) out.add(row.index);
  }
  return out;
}

function resultCell(
  row: TableRow,
  cell: TableCell,
  column: TableColumn,
  ci: { lower: number; upper: number } | null,
  decimals: number,
  isBest: boolean,
): string {
  if (typeof cell.value !== "number") {
    return `<td class="num missing" data-metric="${escapeHtml(column.metric)}">—</td>`;
  }
  let marks = "";
  for (let k = 0; k < cell.beats.length; k++) {
    const label = cell.beats[k] as string;
    const p = cell.wins[k]?.p;
    marks += `<sup class="sig" title="${escapeHtml(`significantly better than run ${label}${typeof p === "number" ? ` (p = ${formatP(p)})` : ""}`)}">${escapeHtml(label)}</sup>`;
  }
  const title =
    cell.test && cell.test.p !== null
      ? ` title="${escapeHtml(`vs baseline ${cell.test.baselineLabel}: Δ ${signed(cell.test.meanDiff ?? 0, decimals)}, p = ${formatP(cell.test.p)}, ${cell.test.n} pairs`)}"`
      : "";
  const ciText =
    ci === null
      ? ""
      : `<span class="ci">${formatNumber(ci.lower, decimals)} – ${formatNumber(ci.upper, decimals)}</span>`;
  return `<td class="num${isBest ? " best" : ""}" data-metric="${escapeHtml(column.metric)}" data-run="${row.index}"${title}>${isBest ? bestMark(row, column) : ""}${formatNumber(cell.value, decimals)}${marks}${ciText}</td>`;
}

/**
 * The ★ of a best cell. A run with errored samples is never starred without a mark: ★⚠, saying
 * how many samples errored and which samples the comparison used.
 */
function bestMark(row: TableRow, column: TableColumn): string {
  const errored = row.status?.errored ?? 0;
  if (errored === 0) return '<span class="best-mark" title="best">★</span>';
  const total = (row.status?.successful ?? 0) + errored + (row.status?.incomplete ?? 0);
  const basis =
    typeof column.commonSamples === "number"
      ? `best on the ${column.commonSamples} samples every run scored`
      : "best over its own scores";
  return `<span class="best-mark best-errored" title="${escapeHtml(`${basis}; this run errored on ${errored} of ${total} samples`)}">★⚠</span>`;
}
