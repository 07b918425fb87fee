import type { DistributionSummary } from "@fastrag/bench-core";
import type { ConfidenceInterval } from "../bootstrap-ci.js";
import { formatNumber } from "../internal/format.js";
import { clip, escapeHtml } from "./escape.js";
import { linearScale, logScale, type Scale, tickLabel } from "./scale.js";

/** A run as the charts label it. */
export interface ChartRun {
  readonly index: number;
  readonly label: string;
  readonly name: string;
  readonly isBaseline: boolean;
}

const WIDTH = 560;
const LABEL_W = 150;
const VALUE_W = 132;
const ROW_H = 30;
const TOP = 12;
const AXIS_H = 30;
const PLOT_X0 = LABEL_W + 14;
const PLOT_X1 = WIDTH - VALUE_W - 14;
/** Marker shapes, so runs differ by more than colour. */
const SHAPES = ["circle", "square", "diamond", "triangle"] as const;

/** The palette slot of run `index`: 8 Okabe–Ito colours (see the CSS), then they repeat. */
export function colourClass(index: number): string {
  return `c${index % 8}`;
}

/**
 * A dot chart of each run's mean of one metric with its bootstrap CI as whiskers. Every run gets
 * one `<g class="mark" data-run="i">` (a run without scores gets an empty mark saying so), and
 * the baseline's mean is drawn as a dashed reference line.
 */
export function meanChart(
  metric: string,
  runs: readonly ChartRun[],
  intervals: readonly (ConfidenceInterval | null)[],
  decimals: number,
): string {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const ci of intervals) {
    if (ci === null) continue;
    if (ci.lower < lo) lo = ci.lower;
    if (ci.upper > hi) hi = ci.upper;
  }
  const scale = linearScale(lo, hi, [PLOT_X0, PLOT_X1]);
  const height = TOP + runs.length * ROW_H + AXIS_H;
  const plotBottom = TOP + runs.length * ROW_H;
  const parts: string[] = [];
  parts.push(
    `<svg class="chart" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeHtml(`Mean of ${metric} per run with 95% confidence intervals`)}" data-metric="${escapeHtml(metric)}">`,
  );
  parts.push(axis(scale, TOP, plotBottom));
  for (const run of runs) {
    const ci = intervals[run.index] ?? null;
    if (run.isBaseline && ci !== null) {
      const x = formatX(scale.map(ci.mean));
      parts.push(
        `<line class="ref" x1="${x}" x2="${x}" y1="${TOP - 4}" y2="${plotBottom}"><title>baseline mean</title></line>`,
      );
    }
  }
  for (const run of runs) {
    const ci = intervals[run.index] ?? null;
    const y = TOP + run.index * ROW_H + ROW_H / 2;
    parts.push(runLabel(run, y));
    if (ci === null) {
      parts.push(
        `<g class="mark missing" data-run="${run.index}"><text class="value" x="${PLOT_X0}" y="${formatY(y + 4)}">no scores</text></g>`,
      );
      continue;
    }
    const mean = formatNumber(ci.mean, decimals);
    const lower = formatNumber(ci.lower, decimals);
    const upper = formatNumber(ci.upper, decimals);
    const x = formatX(scale.map(ci.mean));
    const xl = formatX(scale.map(ci.lower));
    const xu = formatX(scale.map(ci.upper));
    parts.push(
      `<g class="mark ${colourClass(run.index)}" data-run="${run.index}"><title>${escapeHtml(`${run.label} ${run.name}: mean ${mean}, 95% CI [${lower}, ${upper}], n = ${ci.n}`)}</title>`,
      `<line class="whisker" x1="${xl}" x2="${xu}" y1="${y}" y2="${y}"/>`,
      `<line class="whisker" x1="${xl}" x2="${xl}" y1="${y - 6}" y2="${y + 6}"/>`,
      `<line class="whisker" x1="${xu}" x2="${xu}" y1="${y - 6}" y2="${y + 6}"/>`,
      marker(run.index, x, y, 6),
      "</g>",
      `<text class="value" x="${WIDTH - VALUE_W}" y="${formatY(y + 4)}">${mean} <tspan class="ci">[${lower}, ${upper}]</tspan></text>`,
    );
  }
  parts.push("</svg>");
  return parts.join("");
}

/** Which statistics the distribution view draws, in order. */
export const DISTRIBUTION_STATS = ["min", "p50", "p90", "p95", "p99", "max"] as const;

/**
 * A latency distribution per run: a box from p50 to p90, a whisker from the minimum to the
 * maximum, and marks at p95 (open circle), p99 (diamond) and the maximum (cross). The scale is
 * logarithmic when max / min spans 20× or more (a long tail would squash the rest), else linear
 * from 0.
 */
export function distributionChart(
  metric: string,
  runs: readonly ChartRun[],
  summaries: readonly (DistributionSummary | undefined)[],
  decimals: number,
): string {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const s of summaries) {
    if (s === undefined || s.count === 0) continue;
    for (const stat of DISTRIBUTION_STATS) {
      const v = s[stat] as number;
      if (v > 0 && v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  const range: [number, number] = [PLOT_X0, PLOT_X1];
  const log = Number.isFinite(lo) && hi / lo >= 20;
  const scale = log ? logScale(lo, hi, range) : linearScale(0, Number.isFinite(hi) ? hi : 1, range);
  const height = TOP + runs.length * ROW_H + AXIS_H;
  const plotBottom = TOP + runs.length * ROW_H;
  const parts: string[] = [];
  parts.push(
    `<svg class="chart dist" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeHtml(`Distribution of ${metric} per run: p50 to p90 box, p95, p99 and max marks${log ? ", log scale" : ""}`)}" data-metric="${escapeHtml(metric)}" data-scale="${scale.kind}">`,
  );
  parts.push(axis(scale, TOP, plotBottom));
  for (const run of runs) {
    const s = summaries[run.index];
    const y = TOP + run.index * ROW_H + ROW_H / 2;
    parts.push(runLabel(run, y));
    if (s === undefined || s.count === 0) {
      parts.push(
        `<g class="mark missing" data-run="${run.index}"><text class="value" x="${PLOT_X0}" y="${formatY(y + 4)}">no scores</text></g>`,
      );
      continue;
    }
    const v = (stat: (typeof DISTRIBUTION_STATS)[number]): number => s[stat] as number;
    const x = (value: number): string => formatX(scale.map(value));
    const f = (value: number): string => formatNumber(value, decimals);
    const tip = `${run.label} ${run.name}: min ${f(v("min"))}, p50 ${f(v("p50"))}, p90 ${f(v("p90"))}, p95 ${f(v("p95"))}, p99 ${f(v("p99"))}, max ${f(v("max"))} (n = ${s.count})`;
    const boxL = scale.map(v("p50"));
    const boxW = Math.max(1.5, scale.map(v("p90")) - boxL);
    parts.push(
      `<g class="mark ${colourClass(run.index)}" data-run="${run.index}"><title>${escapeHtml(tip)}</title>`,
      `<line class="whisker" x1="${x(v("min"))}" x2="${x(v("max"))}" y1="${y}" y2="${y}"/>`,
      `<rect class="box" x="${formatX(boxL)}" y="${y - 8}" width="${formatX(boxW)}" height="16" rx="2"/>`,
      `<line class="median" x1="${x(v("p50"))}" x2="${x(v("p50"))}" y1="${y - 8}" y2="${y + 8}"/>`,
      `<circle class="p95" cx="${x(v("p95"))}" cy="${y}" r="4"/>`,
      `<path class="p99" d="M${x(v("p99"))} ${y - 5}l5 5-5 5-5-5z"/>`,
      `<path class="pmax" d="M${formatX(scale.map(v("max")) - 4)} ${y - 4}l8 8m0-8l-8 8"/>`,
      "</g>",
      `<text class="value" x="${WIDTH - VALUE_W}" y="${formatY(y + 4)}">p50 ${f(v("p50"))} <tspan class="ci">p99 ${f(v("p99"))}</tspan></text>`,
    );
  }
  parts.push("</svg>");
  return parts.join("");
}

function axis(scale: Scale, top: number, bottom: number): string {
  const parts: string[] = ['<g class="axis">'];
  for (const t of scale.ticks) {
    const x = formatX(scale.map(t));
    parts.push(
      `<line class="grid" x1="${x}" x2="${x}" y1="${top - 4}" y2="${bottom}"/>`,
      `<text class="tick" x="${x}" y="${bottom + 16}">${escapeHtml(tickLabel(t))}</text>`,
    );
  }
  parts.push(
    `<line class="baseline-axis" x1="${PLOT_X0}" x2="${PLOT_X1}" y1="${bottom}" y2="${bottom}"/>`,
  );
  parts.push("</g>");
  return parts.join("");
}

function runLabel(run: ChartRun, y: number): string {
  const name = clip(run.name, 20);
  const title = run.name === name ? "" : `<title>${escapeHtml(run.name)}</title>`;
  return `<text class="run-label" x="${LABEL_W}" y="${formatY(y + 4)}">${title}<tspan class="letter">${escapeHtml(run.label)}</tspan> ${escapeHtml(name)}${run.isBaseline ? " ◆" : ""}</text>`;
}

function marker(index: number, x: string, y: number, r: number): string {
  const shape = SHAPES[Math.floor(index / 8) % SHAPES.length];
  const cx = Number(x);
  if (shape === "square") {
    return `<rect class="dot" x="${formatX(cx - r)}" y="${y - r}" width="${2 * r}" height="${2 * r}"/>`;
  }
  if (shape === "diamond") {
    return `<path class="dot" d="M${x} ${y - r - 1}l${r + 1} ${r + 1}-${r + 1} ${r + 1}-${r + 1}-${r + 1}z"/>`;
  }
  if (shape === "triangle") {
    return `<path class="dot" d="M${x} ${y - r - 1}l${r + 1} ${2 * r}h-${2 * r + 2}z"/>`;
  }
  return `<circle class="dot" cx="${x}" cy="${y}" r="${r}"/>`;
}

/** A coordinate with at most 2 decimals, for compact deterministic SVG. */
function formatX(v: number): string {
  return String(Math.round(v * 100) / 100);
}

function formatY(v: number): string {
  return formatX(v);
}
