// What the judge metrics asked and were told about a sample (`judgments`, DESIGN §11), beside its
// score in the per-sample diff and the trials table: one collapsed <details> per side, so a big
// report stays usable, holding per metric (and per trial) each step's statements with their
// verdicts and reasons. Every piece of text is escaped; long lists and texts are capped.
import type { Judgments, SampleResult } from "@fastrag/bench-core";
import { formatNumber } from "../internal/format.js";
import { own } from "../internal/own.js";
import { type JudgmentView, judgmentViews } from "../judgments.js";
import { clip, escapeHtml } from "./escape.js";
import type { HtmlReport } from "./model.js";

/** Statements (claims, verdicts…) listed per step; the rest are counted. */
export const JUDGMENT_ITEMS_SHOWN: number = 50;
/** Characters of one statement, reason or reply field. */
export const JUDGMENT_TEXT_SHOWN: number = 500;

/**
 * The stylesheet of the judgments, added to the report's only when it shows some, so a report of
 * results without judgments keeps its bytes.
 */
export const JUDGMENTS_CSS: string = `
td.judg-cell { min-width: 150px; max-width: 420px; }
details.judg { font-size: 12px; margin: 0 0 4px; }
details.judg summary { cursor: pointer; color: var(--accent); overflow-wrap: anywhere; }
details.judg[open] { min-width: 300px; }
details.judg .jm { margin: 6px 0 0; padding-left: 8px; border-left: 2px solid var(--line); }
details.judg .jh { font-weight: 600; margin: 2px 0; overflow-wrap: anywhere; }
details.judg .jh .num { font-weight: 400; color: var(--muted); margin-left: 4px; }
details.judg .jtrial { color: var(--muted); font-weight: 600; margin: 4px 0 0; }
details.judg .jt { color: var(--muted); margin: 4px 0 1px; overflow-wrap: anywhere; }
details.judg ul { margin: 0; padding: 0; list-style: none; }
details.judg li { margin: 0 0 3px; overflow-wrap: anywhere; }
details.judg .jv { font-weight: 600; margin-right: 4px; white-space: nowrap; }
details.judg li.pass .jv { color: var(--improved); }
details.judg li.fail .jv { color: var(--regressed); }
details.judg .jr { display: block; color: var(--muted); font-style: italic; }
details.judg dl { margin: 2px 0 0; display: grid; grid-template-columns: auto 1fr; gap: 1px 6px; }
details.judg dt { color: var(--muted); }
details.judg dd { margin: 0; overflow-wrap: anywhere; white-space: pre-wrap; }
.judg-none { color: var(--faint); font-size: 12px; display: block; }
`;

/** The decimals the report prints each metric's means with (4 for a metric it does not know). */
export function decimalsOf(report: HtmlReport): (metric: string) => number {
  return (metric) => report.metrics.find((m) => m.metric === metric)?.decimals ?? 4;
}

/** The cell of a listed sample whose judgments the report leaves out (past `maxJudgmentRows`). */
export function judgmentsPastCap(cap: number): string {
  return `<span class="judg-none">judgments not shown: past the first ${cap.toLocaleString("en-US")}</span>`;
}

/** Whether the sample, or any of its trials, kept judgments. */
export function hasJudgments(s: SampleResult): boolean {
  if (nonEmpty(s.judgments)) return true;
  for (const t of s.trials ?? []) if (nonEmpty(t.judgments)) return true;
  return false;
}

/**
 * One side's judgments as a collapsed `<details>`: its summary names `who` and, per metric, how
 * many verdicts passed and failed; opened, it shows per metric (the report's per-sample metric
 * `first`, then the others in the record's order) its score and each step. A sample with trials
 * shows each trial's. A sample without judgments gives a short "no judgments kept" line.
 */
export function judgmentsDetails(
  who: string,
  s: SampleResult,
  first: string,
  decimalsOf: (metric: string) => number,
): string {
  if (!hasJudgments(s)) {
    return `<span class="judg-none">${escapeHtml(who)}: no judgments kept</span>`;
  }
  // A sample with trials keeps its judgments per trial; a record kept them on itself otherwise.
  const perTrial = s.trials?.some((t) => nonEmpty(t.judgments)) === true;
  const metrics = metricsOf(s, first, perTrial);
  const tally: string[] = [];
  const blocks: string[] = [];
  for (const metric of metrics) {
    const decimals = decimalsOf(metric);
    let passed = 0;
    let failed = 0;
    let steps = 0;
    let body = "";
    const trials = perTrial ? (s.trials as NonNullable<SampleResult["trials"]>) : undefined;
    if (trials === undefined) {
      const views = judgmentViews(own(s.judgments as Judgments, metric) ?? []);
      steps += views.length;
      for (const v of views) {
        passed += v.passed;
        failed += v.failed;
      }
      body = stepsHtml(views);
    } else {
      for (let t = 0; t < trials.length; t++) {
        const trial = trials[t] as (typeof trials)[number];
        const kept = trial.judgments === undefined ? undefined : own(trial.judgments, metric);
        const score = own(trial.scores, metric);
        const head = `<p class="jtrial">trial ${t + 1}${typeof score === "number" ? ` <span class="num">${formatNumber(score, decimals)}</span>` : ""}</p>`;
        if (kept === undefined) {
          body += `${head}<span class="judg-none">no judgments kept</span>`;
          continue;
        }
        const views = judgmentViews(kept);
        steps += views.length;
        for (const v of views) {
          passed += v.passed;
          failed += v.failed;
        }
        body += head + stepsHtml(views);
      }
    }
    // A metric whose steps gave no verdict (one of a user's own) is counted by its steps.
    tally.push(
      passed + failed > 0
        ? `${metric} ✓${passed} ✗${failed}`
        : `${metric} (${steps} step${steps === 1 ? "" : "s"})`,
    );
    const score = own(s.scores, metric);
    blocks.push(
      `<div class="jm"><p class="jh">${escapeHtml(metric)}${typeof score === "number" ? ` <span class="num">${formatNumber(score, decimals)}</span>` : ""}</p>${body}</div>`,
    );
  }
  return `<details class="judg"><summary>${escapeHtml(`${who}: ${tally.join(" · ")}`)}</summary>${blocks.join("")}</details>`;
}

/** Each step: its title (with its verdicts' tally), its items, its other reply fields. */
function stepsHtml(views: readonly JudgmentView[]): string {
  let out = "";
  for (const v of views) {
    // A step of one verdict (a chunk's) shows it on its one item; a tally would repeat it.
    const tally = v.passed + v.failed > 1 ? ` · ✓${v.passed} ✗${v.failed}` : "";
    out += `<div class="jstep"><p class="jt">${escapeHtml(v.title + tally)}</p>`;
    if (v.items.length > 0) {
      const shown: string[] = [];
      for (let i = 0; i < v.items.length && i < JUDGMENT_ITEMS_SHOWN; i++) {
        const item = v.items[i] as (typeof v.items)[number];
        const cls =
          item.verdict === true ? ' class="pass"' : item.verdict === false ? ' class="fail"' : "";
        const mark = item.verdict === true ? "✓ " : item.verdict === false ? "✗ " : "";
        const label =
          item.label === undefined
            ? item.verdict === undefined
              ? "· "
              : ""
            : `<span class="jv">${mark}${escapeHtml(clip(item.label, 60))}</span>`;
        const reason =
          item.reason === undefined
            ? ""
            : `<span class="jr">${escapeHtml(clip(item.reason, JUDGMENT_TEXT_SHOWN))}</span>`;
        shown.push(
          `<li${cls}>${label}${escapeHtml(clip(item.text, JUDGMENT_TEXT_SHOWN))}${reason}</li>`,
        );
      }
      const more =
        v.items.length > JUDGMENT_ITEMS_SHOWN
          ? `<li class="more">+${v.items.length - JUDGMENT_ITEMS_SHOWN} more</li>`
          : "";
      out += `<ul>${shown.join("")}${more}</ul>`;
    }
    if (v.fields.length > 0) {
      out += `<dl>${v.fields
        .map(
          ([k, value]) =>
            `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(clip(value, JUDGMENT_TEXT_SHOWN))}</dd>`,
        )
        .join("")}</dl>`;
    }
    out += "</div>";
  }
  return out;
}

/** The metrics with judgments on the sample (or its trials): `first` when it has some, then the rest in order. */
function metricsOf(s: SampleResult, first: string, perTrial: boolean): string[] {
  const seen = new Set<string>();
  const add = (j: Judgments | undefined) => {
    if (j !== undefined) for (const m of Object.keys(j)) seen.add(m);
  };
  if (perTrial) for (const t of s.trials ?? []) add(t.judgments);
  else add(s.judgments);
  if (!seen.has(first)) return [...seen];
  return [first, ...[...seen].filter((m) => m !== first)];
}

function nonEmpty(j: Judgments | undefined): boolean {
  return j !== undefined && Object.keys(j).length > 0;
}
