import type { BenchmarkResult, SampleResult } from "@fastrag/bench-core";
import { type ChangeKind, classifyPairs, type MakeChange } from "../internal/classify-pairs.js";
import { hasOwn } from "../internal/own.js";
import type { PairingKey } from "../pairing.js";

export type { ChangeKind };

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
 * left-out pairs are `diff()`'s: both come from the same classification (`classifyPairs`), which
 * builds these rows instead of `SampleChange`s. Each category keeps its first `cap` entries.
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
  const makeRow: MakeChange<DiffRow> = (kind, base, cand, vb, vc) => ({
    run,
    kind,
    base,
    cand,
    baseline: vb,
    candidate: vc,
    change: vb === null || vc === null ? null : vc - vb,
  });
  const c = classifyPairs(baseline, candidate, metric, higher, makeRow);
  const rows: DiffRow[] = [];
  let omitted = 0;
  for (const list of [c.regressed, c.improved, c.newlyErrored, c.recovered]) {
    const keep = Math.min(cap, list.length);
    for (let i = 0; i < keep; i++) rows.push(list[i] as DiffRow);
    omitted += list.length - keep;
  }
  return {
    run,
    pairedBy: c.pairedBy,
    counts: {
      improved: c.improved.length,
      regressed: c.regressed.length,
      newlyErrored: c.newlyErrored.length,
      recovered: c.recovered.length,
      unchanged: c.unchanged,
      leftOut: c.leftOut,
    },
    rows,
    omitted,
  };
}
