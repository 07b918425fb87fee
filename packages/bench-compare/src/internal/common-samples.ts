import {
  type BenchmarkResult,
  ConfigurationError,
  type DistributionSummary,
  type SummaryStat,
} from "@fastrag/bench-core";
import { meanOfValues, summarizeValues, trialStd } from "@fastrag/bench-core/internal";
import type { SamplePairing } from "../pairing.js";
import { scoreColumnOf } from "./columns.js";
import { hasOwn, own } from "./own.js";

/**
 * Where each run's samples sit relative to the first run's: `positions[r][p]` is the index in run
 * `r` of the first run's sample `p`, or -1 when run `r` lacks it. `null` when the runs cannot be
 * paired (different datasets), with the reason.
 */
export type Alignment =
  | { readonly positions: readonly Int32Array[]; readonly reason: null }
  | { readonly positions: null; readonly reason: string };

/**
 * Aligns every run on the first one through `pairing(i, 0)`. A `ConfigurationError` from pairing
 * (runs over different datasets) is not thrown: tables of such runs still print, over all samples.
 */
export function alignRuns(
  results: readonly BenchmarkResult[],
  pairing: (i: number, j: number) => SamplePairing,
  sampleCount: (r: BenchmarkResult) => number,
): Alignment {
  const n0 = sampleCount(results[0] as BenchmarkResult);
  const identity = new Int32Array(n0);
  for (let p = 0; p < n0; p++) identity[p] = p;
  const positions: Int32Array[] = [identity];
  for (let i = 1; i < results.length; i++) {
    let pair: SamplePairing;
    try {
      pair = pairing(i, 0);
    } catch (error) {
      if (!ConfigurationError.isInstance(error)) throw error;
      return { positions: null, reason: (error as Error).message };
    }
    const at = new Int32Array(n0).fill(-1);
    for (let k = 0; k < pair.indexA.length; k++) {
      at[pair.indexB[k] as number] = pair.indexA[k] as number;
    }
    positions.push(at);
  }
  return { positions, reason: null };
}

/** One metric's statistic per run over the samples every run with the metric scored. */
export interface CommonColumn {
  /** How many samples every run that has the metric scored. */
  readonly common: number;
  /**
   * Per run: the statistic over those samples; `undefined` for a run without a score for the
   * metric (it shows its all-samples value, `—`).
   */
  readonly values: readonly (number | null | undefined)[];
  /** Per run: how many of its own scores were left out to compare on the common samples. */
  readonly dropped: readonly number[];
}

/**
 * The statistic `stat` of `metric` for every run, over the samples that every run having the
 * metric scored (a number, not errored and not null). A run whose own scores are exactly those
 * samples keeps its stored summary's value, bit for bit.
 */
export function commonColumn(
  results: readonly BenchmarkResult[],
  positions: readonly Int32Array[],
  metric: string,
  stat: SummaryStat,
): CommonColumn {
  // A run without a single score for the metric shows `—` and constrains nothing: a Retriever's
  // answer metrics must not empty the column of the engines beside it.
  const columns = results.map((r) => {
    if (!hasOwn(r.higherIsBetter, metric) && !hasOwn(r.summary, metric)) return null;
    const column = scoreColumnOf(r, metric);
    for (let k = 0; k < column.length; k++) if (!Number.isNaN(column[k] as number)) return column;
    return null;
  });
  const n0 = (positions[0] as Int32Array).length;
  // Run by run, each run's positions and column read in order (sample by sample across 100 runs
  // missed the cache on every read): a sample is kept when no run with the metric lacks it.
  const keep = new Uint8Array(n0).fill(1);
  for (let i = 0; i < results.length; i++) {
    const column = columns[i];
    if (column === null || column === undefined) continue;
    const at = positions[i] as Int32Array;
    for (let p = 0; p < n0; p++) {
      const k = at[p] as number;
      if (k < 0 || Number.isNaN(column[k] as number)) keep[p] = 0;
    }
  }
  let common = 0;
  for (let p = 0; p < n0; p++) common += keep[p] as number;
  const values: (number | null | undefined)[] = [];
  const dropped: number[] = [];
  for (let i = 0; i < results.length; i++) {
    const r = results[i] as BenchmarkResult;
    const column = columns[i];
    if (column === null || column === undefined) {
      values.push(undefined);
      dropped.push(0);
      continue;
    }
    let own_ = 0;
    for (let k = 0; k < column.length; k++) if (!Number.isNaN(column[k] as number)) own_++;
    dropped.push(own_ - common);
    const stored: DistributionSummary | undefined = own(r.summary, metric);
    if (own_ === common && stored !== undefined) {
      values.push(stored[stat]);
      continue;
    }
    const at = positions[i] as Int32Array;
    if (stat === "trial_std") {
      // Over the common samples' own trials: the scores' column holds only their means.
      if (r.trials <= 1) {
        values.push(undefined);
        continue;
      }
      const samples = r.samples;
      const kept = [];
      for (let p = 0; p < n0; p++) if (keep[p] === 1) kept.push(samples[at[p] as number]);
      values.push(trialStd(metric, kept as typeof samples));
      continue;
    }
    const picked = new Float64Array(common);
    for (let p = 0, k = 0; p < n0; p++) {
      if (keep[p] === 1) picked[k++] = column[at[p] as number] as number;
    }
    // What `summarize(picked)[stat]` gives; the mean without the percentiles it does not need.
    values.push(stat === "mean" ? meanOfValues(picked) : summarizeValues(picked)[stat]);
  }
  return { common, values, dropped };
}
