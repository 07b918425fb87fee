// The chart sections: a dot chart of each metric's means with CI whiskers, and a distribution
// view (p50/p90/p95/p99/max) of each latency metric.
import { formatNumber } from "../internal/format.js";
import { type ChartRun, distributionChart, meanChart } from "./charts.js";
import { clip, escapeHtml } from "./escape.js";
import type { HtmlReport, ReportMetric } from "./model.js";
import { swatch } from "./swatch.js";

/** The section of mean charts, one card per metric. */
export function chartsSection(report: HtmlReport, runs: readonly ChartRun[]): string {
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

/** The section of latency distributions; empty when no metric is a latency. */
export function latencySection(report: HtmlReport, runs: readonly ChartRun[]): string {
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
