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
// calls.) Gains are built only when an nDCG asks for them.
const relevantCache = new WeakMap<object, ReadonlySet<string>>();
const gainsCache = new WeakMap<object, Gains>();
const chunkRankingCache = new WeakMap<object, readonly string[]>();
const documentRankingCache = new WeakMap<object, readonly string[]>();

/**
 * The ids that count as relevant for binary measures: membership in `relevantIds`. The dataset
 * loader decides the threshold (trec_eval's `-l`), so a graded sample's `relevantIds` may exclude
 * low grades. Its size is R.
 */
export function relevantOf(input: MetricInput): ReadonlySet<string> {
  let set = relevantCache.get(input);
  if (set === undefined) {
    const ids = input.sample.relevantIds;
    if (ids.length === 0) set = NO_IDS;
    else {
      const built = new Set<string>();
      for (let i = 0; i < ids.length; i++) built.add(ids[i] as string);
      set = built;
    }
    relevantCache.set(input, set);
  }
  return set;
}

/**
 * nDCG gains of a sample: the grades of `relevance` when present (grades ≤ 0 give no gain); a
 * relevant id that `relevance` does not grade has gain 1, and without `relevance` every relevant
 * id has gain 1.
 */
export function gainsOf(input: MetricInput): Gains {
  let g = gainsCache.get(input);
  if (g === undefined) {
    g = buildGains(input.sample.relevantIds, input.sample.relevance);
    gainsCache.set(input, g);
  }
  return g;
}

/** Pure builder behind {@link gainsOf}. */
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
  const cache = level === "chunk" ? chunkRankingCache : documentRankingCache;
  let ids = cache.get(input);
  if (ids === undefined) {
    ids = level === "chunk" ? chunkIds(input.retrieved) : documentIds(input.retrieved);
    cache.set(input, ids);
  }
  return ids;
}

function chunkIds(retrieved: readonly RetrievedChunk[]): readonly string[] {
  const n = retrieved.length;
  const out: string[] = new Array(n);
  const seen = new Set<string>();
  let m = 0;
  for (let i = 0; i < n; i++) {
    const id = (retrieved[i] as RetrievedChunk).id;
    if (seen.has(id)) continue;
    seen.add(id);
    out[m++] = id;
  }
  out.length = m;
  return out;
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
