import type { BenchmarkResult, SampleResult } from "@fastrag/bench-core";
import { type PairingKey, pairSamples, type SamplePairing } from "../pairing.js";
import { scoreColumnOf } from "./columns.js";
import { own } from "./own.js";
import { equalUpToRounding } from "./rounding.js";

/** How a sample changed from the baseline to a candidate run. */
export type ChangeKind = "improved" | "regressed" | "newly-errored" | "recovered";

/** What the sort of a changed pair reads: the scores of both sides and their difference. */
export interface ScoredChange {
  /** Score in the baseline; `null` when not scored there (errored). */
  readonly baseline: number | null;
  readonly candidate: number | null;
  /** `candidate − baseline`, `null` when either score is missing. */
  readonly change: number | null;
}

/**
 * Builds the entry of one changed pair: `diff()` makes a `SampleChange`, the HTML report a row
 * that keeps both records. `change` of the result must be `candidate − baseline` (or `null`).
 */
export type MakeChange<T extends ScoredChange> = (
  kind: ChangeKind,
  base: SampleResult,
  cand: SampleResult,
  baseline: number | null,
  candidate: number | null,
) => T;

/** The changed pairs of two runs on one metric, by category and sorted, plus the counts of the rest. */
export interface PairClassification<T> {
  readonly pairedBy: PairingKey;
  /** Biggest gain first. */
  readonly improved: T[];
  /** Biggest loss first. */
  readonly regressed: T[];
  /** Highest baseline score (what was lost) first; unscored last. */
  readonly newlyErrored: T[];
  /** Highest candidate score first; unscored last. */
  readonly recovered: T[];
  readonly unchanged: number;
  /** Errored on both sides, or a `null` score on a side that did not error. */
  readonly leftOut: number;
}

/**
 * The one per-sample classification behind `diff()` and the HTML report's diff rows: pairs the
 * samples of `baseline` and `candidate` as the significance tests do, sorts each changed pair
 * into improved / regressed / newly errored / recovered (in `higher`'s direction), counts the
 * unchanged and left-out pairs, and orders each category (stable sort: ties keep dataset order).
 * A null score is never read as 0. Two scores equal up to floating-point rounding (within 1e-12
 * of the larger, or of the largest |score| of the metric in either run: see `rounding.ts`) are
 * unchanged, not improved or regressed. Callers check first that both runs have `metric`.
 *
 * @throws {ConfigurationError} when the runs cover different datasets (from `pairSamples`).
 */
export function classifyPairs<T extends ScoredChange>(
  baseline: BenchmarkResult,
  candidate: BenchmarkResult,
  metric: string,
  higher: boolean,
  make: MakeChange<T>,
): PairClassification<T> {
  const pairing = pairSamples(baseline, candidate);
  const improved: T[] = [];
  const regressed: T[] = [];
  const newlyErrored: T[] = [];
  const recovered: T[] = [];
  let unchanged = 0;
  let leftOut = 0;
  const scale = scoreScale(baseline, candidate, metric, pairing);
  for (let i = 0; i < pairing.indexA.length; i++) {
    const b = baseline.samples[pairing.indexA[i] as number] as SampleResult;
    const c = candidate.samples[pairing.indexB[i] as number] as SampleResult;
    const bErr = b.status === "errored";
    const cErr = c.status === "errored";
    const vb = bErr ? null : (own(b.scores, metric) ?? null);
    const vc = cErr ? null : (own(c.scores, metric) ?? null);
    if (bErr && cErr) {
      leftOut++;
      continue;
    }
    if (cErr) {
      newlyErrored.push(make("newly-errored", b, c, vb, null));
      continue;
    }
    if (bErr) {
      recovered.push(make("recovered", b, c, null, vc));
      continue;
    }
    if (vb === null || vc === null) {
      leftOut++;
      continue;
    }
    const d = vc - vb;
    if (equalUpToRounding(vc, vb, scale)) unchanged++;
    else if (d > 0 === higher) improved.push(make("improved", b, c, vb, vc));
    else regressed.push(make("regressed", b, c, vb, vc));
  }
  // Array.prototype.sort is stable: ties keep dataset order.
  improved.sort(bySize);
  regressed.sort(bySize);
  newlyErrored.sort((x, y) => rank(y.baseline, higher) - rank(x.baseline, higher));
  recovered.sort((x, y) => rank(y.candidate, higher) - rank(x.candidate, higher));
  return {
    pairedBy: pairing.key,
    improved,
    regressed,
    newlyErrored,
    recovered,
    unchanged,
    leftOut,
  };
}

/**
 * The largest |score| of `metric` over the scored pairs of both runs: the floor of the rounding
 * tolerance for scores near 0 (as the paired tests take it over the same pairs).
 */
function scoreScale(
  baseline: BenchmarkResult,
  candidate: BenchmarkResult,
  metric: string,
  pairing: SamplePairing,
): number {
  const cb = scoreColumnOf(baseline, metric);
  const cc = scoreColumnOf(candidate, metric);
  let max = 0;
  for (let i = 0; i < pairing.indexA.length; i++) {
    const vb = cb[pairing.indexA[i] as number] as number;
    const vc = cc[pairing.indexB[i] as number] as number;
    // NaN: no number on a side (errored, null or missing), so not a scored pair.
    if (Number.isNaN(vb) || Number.isNaN(vc)) continue;
    max = Math.max(max, Math.abs(vb), Math.abs(vc));
  }
  return max;
}

/** Biggest change first. */
function bySize(x: ScoredChange, y: ScoredChange): number {
  return Math.abs(y.change as number) - Math.abs(x.change as number);
}

/** Orders scores best first in the metric's direction; a null score (unscored) goes last. */
function rank(v: number | null, higher: boolean): number {
  if (v === null) return Number.NEGATIVE_INFINITY;
  return higher ? v : -v;
}
