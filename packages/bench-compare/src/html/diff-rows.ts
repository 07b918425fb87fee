import type { BenchmarkResult, SampleResult } from "@fastrag/bench-core";
import { hasOwn, own } from "../internal/own.js";
import { type PairingKey, pairSamples } from "../pairing.js";

/** How a sample changed from the baseline to a run, as {@link diff} classifies it. */
export type ChangeKind = "improved" | "regressed" | "newly-errored" | "recovered";

/** One changed sample of one run against the baseline, with both sides' records. */
export interface DiffRow {
  /** Index of the run compared with the baseline. */
  readonly run: number;
  readonly kind: ChangeKind;
  readonly base: SampleResult;
  readonly cand: SampleResult;
  /** Scores; `null` on an errored side. */
  readonly baseline: number | null;
  readonly candidate: number | null;
  /** `candidate − baseline`, `null` when either is missing. */
  readonly change: number | null;
}

/** Counts of every category of a run's diff against the baseline. */
export interface DiffCounts {
  readonly improved: number;
  readonly regressed: number;
  readonly newlyErrored: number;
  readonly recovered: number;
  readonly unchanged: number;
  readonly leftOut: number;
}

/** One run's per-sample diff against the baseline, with at most `cap` rows per category. */
export interface RunDiff {
  readonly run: number;
  readonly pairedBy: PairingKey | null;
  readonly counts: DiffCounts;
  /** Improved, regressed, newly errored, recovered: each sorted as `diff` sorts, then capped. */
  readonly rows: readonly DiffRow[];
  /** Changed samples left out of `rows` by the cap. */
  readonly omitted: number;
  /** Why there is no diff (a run lacking the metric, runs that do not pair). */
  readonly note?: string;
}

/**
 * The per-sample diff of `candidate` against `baseline` on `metric`, with the sample records of
 * both sides (the report shows their retrieved ids, answers and errors). Categories, order and
 * left-out pairs follow {@link diff} exactly; this mirror exists because `SampleChange` does not
 * carry the records themselves. Each category keeps its first `cap` entries.
 *
 * @throws {ConfigurationError} when the runs cover different datasets (from `pairSamples`).
 */
export function runDiff(
  results: readonly BenchmarkResult[],
  baselineIndex: number,
  run: number,
  metric: string,
  higher: boolean,
  cap: number,
): RunDiff {
  const baseline = results[baselineIndex] as BenchmarkResult;
  const candidate = results[run] as BenchmarkResult;
  const empty: DiffCounts = {
    improved: 0,
    regressed: 0,
    newlyErrored: 0,
    recovered: 0,
    unchanged: 0,
    leftOut: 0,
  };
  for (const r of [baseline, candidate]) {
    if (!hasOwn(r.higherIsBetter, metric)) {
      return {
        run,
        pairedBy: null,
        counts: empty,
        rows: [],
        omitted: 0,
        note: `run "${r.name}" has no metric "${metric}"`,
      };
    }
  }
  const pairing = pairSamples(baseline, candidate);
  const improved: DiffRow[] = [];
  const regressed: DiffRow[] = [];
  const newlyErrored: DiffRow[] = [];
  const recovered: DiffRow[] = [];
  let unchanged = 0;
  let leftOut = 0;
  for (let i = 0; i < pairing.indexA.length; i++) {
    const b = baseline.samples[pairing.indexA[i] as number] as SampleResult;
    const c = candidate.samples[pairing.indexB[i] as number] as SampleResult;
    const bErr = b.status === "errored";
    const cErr = c.status === "errored";
    const vb = bErr ? null : (own(b.scores, metric) ?? null);
    const vc = cErr ? null : (own(c.scores, metric) ?? null);
    if (bErr && cErr) {
      leftOut++;
    } else if (cErr) {
      newlyErrored.push(row(run, "newly-errored", b, c, vb, null));
    } else if (bErr) {
      recovered.push(row(run, "recovered", b, c, null, vc));
    } else if (vb === null || vc === null) {
      leftOut++;
    } else if (vc === vb) {
      unchanged++;
    } else if (vc > vb === higher) {
      improved.push(row(run, "improved", b, c, vb, vc));
    } else {
      regressed.push(row(run, "regressed", b, c, vb, vc));
    }
  }
  // The same orders as diff(): biggest change first, lost / regained score first; stable sort.
  const bySize = (x: DiffRow, y: DiffRow): number =>
    Math.abs(y.change as number) - Math.abs(x.change as number);
  improved.sort(bySize);
  regressed.sort(bySize);
  newlyErrored.sort((x, y) => rank(y.baseline, higher) - rank(x.baseline, higher));
  recovered.sort((x, y) => rank(y.candidate, higher) - rank(x.candidate, higher));
  const rows: DiffRow[] = [];
  let omitted = 0;
  for (const list of [regressed, improved, newlyErrored, recovered]) {
    const keep = Math.min(cap, list.length);
    for (let i = 0; i < keep; i++) rows.push(list[i] as DiffRow);
    omitted += list.length - keep;
  }
  return {
    run,
    pairedBy: pairing.key,
    counts: {
      improved: improved.length,
      regressed: regressed.length,
      newlyErrored: newlyErrored.length,
      recovered: recovered.length,
      unchanged,
      leftOut,
    },
    rows,
    omitted,
  };
}

function rank(v: number | null, higher: boolean): number {
  if (v === null) return Number.NEGATIVE_INFINITY;
  return higher ? v : -v;
}

function row(
  run: number,
  kind: ChangeKind,
  base: SampleResult,
  cand: SampleResult,
  baseline: number | null,
  candidate: number | null,
): DiffRow {
  const change = baseline === null || candidate === null ? null : candidate - baseline;
  return { run, kind, base, cand, baseline, candidate, change };
}
