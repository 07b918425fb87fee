import { type BenchmarkResult, ConfigurationError } from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";
import { questionHashesOf, sampleCountOf, sampleIdsOf, scoreColumnOf } from "./internal/columns.js";
import { hasOwn } from "./internal/own.js";
import { expectResult } from "./internal/validate.js";

/** How the samples of two runs were matched. */
export type PairingKey = "sample_id" | "question" | "position";

/** The matching of two runs' samples: `a.samples[indexA[i]]` goes with `b.samples[indexB[i]]`. */
export interface SamplePairing {
  readonly key: PairingKey;
  readonly indexA: Int32Array;
  readonly indexB: Int32Array;
}

/** The scores of one metric over the paired samples where both runs have a number. */
export interface PairedScores {
  readonly key: PairingKey;
  readonly metric: string;
  /** Scores of run a, aligned with `b`. */
  readonly a: Float64Array;
  readonly b: Float64Array;
  /** Pairs left out because either side errored or scored `null` (never counted as 0). */
  readonly leftOut: number;
}

const keyCache = new WeakMap<BenchmarkResult, Map<string, Map<string, number> | null>>();

/**
 * Matches the samples of two runs over the same dataset: by `sample_id` when every sample of both
 * runs has one, else by question text when questions are unique within each run, else by
 * position, where each position must hold the same question in both runs.
 *
 * @throws {ConfigurationError} when the runs cover different datasets, saying how they differ:
 * dataset fingerprints (when both results carry one; they cover the samples' order, so one dataset
 * run in two orders is refused too), sample counts, and an example id or question found on one
 * side only. Also when a run repeats a sample id, and when pairing by position would pair
 * two different questions.
 */
export function pairSamples(a: BenchmarkResult, b: BenchmarkResult): SamplePairing {
  expectResult(a, "pairSamples: a");
  expectResult(b, "pairSamples: b");
  const where = `cannot pair runs "${a.name}" and "${b.name}"`;
  if (a.dataset && b.dataset && a.dataset.fingerprint !== b.dataset.fingerprint) {
    const how = howSamplesDiffer(a, b);
    // Only one dataset in two orders is fixed by running in one order; other datasets just differ.
    const fix = how.endsWith("in another order")
      ? ". The fingerprint covers the samples' order too, since shards and checkpoints address samples by position: run both on the dataset in one order"
      : ": paired tests and diffs need runs over one dataset";
    throw new ConfigurationError(
      `${where}: they ran on different datasets (fingerprint ${a.dataset.fingerprint}, ${a.dataset.size} samples vs fingerprint ${b.dataset.fingerprint}, ${b.dataset.size} samples; ${how})${fix}`,
      { kind: "unpairable-runs" },
    );
  }
  // Without both fingerprints, ids alone do not show that a pair is one sample: check questions.
  const fingerprinted = a.dataset !== undefined && b.dataset !== undefined;
  const na = sampleCountOf(a);
  const nb = sampleCountOf(b);
  if (na === nb && sameOrder(sampleIdsOf(a), sampleIdsOf(b))) {
    // The same ids in the same order (the common case): they are unique in one run exactly when
    // they are in the other, so one run's key map answers for both. That of b, the baseline that a
    // comparison pairs every run with, unless a's is at hand: one map for 100 runs, not 100.
    const known = keyCache.get(a)?.get("sample_id");
    if ((known !== undefined ? known : keysOf(b, "sample_id")) !== null) {
      const indexA = new Int32Array(na);
      for (let i = 0; i < na; i++) indexA[i] = i;
      const pairing: SamplePairing = { key: "sample_id", indexA, indexB: indexA.slice() };
      if (!fingerprinted) expectSameQuestions(a, b, pairing, where);
      return pairing;
    }
  }
  const idsA = keysOf(a, "sample_id");
  const idsB = idsA === null ? null : keysOf(b, "sample_id");
  if (idsA !== null && idsB !== null) {
    const pairing = byKey(a, b, idsA, idsB, "sample_id", where);
    if (!fingerprinted) expectSameQuestions(a, b, pairing, where);
    return pairing;
  }
  const qa = keysOf(a, "question");
  const qb = qa === null ? null : keysOf(b, "question");
  if (qa !== null && qb !== null) return byKey(a, b, qa, qb, "question", where);
  if (na !== nb) {
    throw new ConfigurationError(
      `${where}: they have different datasets (${na} samples vs ${nb}; pairing by position because ${
        idsA === null ? `"${a.name}"` : `"${b.name}"`
      } lacks sample ids and questions repeat)`,
      { kind: "unpairable-runs" },
    );
  }
  // By position only where position i holds the same question in both runs: anything else pairs
  // different questions, and a test over them would mean nothing.
  for (let i = 0; i < na; i++) {
    const x = (a.samples[i] as { question: string }).question;
    const y = (b.samples[i] as { question: string }).question;
    if (x !== y) {
      throw new ConfigurationError(
        `${where}: pairing by position (${idsA === null ? `"${a.name}"` : `"${b.name}"`} lacks sample ids and questions repeat), but sample ${i + 1} differs: ${JSON.stringify(clip(x))} vs ${JSON.stringify(clip(y))}. Give the samples ids, or run both on the dataset in one order`,
        { kind: "unpairable-runs" },
      );
    }
  }
  const indexA = new Int32Array(na);
  for (let i = 0; i < na; i++) indexA[i] = i;
  return { key: "position", indexA, indexB: indexA.slice() };
}

/**
 * Scores of `metric` over the pairs where both runs have a number. Errored samples and `null`
 * scores are left out of the pair (never treated as 0) and counted in `leftOut`.
 *
 * @throws {ConfigurationError} as {@link pairSamples}, or when either run lacks the metric.
 */
export function pairedScores(
  a: BenchmarkResult,
  b: BenchmarkResult,
  metric: string,
  pairing?: SamplePairing,
): PairedScores {
  expectResult(a, "pairedScores: a");
  expectResult(b, "pairedScores: b");
  if (typeof metric !== "string") {
    throw new ConfigurationError(
      `pairedScores: expected a metric name, found ${describeValue(metric)}`,
      { kind: "invalid-option", option: "metric" },
    );
  }
  const paired = pairing ?? pairSamples(a, b);
  for (const r of [a, b]) {
    if (!hasOwn(r.higherIsBetter, metric)) {
      throw new ConfigurationError(
        `run "${r.name}" has no metric "${metric}"; it has ${r.metrics.map((m) => `"${m}"`).join(", ") || "none"}`,
        { kind: "invalid-option", option: "metric" },
      );
    }
  }
  const n = paired.indexA.length;
  const xa = new Float64Array(n);
  const xb = new Float64Array(n);
  let k = 0;
  const ca = scoreColumnOf(a, metric);
  const cb = scoreColumnOf(b, metric);
  const ia = paired.indexA;
  const ib = paired.indexB;
  for (let i = 0; i < n; i++) {
    const va = ca[ia[i] as number] as number;
    const vb = cb[ib[i] as number] as number;
    // NaN: no number (errored, null or missing).
    if (!Number.isNaN(va) && !Number.isNaN(vb)) {
      xa[k] = va;
      xb[k] = vb;
      k++;
    }
  }
  return { key: paired.key, metric, a: xa.subarray(0, k), b: xb.subarray(0, k), leftOut: n - k };
}

/** key → sample index, or null when some sample lacks the key or a key repeats. Cached per run. */
function keysOf(r: BenchmarkResult, kind: "sample_id" | "question"): Map<string, number> | null {
  let cache = keyCache.get(r);
  if (cache === undefined) {
    cache = new Map();
    keyCache.set(r, cache);
  }
  const hit = cache.get(kind);
  if (hit !== undefined) return hit;
  const map = new Map<string, number>();
  let out: Map<string, number> | null = map;
  const keys: readonly (string | undefined)[] =
    kind === "sample_id" ? sampleIdsOf(r) : r.samples.map((s) => s.question);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key === undefined) {
      out = null;
      break;
    }
    if (map.has(key)) {
      if (kind === "sample_id") {
        throw new ConfigurationError(
          `run "${r.name}": sample id "${key}" appears twice (samples ${(map.get(key) as number) + 1} and ${i + 1}); sample ids must be unique to pair runs`,
          { kind: "unpairable-runs", field: "sample_id" },
        );
      }
      out = null;
      break;
    }
    map.set(key, i);
  }
  cache.set(kind, out);
  return out;
}

function byKey(
  a: BenchmarkResult,
  b: BenchmarkResult,
  ka: Map<string, number>,
  kb: Map<string, number>,
  key: PairingKey,
  where: string,
): SamplePairing {
  const n = ka.size;
  const indexA = new Int32Array(n);
  const indexB = new Int32Array(n);
  let k = 0;
  let onlyA = 0;
  let exampleA: string | undefined;
  for (const [id, i] of ka) {
    const j = kb.get(id);
    if (j === undefined) {
      onlyA++;
      exampleA ??= id;
      continue;
    }
    indexA[k] = i;
    indexB[k] = j;
    k++;
  }
  const onlyB = kb.size - k;
  if (onlyA > 0 || onlyB > 0) {
    let exampleB: string | undefined;
    if (onlyB > 0) {
      for (const id of kb.keys()) {
        if (!ka.has(id)) {
          exampleB = id;
          break;
        }
      }
    }
    const what = key === "sample_id" ? "sample ids" : "questions";
    const parts: string[] = [];
    if (onlyA > 0)
      parts.push(`${onlyA} only in "${a.name}" (e.g. ${JSON.stringify(clip(exampleA as string))})`);
    if (onlyB > 0)
      parts.push(`${onlyB} only in "${b.name}" (e.g. ${JSON.stringify(clip(exampleB as string))})`);
    throw new ConfigurationError(
      `${where}: they cover different datasets (${ka.size} samples vs ${kb.size}, matched by ${what}): ${parts.join("; ")}`,
      { kind: "unpairable-runs" },
    );
  }
  return { key, indexA, indexB };
}

/**
 * For the error about two fingerprints: an example sample id (else question) on one side only, or
 * what else differs when both sides hold the same ones.
 */
function howSamplesDiffer(a: BenchmarkResult, b: BenchmarkResult): string {
  const ida = sampleIdsOf(a);
  const idb = sampleIdsOf(b);
  const byId = ida.every((id) => id !== undefined) && idb.every((id) => id !== undefined);
  const ka = (byId ? ida : a.samples.map((s) => s.question)) as readonly string[];
  const kb = (byId ? idb : b.samples.map((s) => s.question)) as readonly string[];
  const what = byId ? "sample id" : "question";
  const inA = new Set(ka);
  const inB = new Set(kb);
  const onlyA = ka.find((k) => !inB.has(k));
  const onlyB = kb.find((k) => !inA.has(k));
  const parts: string[] = [];
  if (onlyA !== undefined) parts.push(`${what} ${JSON.stringify(clip(onlyA))} only in "${a.name}"`);
  if (onlyB !== undefined) parts.push(`${what} ${JSON.stringify(clip(onlyB))} only in "${b.name}"`);
  if (parts.length > 0) return `e.g. ${parts.join(", ")}`;
  return sameOrder(ka, kb)
    ? `the same ${what}s in the same order, so their questions or judgments differ`
    : `the same ${what}s in another order`;
}

/** Refuses a pairing by sample id that pairs two different questions. */
function expectSameQuestions(
  a: BenchmarkResult,
  b: BenchmarkResult,
  pairing: SamplePairing,
  where: string,
): void {
  // Lazily loaded runs carry hashes of their questions: when every pair's agree, the questions
  // are the same without reading a record (docs/decisions/compare-house.md says what it saves).
  // Where one pair's differ, the records say whether, and how, the questions do.
  const ha = questionHashesOf(a);
  const hb = questionHashesOf(b);
  if (ha !== undefined && hb !== undefined) {
    let same = true;
    for (let k = 0; k < pairing.indexA.length && same; k++) {
      const i = 2 * (pairing.indexA[k] as number);
      const j = 2 * (pairing.indexB[k] as number);
      same = ha[i] === hb[j] && ha[i + 1] === hb[j + 1];
    }
    if (same) return;
  }
  const sa = a.samples;
  const sb = b.samples;
  for (let k = 0; k < pairing.indexA.length; k++) {
    const x = sa[pairing.indexA[k] as number] as { sampleId?: string; question: string };
    const y = sb[pairing.indexB[k] as number] as { question: string };
    if (x.question !== y.question) {
      throw new ConfigurationError(
        `${where}: they cover different datasets: sample id ${JSON.stringify(x.sampleId)} is ${JSON.stringify(clip(x.question))} in "${a.name}" but ${JSON.stringify(clip(y.question))} in "${b.name}"`,
        { kind: "unpairable-runs" },
      );
    }
  }
}

function sameOrder(
  a: readonly (string | undefined)[],
  b: readonly (string | undefined)[],
): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
