// The report's top: the header line (runs, samples, baseline, test) and the table of runs with
// their dates, durations and status counts.
import type { BenchmarkResult } from "@fastrag/bench-core";
import { sampleCountOf } from "../internal/columns.js";
import type { ChartRun } from "./charts.js";
import { escapeHtml } from "./escape.js";
import type { HtmlReport } from "./model.js";
import { swatch } from "./swatch.js";

/** The page header: title and a line naming the runs, samples, baseline and test. */
export function pageHeader(report: HtmlReport, runs: readonly ChartRun[]): string {
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

/** The section listing the runs with their dates, durations and status counts. */
export function runsSection(report: HtmlReport, runs: readonly ChartRun[]): string {
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
