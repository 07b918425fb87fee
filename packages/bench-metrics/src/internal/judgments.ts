import { type MetricInput, MetricUnavailableError, type RetrievedChunk } from "@fastrag/bench-core";
import type { Judgments } from "./kernels.js";

/** What retrieval metrics match: chunk ids, or the chunks' document ids. */
export type MatchLevel = "chunk" | "document";

const NO_IDS: ReadonlySet<string> = new Set();

/** nDCG's view of a sample's judgments. */
export interface Gains {
  /** Positive gains: id → grade (> 0). Ids absent here have gain 0. */
  readonly gains: ReadonlyMap<string, number>;
  /** Every positive gain, sorted descending: the ideal ranking's gains. */
  readonly idealGains: readonly number[];
}

// Each sample is prepared once and shared by every metric: the runner builds one MetricInput per
// scored sample and hands that same object to each metric in turn, so the input's identity is a
// safe cache key. (Not the retrieved array's: a target may reuse and refill one array across
// calls.) One slot per kind is enough, since the metrics of a sample run back to back, and unlike
// WeakMaps it costs no per-sample entry for the GC to trace; it keeps only the last input alive.
let relevantInput: object | undefined;
let relevantSet: ReadonlySet<string> = NO_IDS;
let idealInput: object | undefined;
let idealValue: readonly number[] = [];
let chunkInput: object | undefined;
let chunkValue: readonly string[] = [];
let documentInput: object | undefined;
let documentValue: readonly string[] = [];

/**
 * The ids that count as relevant for binary measures: membership in `relevantIds`. The dataset
 * loader decides the threshold (trec_eval's `-l`), so a graded sample's `relevantIds` may exclude
 * low grades. Its size is R.
 */
export function relevantOf(input: MetricInput): ReadonlySet<string> {
  if (input !== relevantInput) {
    const ids = input.sample.relevantIds;
    let set = NO_IDS;
    if (ids.length > 0) {
      const built = new Set<string>();
      for (let i = 0; i < ids.length; i++) built.add(ids[i] as string);
      set = built;
    }
    relevantSet = set;
    relevantInput = input;
  }
  return relevantSet;
}

/**
 * The ideal ranking's gains of a sample, sorted descending: the same numbers as
 * `gainsOf(input).idealGains`, without building the id → gain map (nDCG looks the few ranked
 * ids up in `relevance` instead; see `ndcgGraded`).
 */
export function idealGainsOf(input: MetricInput): readonly number[] {
  if (input !== idealInput) {
    idealValue = buildIdealGains(relevantOf(input), input.sample.relevance);
    idealInput = input;
  }
  return idealValue;
}

/** Pure builder behind {@link idealGainsOf}; `relevant` holds the distinct relevant ids. */
export function buildIdealGains(
  relevant: ReadonlySet<string>,
  relevance: Readonly<Record<string, number>> | undefined,
): number[] {
  const ideal: number[] = [];
  if (relevance !== undefined) {
    // Object.keys and a look-up per key: twice as fast as Object.values on dictionary records.
    const ids = Object.keys(relevance);
    for (let i = 0; i < ids.length; i++) {
      const grade = relevance[ids[i] as string] as number;
      if (grade > 0) ideal.push(grade);
    }
    for (const id of relevant) if (!Object.hasOwn(relevance, id)) ideal.push(1);
  } else {
    for (let i = 0; i < relevant.size; i++) ideal.push(1);
  }
  if (ideal.length > 1) ideal.sort(descending);
  return ideal;
}

/**
 * nDCG gains of a sample as an id → gain map: the grades of `relevance` when present (grades ≤ 0
 * give no gain); a relevant id that `relevance` does not grade has gain 1, and without `relevance`
 * every relevant id has gain 1. (The metric classes look gains up with `ndcgGraded` instead.)
 */
export function buildGains(
  relevantIds: readonly string[],
  relevance: Readonly<Record<string, number>> | undefined,
): Gains {
  const gains = new Map<string, number>();
  const ideal: number[] = [];
  if (relevance !== undefined) {
    const ids = Object.keys(relevance);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as string;
      const grade = relevance[id] as number;
      if (grade > 0) {
        gains.set(id, grade);
        ideal.push(grade);
      }
    }
    for (let i = 0; i < relevantIds.length; i++) {
      const id = relevantIds[i] as string;
      if (!Object.hasOwn(relevance, id) && !gains.has(id)) {
        gains.set(id, 1);
        ideal.push(1);
      }
    }
  } else {
    for (let i = 0; i < relevantIds.length; i++) {
      const id = relevantIds[i] as string;
      if (!gains.has(id)) {
        gains.set(id, 1);
        ideal.push(1);
      }
    }
  }
  ideal.sort(descending);
  return { gains, idealGains: ideal };
}

/** Binary and graded judgments at once (for the kernel benchmark and tests). */
export function buildJudgments(
  relevantIds: readonly string[],
  relevance: Readonly<Record<string, number>> | undefined,
): Judgments {
  return { relevant: new Set(relevantIds), ...buildGains(relevantIds, relevance) };
}

function descending(a: number, b: number): number {
  return b - a;
}

/**
 * The ranked ids a retrieval metric scores: in the order returned, each id kept once at its first
 * position (later ones move up). At document level the ids are the chunks' `documentId`s, so a
 * document ranks where its first chunk does.
 *
 * @throws {MetricUnavailableError} at document level when a chunk has no `documentId`.
 */
export function rankingIds(input: MetricInput, level: MatchLevel): readonly string[] {
  if (level === "chunk") {
    if (input !== chunkInput) {
      chunkValue = chunkIds(input.retrieved);
      chunkInput = input;
    }
    return chunkValue;
  }
  if (input !== documentInput) {
    documentValue = documentIds(input.retrieved);
    documentInput = input;
  }
  return documentValue;
}

// Up to this length, duplicates are found by comparing with the ids kept so far; up to
// HASH_LIMIT, with a reused open-addressing table of positions stamped per call. Both avoid a
// Set per sample, whose growth was a third of the metric time on 10^6-row runs.
const SCAN_LIMIT = 16;
const HASH_LIMIT = 1 << 15;
let stamps = new Int32Array(256);
let positions = new Int32Array(256);
let stamp = 0;

function chunkIds(retrieved: readonly RetrievedChunk[]): readonly string[] {
  const n = retrieved.length;
  const out: string[] = new Array(n);
  let m = 0;
  if (n <= SCAN_LIMIT) {
    for (let i = 0; i < n; i++) {
      const id = (retrieved[i] as RetrievedChunk).id;
      let j = 0;
      while (j < m && out[j] !== id) j++;
      if (j === m) out[m++] = id;
    }
  } else if (n <= HASH_LIMIT) {
    let size = 256;
    while (size < 2 * n) size *= 2;
    if (stamps.length < size) {
      stamps = new Int32Array(size);
      positions = new Int32Array(size);
      stamp = 0;
    }
    if (stamp === 0x7fffffff) {
      stamps.fill(0);
      stamp = 0;
    }
    const mark = ++stamp;
    const mask = size - 1;
    for (let i = 0; i < n; i++) {
      const id = (retrieved[i] as RetrievedChunk).id;
      let slot = hashString(id) & mask;
      for (;;) {
        if (stamps[slot] !== mark) {
          stamps[slot] = mark;
          positions[slot] = m;
          out[m++] = id;
          break;
        }
        if (out[positions[slot] as number] === id) break;
        slot = (slot + 1) & mask;
      }
    }
  } else {
    const seen = new Set<string>();
    for (let i = 0; i < n; i++) {
      const id = (retrieved[i] as RetrievedChunk).id;
      if (seen.has(id)) continue;
      seen.add(id);
      out[m++] = id;
    }
  }
  out.length = m;
  return out;
}

/** FNV-1a over UTF-16 code units: a table hash, not a fingerprint. */
function hashString(s: string): number {
  let h = -2128831035;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h;
}

function documentIds(retrieved: readonly RetrievedChunk[]): readonly string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < retrieved.length; i++) {
    const chunk = retrieved[i] as RetrievedChunk;
    const id = chunk.documentId;
    if (typeof id !== "string") {
      throw new MetricUnavailableError(
        `level "document" matches by documentId, but the chunk at rank ${i + 1} (id "${chunk.id}") has none`,
      );
    }
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
  }
  return out;
}
