import type { BenchmarkResult } from "@fastrag/bench-core";
import { questionHashesOf, sampleIdsOf, scoreColumnOf } from "./internal/columns.js";
import type { SamplePairing } from "./pairing.js";
import type { PairedComparison } from "./significance.js";

// The samples behind the tests' "pairs left out": a test leaves out a pair where either run has no
// number for the metric. Summed over tests (metrics × pairs of runs) those counts say little (one
// errored sample, 10 metrics and 3 runs: 20 "pairs"); counted once per sample they say how much of
// the dataset the tests did not see, and why.

/** The samples left out of at least one paired test, counted once each, and why. */
export interface LeftOutSamples {
  /** Samples left out of at least one test. */
  readonly samples: number;
  /** Of them, samples some run has no score at all for (it errored there, or scored only nulls). */
  readonly errored: number;
  /** The others: a run scored them, but `null` for a tested metric (not applicable, or failed). */
  readonly unscored: number;
}

/**
 * Counts the samples the tests left out. A sample is named by its id, else by its question (the
 * hashes a lazy load keeps, else the record's text), else by its position in the run.
 */
export function leftOutSamples(
  results: readonly BenchmarkResult[],
  tests: readonly PairedComparison[],
  pairingOf: (i: number, j: number) => SamplePairing,
): LeftOutSamples {
  const why = new Map<string, boolean>(); // key → errored in some run
  // Per run, its metrics' score columns: a left-out sample is looked up in them only (a few
  // per test), never every sample of every run.
  const columnsOf = new Map<BenchmarkResult, Float64Array[]>();
  const nothing = (r: BenchmarkResult, i: number): boolean => {
    let columns = columnsOf.get(r);
    if (columns === undefined) {
      columns = r.metrics.map((m) => scoreColumnOf(r, m));
      columnsOf.set(r, columns);
    }
    for (const column of columns) if (!Number.isNaN(column[i] as number)) return false;
    return true;
  };
  for (const t of tests) {
    if (t.leftOut === 0) continue;
    const run = results[t.index] as BenchmarkResult;
    const base = results[t.baselineIndex] as BenchmarkResult;
    const pairing = pairingOf(t.index, t.baselineIndex);
    const ca = scoreColumnOf(run, t.metric);
    const cb = scoreColumnOf(base, t.metric);
    const keyOf = sampleKeys(run);
    for (let k = 0; k < pairing.indexA.length; k++) {
      const i = pairing.indexA[k] as number;
      const j = pairing.indexB[k] as number;
      if (!Number.isNaN(ca[i] as number) && !Number.isNaN(cb[j] as number)) continue;
      const key = keyOf(i);
      const errored = nothing(run, i) || nothing(base, j);
      why.set(key, (why.get(key) ?? false) || errored);
    }
  }
  let errored = 0;
  for (const e of why.values()) if (e) errored++;
  return { samples: why.size, errored, unscored: why.size - errored };
}

function sampleKeys(r: BenchmarkResult): (i: number) => string {
  const ids = sampleIdsOf(r);
  const hashes = questionHashesOf(r);
  return (i) => {
    const id = ids[i];
    if (id !== undefined) return `id:${id}`;
    if (hashes !== undefined) return `q:${hashes[2 * i]}:${hashes[2 * i + 1]}`;
    const s = r.samples[i];
    return s !== undefined ? `q:${s.question}` : `#${i}`;
  };
}
