import { createHash } from "node:crypto";
import type { BenchmarkResult, SampleResult } from "@fastrag/bench-core";
import { type ChartRun, colourClass, distributionChart, meanChart } from "./html/charts.js";
import type { ChangeKind, DiffRow } from "./html/diff-rows.js";
import { clip, escapeHtml } from "./html/escape.js";
import type { HtmlReport, ReportMetric } from "./html/model.js";
import { sampleDetails } from "./html/sample-details.js";
import { DIFF_PAGE, REPORT_SCRIPT } from "./html/script.js";
import { REPORT_CSS } from "./html/styles.js";
import { spreadText, trialSpread, trialsSection } from "./html/trials.js";
import { sampleCountOf } from "./internal/columns.js";
import { formatNumber, pairCount } from "./internal/format.js";
import { equalUpToRounding } from "./internal/rounding.js";
import { basisNote, leftOutText, showStatus } from "./render-markdown.js";
import type { TableCell, TableColumn, TableRow } from "./table.js";

/** Retrieved ids shown per sample and side; the rest are counted. */
const IDS_SHOWN = 5;
/** Characters of an answer or error shown in the diff table. */
const TEXT_SHOWN = 400;

const KIND_TEXT: Readonly<Record<ChangeKind, string>> = {
  regressed: "▼ regressed",
  improved: "▲ improved",
  "newly-errored": "✕ newly errored",
  recovered: "↺ recovered",
};
/** Sort key of the change column: worst news first when ascending. */
const KIND_ORDER: Readonly<Record<ChangeKind, number>> = {
  "newly-errored": 0,
  regressed: 1,
  improved: 2,
  recovered: 3,
};

/**
 * Renders a computed report as one self-contained HTML document: inline CSS, inline SVG charts
 * and one small inline script, under a Content-Security-Policy of `default-src 'none'` that
 * admits only that style and script by their SHA-256 hashes. The page makes no network request
 * (no fonts, no images, no CDN), so it opens from an email attachment or a CI artifact. Every
 * piece of user text is HTML-escaped. The output is deterministic: the same report gives the same
 * bytes (no clock, no randomness beyond the seeded bootstrap). `slices`: the section of the tables
 * per slice (`toHtml({ by })`), placed under the table.
 */
export function renderHtml(report: HtmlReport, slices = ""): string {
  const runs: ChartRun[] = report.results.map((r, i) => ({
    index: i,
    label: report.table.rows[i]?.label ?? String(i),
    name: r.name,
    isBaseline: i === report.baselineIndex,
  }));
  const csp = [
    "default-src 'none'",
    `style-src '${sha256(REPORT_CSS)}'`,
    `script-src '${sha256(REPORT_SCRIPT)}'`,
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  const body = [
    header(report, runs),
    runsSection(report, runs),
    tableSection(report),
    // With `by`: the tables per slice (render-slices.ts), under the whole table.
    ...(slices === "" ? [] : [slices]),
    chartsSection(report, runs),
    latencySection(report, runs),
    diffSection(report, runs),
    trialsSection(
      report.trials,
      runs,
      report.diffMetric,
      (report.metrics.find((m) => m.metric === report.diffMetric) as ReportMetric).decimals,
      swatch,
    ),
    footer(report),
  ].join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="fastrag bench">
<title>${escapeHtml(report.title)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
${body}
<script>${REPORT_SCRIPT}</script>
</body>
</html>
`;
}

function sha256(text: string): string {
  return `sha256-${createHash("sha256").update(text, "utf8").digest("base64")}`;
}

function header(report: HtmlReport, runs: readonly ChartRun[]): string {
  const base = runs[report.baselineIndex] as ChartRun;
  const sig = report.table.significance;
  const bits: string[] = [
    `${report.results.length} run${report.results.length === 1 ? "" : "s"}`,
    `${sampleCountText(report.results)} samples`,
  ];
  if (report.results.length > 1) {
    bits.push(
      `baseline <span class="letter">${escapeHtml(base.label)}</span> ${escapeHtml(base.name)}`,
    );
  }
  if (sig) {
    bits.push(
      `${sig.test === "t-test" ? "paired t-test" : "randomization test"}, α = ${sig.alpha}`,
    );
  }
  return `<header>
<h1>${escapeHtml(report.title)}</h1>
<p class="sub">${bits.join(" · ")}</p>
</header>`;
}

function sampleCountText(results: readonly BenchmarkResult[]): string {
  const counts = new Set(results.map((r) => sampleCountOf(r)));
  if (counts.size === 1)
    return sampleCountOf(results[0] as BenchmarkResult).toLocaleString("en-US");
  const sorted = [...counts].sort((a, b) => a - b);
  return `${(sorted[0] as number).toLocaleString("en-US")}–${(sorted[sorted.length - 1] as number).toLocaleString("en-US")}`;
}

function runsSection(report: HtmlReport, runs: readonly ChartRun[]): string {
  const lines: string[] = [];
  for (const run of runs) {
    const r = report.results[run.index] as BenchmarkResult;
    const s = r.status;
    lines.push(
      `<tr data-run="${run.index}"><td>${swatch(run)}</td><td class="run-name">${escapeHtml(r.name)}${run.isBaseline && runs.length > 1 ? '<span class="tag">baseline</span>' : ""}</td><td class="num">${escapeHtml(dateText(r.createdAt))}</td><td class="num">${escapeHtml(durationText(r.durationS))}</td><td class="num">${sampleCountOf(r).toLocaleString("en-US")}</td><td class="num">${s.successful.toLocaleString("en-US")}</td><td class="num">${countPill(s.incomplete, "warn")}</td><td class="num">${countPill(s.errored, "bad")}</td></tr>`,
    );
  }
  return `<section id="runs">
<h2>Runs</h2>
<div class="table-wrap"><table>
<thead><tr><th>#</th><th>run</th><th class="num">created (UTC)</th><th class="num">duration</th><th class="num">samples</th><th class="num">successful</th><th class="num">incomplete</th><th class="num">errored</th></tr></thead>
<tbody>
${lines.join("\n")}
</tbody></table></div>
</section>`;
}

function swatch(run: ChartRun): string {
  return `<span class="swatch ${colourClass(run.index)}"></span><span class="letter">${escapeHtml(run.label)}</span>`;
}

function countPill(n: number, kind: "bad" | "warn"): string {
  const text = n.toLocaleString("en-US");
  return n > 0 ? `<span class="pill ${kind}">${text}</span>` : text;
}

function dateText(date: Date): string {
  const t = date instanceof Date ? date.getTime() : Number.NaN;
  if (!Number.isFinite(t)) return "—";
  return new Date(t).toISOString().replace("T", " ").slice(0, 19);
}

function durationText(s: number): string {
  if (typeof s !== "number" || !Number.isFinite(s)) return "—";
  if (s >= 120) return `${(s / 60).toFixed(1)} min`;
  return `${s.toFixed(s < 10 ? 2 : 1)} s`;
}

function tableSection(report: HtmlReport): string {
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

function formatP(p: number): string {
  return p < 0.0001 ? "< 0.0001" : p.toFixed(4);
}

function signed(v: number, decimals: number): string {
  const text = formatNumber(v, decimals);
  return v > 0 ? `+${text}` : text;
}

function chartsSection(report: HtmlReport, runs: readonly ChartRun[]): string {
  const cards: string[] = [];
  for (const m of report.metrics) {
    cards.push(`<figure class="card" data-metric="${escapeHtml(m.metric)}">
<h3>${escapeHtml(m.metric)} <span class="dir">${m.higherIsBetter ? "↑ higher is better" : "↓ lower is better"}</span></h3>
${meanChart(m.metric, runs, m.intervals, m.decimals)}
</figure>`);
  }
  return `<section id="charts">
<h2>Means with 95 % confidence intervals</h2>
<p class="note">One mark per run; whiskers span the bootstrap interval${runs.length > 1 ? ", and the dashed line is the baseline's mean" : ""}. Intervals that overlap a lot rarely differ significantly; the paired tests in the table are the sharper check.</p>
<div class="charts">
${cards.join("\n")}
</div>
</section>`;
}

const DIST_KEY = `<div class="dist-key" aria-hidden="true">
<span><svg viewBox="0 0 22 12"><rect class="box" x="3" y="1" width="16" height="10" rx="2"/></svg>p50–p90</span>
<span><svg viewBox="0 0 22 12"><circle class="p95" cx="11" cy="6" r="4"/></svg>p95</span>
<span><svg viewBox="0 0 22 12"><path class="p99" d="M11 1l5 5-5 5-5-5z"/></svg>p99</span>
<span><svg viewBox="0 0 22 12"><path class="pmax" d="M7 2l8 8m0-8l-8 8"/></svg>max</span>
<span>line: min to max</span>
</div>`;

function latencySection(report: HtmlReport, runs: readonly ChartRun[]): string {
  const latency = report.metrics.filter((m) => m.latency);
  if (latency.length === 0) return "";
  const cards: string[] = [];
  for (const m of latency) {
    const decimals = distributionDecimals(m);
    const rows = runs
      .map((run) => {
        const s = m.summaries[run.index];
        const cells = ["p50", "p90", "p95", "p99", "max"]
          .map((stat) => {
            const v = s?.[stat as "p50"];
            return `<td class="num">${typeof v === "number" ? formatNumber(v, decimals) : "—"}</td>`;
          })
          .join("");
        return `<tr data-run="${run.index}"><td>${swatch(run)} ${escapeHtml(clip(run.name, 40))}</td>${cells}</tr>`;
      })
      .join("\n");
    cards.push(`<figure class="card" data-metric="${escapeHtml(m.metric)}">
<h3>${escapeHtml(m.metric)} <span class="dir">distribution, ${m.higherIsBetter ? "↑ higher is better" : "↓ lower is better"}</span></h3>
${DIST_KEY}
${distributionChart(m.metric, runs, m.summaries, decimals)}
<table class="pct"><thead><tr><th>run</th><th class="num">p50</th><th class="num">p90</th><th class="num">p95</th><th class="num">p99</th><th class="num">max</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</figure>`);
  }
  return `<section id="latency">
<h2>Latency distributions</h2>
<div class="charts">
${cards.join("\n")}
</div>
</section>`;
}

function distributionDecimals(m: ReportMetric): number {
  let max = 0;
  for (const s of m.summaries) if (s && typeof s.max === "number" && s.max > max) max = s.max;
  return max >= 1000 ? 0 : max >= 100 ? 1 : max >= 1 ? 2 : 4;
}

function diffSection(report: HtmlReport, runs: readonly ChartRun[]): string {
  const base = runs[report.baselineIndex] as ChartRun;
  const metric = report.metrics.find((m) => m.metric === report.diffMetric) as ReportMetric;
  const heading = `<h2>Per-sample diff: ${escapeHtml(report.diffMetric)} <span class="dir">${report.diffHigherIsBetter ? "↑ higher is better" : "↓ lower is better"}</span></h2>`;
  if (runs.length < 2) {
    return `<section id="diff">${heading}<p class="note">One run only: there is nothing to compare it with.</p></section>`;
  }
  const summary: string[] = [];
  let omitted = 0;
  let total = 0;
  for (const d of report.diffs) {
    const run = runs[d.run] as ChartRun;
    omitted += d.omitted;
    total += d.rows.length;
    if (d.note !== undefined) {
      summary.push(`<li>${swatch(run)} ${escapeHtml(run.name)}: ${escapeHtml(d.note)}</li>`);
      continue;
    }
    const c = d.counts;
    summary.push(
      `<li data-run="${d.run}">${swatch(run)} <span class="run-name">${escapeHtml(run.name)}</span>: <span class="kind regressed">▼ ${c.regressed.toLocaleString("en-US")} regressed</span> <span class="kind improved">▲ ${c.improved.toLocaleString("en-US")} improved</span> <span class="kind newly-errored">✕ ${c.newlyErrored.toLocaleString("en-US")} newly errored</span> <span class="kind recovered">↺ ${c.recovered.toLocaleString("en-US")} recovered</span> <span class="note">${c.unchanged.toLocaleString("en-US")} unchanged, ${c.leftOut.toLocaleString("en-US")} left out (errored on both sides or not scorable), paired by ${escapeHtml(d.pairedBy ?? "—")}</span></li>`,
    );
  }
  const notes: string[] = [];
  if (report.diffNote !== null) {
    notes.push(
      `<p class="note">Some runs could not be paired with the baseline: ${escapeHtml(report.diffNote)}</p>`,
    );
  }
  if (omitted > 0) {
    notes.push(
      `<p class="note" id="diff-cap">Showing at most ${report.diffCap.toLocaleString("en-US")} samples per category and run (the largest changes first); ${omitted.toLocaleString("en-US")} more changed samples are not listed. <code>fastrag-bench diff</code> or <code>diff()</code> lists them all.</p>`,
    );
  }
  const candidates = report.diffs.filter((d) => d.note === undefined);
  const runOptions =
    candidates.length > 1
      ? `<label>run <select id="diff-run"><option value="">all runs</option>${candidates
          .map((d) => {
            const run = runs[d.run] as ChartRun;
            return `<option value="${d.run}">${escapeHtml(run.label)} · ${escapeHtml(clip(run.name, 40))}</option>`;
          })
          .join("")}</select></label>`
      : "";
  const rows: string[] = [];
  for (const d of report.diffs) {
    for (const row of d.rows) {
      // Rows past the first page start hidden, so the browser does not lay them all out.
      rows.push(diffRow(row, runs, metric.decimals, report, rows.length >= DIFF_PAGE));
    }
  }
  const shows =
    report.showIds && report.showAnswers
      ? "retrieved · answer"
      : report.showIds
        ? "retrieved"
        : report.showAnswers
          ? "answer"
          : "";
  const sideHeads = shows === "" ? "" : `<th>baseline ${shows}</th><th>run ${shows}</th>`;
  return `<section id="diff">
${heading}
<p class="note">Baseline <span class="letter">${escapeHtml(base.label)}</span> ${escapeHtml(base.name)} against each run. Click a column header to sort; type to filter by question, id${report.showIds ? ", retrieved id" : ""}${report.showAnswers ? ", answer" : ""} or error.</p>
<ul class="diff-summary">
${summary.join("\n")}
</ul>
${notes.join("\n")}
<div class="controls">
<input id="diff-q" type="search" placeholder="Filter: question, id, answer, error…" aria-label="Filter the per-sample diff">
<label>change <select id="diff-kind"><option value="">all changes</option><option value="regressed">▼ regressed</option><option value="improved">▲ improved</option><option value="newly-errored">✕ newly errored</option><option value="recovered">↺ recovered</option></select></label>
${runOptions}
${report.trials.length > 0 ? '<label><input type="checkbox" id="diff-disagree"> only samples whose trials disagree</label>' : ""}
<span class="count" id="diff-count" aria-live="polite">${total} rows${total > DIFF_PAGE ? `, first ${DIFF_PAGE} shown` : ""}</span>
</div>
<div class="table-wrap diff-wrap"><table id="diff-table">
<thead><tr><th data-type="text" aria-sort="none"><button type="button">run</button></th><th data-type="num" aria-sort="none"><button type="button">change</button></th><th data-type="text" aria-sort="none"><button type="button">question</button></th><th data-type="num" class="num" aria-sort="none"><button type="button">baseline</button></th><th data-type="num" class="num" aria-sort="none"><button type="button">run score</button></th><th data-type="num" class="num" aria-sort="none"><button type="button">Δ</button></th>${sideHeads}<th data-type="text" aria-sort="none"><button type="button">error</button></th></tr></thead>
<tbody>
${rows.join("\n")}
</tbody></table>${rows.length === 0 ? '<p class="empty">No sample changed.</p>' : ""}</div>
<p class="more-row"><button type="button" id="diff-more"${total > DIFF_PAGE ? `>Show ${Math.min(DIFF_PAGE, total - DIFF_PAGE)} more` : " hidden>"}</button></p>
</section>`;
}

function diffRow(
  row: DiffRow,
  runs: readonly ChartRun[],
  decimals: number,
  report: HtmlReport,
  hidden: boolean,
): string {
  const run = runs[row.run] as ChartRun;
  const id = row.base.sampleId ?? row.cand.sampleId;
  // A side run with trials shows its trials' spread under its score (the score is their mean).
  const baseSpread = trialSpread(row.base, report.diffMetric);
  const candSpread = trialSpread(row.cand, report.diffMetric);
  const disagree = baseSpread?.disagree === true || candSpread?.disagree === true;
  const score = (v: number | null, spread: ReturnType<typeof trialSpread>): string => {
    const under =
      spread === undefined
        ? ""
        : `<span class="spread${spread.disagree ? " flips" : ""}" title="lowest–highest of ${spread.scores.length} trials">${spreadText(spread, decimals)}</span>`;
    return v === null
      ? `<td class="num" data-v="">—${under}</td>`
      : `<td class="num" data-v="${v}">${formatNumber(v, decimals)}${under}</td>`;
  };
  let delta = '<td class="num" data-v="">—</td>';
  if (row.change !== null) {
    const good = row.kind === "improved";
    delta = `<td class="num delta ${good ? "up" : "down"}" data-v="${row.change}">${signed(row.change, decimals)}</td>`;
  }
  const errors: string[] = [];
  // Say whose error it is: the baseline's (recovered) or the run's (newly errored, incomplete).
  if (row.base.error !== null) errors.push(`baseline: ${row.base.error}`);
  if (row.cand.error !== null) errors.push(`run: ${row.cand.error}`);
  const errorText = clip(errors.join("\n"), TEXT_SHOWN);
  return `<tr data-kind="${row.kind}" data-run="${row.run}"${disagree ? ' data-disagree="1"' : ""}${hidden ? " hidden" : ""}><td class="run" data-v="${escapeHtml(`${run.label} ${run.name}`)}">${swatch(run)} ${escapeHtml(clip(run.name, 30))}</td><td data-v="${KIND_ORDER[row.kind]}"><span class="kind ${row.kind}">${KIND_TEXT[row.kind]}</span></td><td class="q">${escapeHtml(row.base.question)}${id !== undefined ? `<span class="sid">${escapeHtml(id)}</span>` : ""}${sampleDetails(row.base)}</td>${score(row.baseline, baseSpread)}${score(row.candidate, candSpread)}${delta}${sides(row, report)}<td class="err">${escapeHtml(errorText)}</td></tr>`;
}

function sides(row: DiffRow, report: HtmlReport): string {
  if (!report.showIds && !report.showAnswers) return "";
  return `<td>${side(row.base, report)}</td><td>${side(row.cand, report)}</td>`;
}

function side(s: SampleResult, report: HtmlReport): string {
  if (s.status === "errored") return '<span class="more">errored</span>';
  const ids = s.retrievedIds;
  let out = "";
  if (!report.showIds) out = "";
  else if (ids.length === 0) out = '<span class="more">nothing retrieved</span>';
  else {
    const shown: string[] = [];
    for (let i = 0; i < ids.length && i < IDS_SHOWN; i++) {
      const id = escapeHtml(ids[i] as string);
      shown.push(`<li title="${id}">${id}</li>`);
    }
    out = `<ol class="ids">${shown.join("")}</ol>${ids.length > IDS_SHOWN ? `<span class="more">+${ids.length - IDS_SHOWN} more</span>` : ""}`;
  }
  if (report.showAnswers && s.answer !== null) {
    out +=
      s.answer.trim() === ""
        ? '<span class="ans more">(no answer)</span>'
        : `<span class="ans">“${escapeHtml(clip(s.answer, TEXT_SHOWN))}”</span>`;
  }
  return out;
}

function footer(report: HtmlReport): string {
  return `<footer>Generated by fastrag bench (@fastrag/bench-compare). Self-contained: no network requests. Scores are means over each run's non-null scores; errored samples are never scored as 0. Per-sample diff on ${escapeHtml(report.diffMetric)}.</footer>`;
}
