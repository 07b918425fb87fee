// The per-sample diff section: per run, the counts of changed samples, then one sortable,
// filterable table of the changed samples (their scores, trials' spread, retrieved ids, answers
// and errors). The script in script.ts sorts, filters and pages it.
import type { SampleResult } from "@fastrag/bench-core";
import { formatNumber } from "../internal/format.js";
import type { ChartRun } from "./charts.js";
import type { ChangeKind, DiffRow } from "./diff-rows.js";
import { clip, escapeHtml } from "./escape.js";
import { decimalsOf, hasJudgments, judgmentsDetails, judgmentsPastCap } from "./judgments.js";
import type { HtmlReport, ReportMetric } from "./model.js";
import { signed } from "./numbers.js";
import { sampleDetails } from "./sample-details.js";
import { DIFF_PAGE } from "./script.js";
import { swatch } from "./swatch.js";
import { spreadText, trialSpread } from "./trials.js";

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

/** The section of the per-sample diff of the baseline against each run. */
export function diffSection(report: HtmlReport, runs: readonly ChartRun[]): string {
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
  if (report.judgmentsLeftOut.diff > 0) {
    notes.push(
      `<p class="note" id="judgments-cap">Judgments are shown for the first ${report.judgmentRows.toLocaleString("en-US")} listed samples with judgments per category and run (the largest changes first); ${report.judgmentsLeftOut.diff.toLocaleString("en-US")} more listed samples have some. <code>fastrag-bench diff &lt;baseline&gt; &lt;run&gt; --sample &lt;id&gt; --judgments</code> prints any sample's.</p>`,
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
<thead><tr><th data-type="text" aria-sort="none"><button type="button">run</button></th><th data-type="num" aria-sort="none"><button type="button">change</button></th><th data-type="text" aria-sort="none"><button type="button">question</button></th><th data-type="num" class="num" aria-sort="none"><button type="button">baseline</button></th><th data-type="num" class="num" aria-sort="none"><button type="button">run score</button></th><th data-type="num" class="num" aria-sort="none"><button type="button">Δ</button></th>${report.showJudgments ? "<th>judgments</th>" : ""}${sideHeads}<th data-type="text" aria-sort="none"><button type="button">error</button></th></tr></thead>
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
  return `<tr data-kind="${row.kind}" data-run="${row.run}"${disagree ? ' data-disagree="1"' : ""}${hidden ? " hidden" : ""}><td class="run" data-v="${escapeHtml(`${run.label} ${run.name}`)}">${swatch(run)} ${escapeHtml(clip(run.name, 30))}</td><td data-v="${KIND_ORDER[row.kind]}"><span class="kind ${row.kind}">${KIND_TEXT[row.kind]}</span></td><td class="q">${escapeHtml(row.base.question)}${id !== undefined ? `<span class="sid">${escapeHtml(id)}</span>` : ""}${sampleDetails(row.base)}</td>${score(row.baseline, baseSpread)}${score(row.candidate, candSpread)}${delta}${judgmentsCell(row, report)}${sideCells(row, report)}<td class="err">${escapeHtml(errorText)}</td></tr>`;
}

/** Both sides' judgments, beside the scores; nothing when no listed sample kept any. */
function judgmentsCell(row: DiffRow, report: HtmlReport): string {
  if (!report.showJudgments) return "";
  if (!report.judgedRows.has(row) && (hasJudgments(row.base) || hasJudgments(row.cand))) {
    return `<td class="judg-cell">${judgmentsPastCap(report.judgmentRows)}</td>`;
  }
  const decimals = decimalsOf(report);
  return `<td class="judg-cell">${judgmentsDetails("baseline", row.base, report.diffMetric, decimals)}${judgmentsDetails("run", row.cand, report.diffMetric, decimals)}</td>`;
}

function sideCells(row: DiffRow, report: HtmlReport): string {
  if (!report.showIds && !report.showAnswers) return "";
  return `<td>${sideContent(row.base, report)}</td><td>${sideContent(row.cand, report)}</td>`;
}

function sideContent(s: SampleResult, report: HtmlReport): string {
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
