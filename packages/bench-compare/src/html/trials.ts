// The report's view of runs with trials (`trials: n`, n > 1): per sample, its trials' scores on
// the report's per-sample metric, their spread (min–max), and whether they disagree; the section
// that lists them with a filter "samples whose trials disagree". Model and markup in one module:
// both are small, and nothing else reads them.
import type { BenchmarkResult, SampleResult } from "@fastrag/bench-core";
import { formatNumber } from "../internal/format.js";
import { own } from "../internal/own.js";
import type { ChartRun } from "./charts.js";
import { clip, escapeHtml } from "./escape.js";

/** One sample of a run with trials, on one metric. */
export interface TrialSpread {
  readonly sample: SampleResult;
  /** The sample's score (the mean over its trials); `null` when no trial scored it. */
  readonly mean: number | null;
  /** Each trial's score, `null` where the trial errored or the metric gave none. */
  readonly scores: readonly (number | null)[];
  /** Lowest and highest trial score; `null` when no trial scored it. */
  readonly min: number | null;
  readonly max: number | null;
  /** The trials disagree: max ≠ min. */
  readonly disagree: boolean;
}

/** One run with trials as the report shows it. */
export interface RunTrials {
  readonly run: number;
  readonly trials: number;
  /** Samples whose trials disagree, of `samples`. */
  readonly disagree: number;
  readonly samples: number;
  /** The samples listed: those whose trials disagree first (widest spread first), then the rest, at most the report's cap. */
  readonly rows: readonly TrialSpread[];
  /** Samples left out of `rows` by the cap. */
  readonly omitted: number;
}

/** A sample's spread over its trials on `metric`; `undefined` for a sample without trials. */
export function trialSpread(sample: SampleResult, metric: string): TrialSpread | undefined {
  const trials = sample.trials;
  if (trials === undefined) return undefined;
  const scores: (number | null)[] = [];
  let min: number | null = null;
  let max: number | null = null;
  for (const t of trials) {
    const v = own(t.scores, metric);
    const score = typeof v === "number" ? v : null;
    scores.push(score);
    if (score === null) continue;
    if (min === null || score < min) min = score;
    if (max === null || score > max) max = score;
  }
  const mean = own(sample.scores, metric);
  return {
    sample,
    mean: typeof mean === "number" ? mean : null,
    scores,
    min,
    max,
    disagree: min !== null && max !== null && max > min,
  };
}

/** The trials view of every run with trials, on `metric`, at most `cap` samples per run. */
export function runTrials(
  results: readonly BenchmarkResult[],
  metric: string,
  cap: number,
): RunTrials[] {
  const out: RunTrials[] = [];
  for (let i = 0; i < results.length; i++) {
    const r = results[i] as BenchmarkResult;
    if (r.trials <= 1) continue;
    const spreads: TrialSpread[] = [];
    let disagree = 0;
    for (const s of r.samples) {
      const spread = trialSpread(s, metric);
      if (spread === undefined) continue;
      if (spread.disagree) disagree++;
      spreads.push(spread);
    }
    const width = (x: TrialSpread) => (x.disagree ? (x.max as number) - (x.min as number) : -1);
    // Stable: equal spreads keep the run's sample order.
    const ordered = spreads
      .map((x, k) => ({ x, k }))
      .sort((a, b) => width(b.x) - width(a.x) || a.k - b.k)
      .map((e) => e.x);
    const rows = ordered.slice(0, cap);
    out.push({
      run: i,
      trials: r.trials,
      disagree,
      samples: spreads.length,
      rows,
      omitted: ordered.length - rows.length,
    });
  }
  return out;
}

/** `0.3333–1` (the spread of a sample's trials), or `—`. */
export function spreadText(s: TrialSpread, decimals: number): string {
  if (s.min === null || s.max === null) return "—";
  if (s.min === s.max) return formatNumber(s.min, decimals);
  return `${formatNumber(s.min, decimals)}–${formatNumber(s.max, decimals)}`;
}

/**
 * The section listing the samples of runs with trials; empty when no run has trials. With
 * `judgments` (the report shows some), a last column holds each sample's, trial by trial;
 * `judgmentsNote` says how many rows past the cap show none.
 */
export function trialsSection(
  trials: readonly RunTrials[],
  runs: readonly ChartRun[],
  metric: string,
  decimals: number,
  swatch: (run: ChartRun) => string,
  judgments?: (row: TrialSpread) => string,
  judgmentsNote = "",
): string {
  if (trials.length === 0) return "";
  const summary = trials
    .map((t) => {
      const run = runs[t.run] as ChartRun;
      return `<li data-run="${t.run}">${swatch(run)} <span class="run-name">${escapeHtml(run.name)}</span>: ${t.trials} trials per sample; <strong>${t.disagree.toLocaleString("en-US")}</strong> of ${t.samples.toLocaleString("en-US")} samples' trials disagree on ${escapeHtml(metric)}</li>`;
    })
    .join("\n");
  const runOptions =
    trials.length > 1
      ? `<label>run <select id="trials-run"><option value="">all runs</option>${trials
          .map((t) => {
            const run = runs[t.run] as ChartRun;
            return `<option value="${t.run}">${escapeHtml(run.label)} · ${escapeHtml(clip(run.name, 40))}</option>`;
          })
          .join("")}</select></label>`
      : "";
  const rows: string[] = [];
  let omitted = 0;
  for (const t of trials) {
    omitted += t.omitted;
    const run = runs[t.run] as ChartRun;
    for (const s of t.rows) {
      const id = s.sample.sampleId;
      const each = s.scores.map((v) => (v === null ? "✕" : formatNumber(v, decimals))).join(" · ");
      const width = s.min === null || s.max === null ? "" : String(s.max - s.min);
      rows.push(
        `<tr data-run="${t.run}" data-disagree="${s.disagree ? "1" : "0"}"><td class="run">${swatch(run)} ${escapeHtml(clip(run.name, 30))}</td><td class="q">${escapeHtml(clip(s.sample.question, 300))}${id !== undefined ? `<span class="sid">${escapeHtml(id)}</span>` : ""}</td><td class="num">${s.mean === null ? "—" : formatNumber(s.mean, decimals)}</td><td class="num spread${s.disagree ? " flips" : ""}" data-v="${width}">${spreadText(s, decimals)}</td><td class="trials-each">${escapeHtml(each)}</td>${judgments === undefined ? "" : `<td class="judg-cell">${judgments(s)}</td>`}</tr>`,
      );
    }
  }
  const cap =
    omitted > 0
      ? `<p class="note">Listing at most ${Math.max(...trials.map((t) => t.rows.length)).toLocaleString("en-US")} samples per run, those whose trials disagree first (widest spread first); ${omitted.toLocaleString("en-US")} more samples are not listed.</p>`
      : "";
  return `<section id="trials">
<h2>Trials: spread per sample on ${escapeHtml(metric)}</h2>
<p class="note">Each sample ran several times; its score is the mean over its trials. The spread is the lowest to the highest trial score; a sample whose trials disagree (highest ≠ lowest) flips from run to run. ✕: a trial that errored or was not scored.</p>
<ul class="diff-summary">
${summary}
</ul>
${cap}${judgmentsNote}
<div class="controls">
<label><input type="checkbox" id="trials-disagree"> only samples whose trials disagree</label>
${runOptions}
<span class="count" id="trials-count" aria-live="polite">${rows.length} samples</span>
</div>
<div class="table-wrap diff-wrap"><table id="trials-table">
<thead><tr><th>run</th><th>question</th><th class="num">mean</th><th class="num">spread (min–max)</th><th>trials</th>${judgments === undefined ? "" : "<th>judgments</th>"}</tr></thead>
<tbody>
${rows.join("\n")}
</tbody></table></div>
</section>`;
}
