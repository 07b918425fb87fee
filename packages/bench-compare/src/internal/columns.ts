import type { BenchmarkResult, SampleResult } from "@fastrag/bench-core";

/**
 * Columnar access to a result's samples. A result loaded with `{ lazy: true }` (what
 * `Comparison.load` does) answers these without parsing its sample records; a result from a core
 * without these methods is read through `samples`, once per result and metric.
 */

type Columnar = Partial<
  Pick<BenchmarkResult, "sampleCount" | "sampleIds" | "scoreColumn" | "questionHashes">
> &
  BenchmarkResult;

const fallback = new WeakMap<BenchmarkResult, Map<string, Float64Array>>();

/** Number of samples. */
export function sampleCountOf(r: BenchmarkResult): number {
  const n = (r as Columnar).sampleCount;
  return typeof n === "number" ? n : r.samples.length;
}

/** Every sample's id, undefined where it has none. */
export function sampleIdsOf(r: BenchmarkResult): readonly (string | undefined)[] {
  const c = r as Columnar;
  return typeof c.sampleIds === "function" ? c.sampleIds() : r.samples.map((s) => s.sampleId);
}

/**
 * Two 32-bit hashes per sample of its question (entries 2i, 2i + 1), when a lazy load read them;
 * else undefined (the caller then reads the records).
 */
export function questionHashesOf(r: BenchmarkResult): Int32Array | undefined {
  const c = r as Columnar;
  return typeof c.questionHashes === "function" ? c.questionHashes() : undefined;
}

/**
 * One metric's scores per sample, NaN where there is no number (errored, null or missing). Shared:
 * read it, never write it.
 */
export function scoreColumnOf(r: BenchmarkResult, metric: string): Float64Array {
  const c = r as Columnar;
  if (typeof c.scoreColumn === "function") {
    // undefined: the run has no such metric, so no sample has a score for it.
    return c.scoreColumn(metric) ?? new Float64Array(sampleCountOf(r)).fill(Number.NaN);
  }
  let cache = fallback.get(r);
  if (cache === undefined) {
    cache = new Map();
    fallback.set(r, cache);
  }
  let column = cache.get(metric);
  if (column === undefined) {
    const samples = r.samples;
    column = new Float64Array(samples.length);
    for (let i = 0; i < samples.length; i++) {
      const scores = (samples[i] as SampleResult).scores;
      const v = Object.hasOwn(scores, metric) ? scores[metric] : undefined;
      column[i] = typeof v === "number" ? v : Number.NaN;
    }
    cache.set(metric, column);
  }
  return column;
}
