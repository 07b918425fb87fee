import { type EvalSample, MetricUnavailableError, type RetrievedChunk } from "@fastrag/bench-core";
import type { Judgments } from "./kernels.js";

/** What retrieval metrics match: chunk ids, or the chunks' document ids. */
export type MatchLevel = "chunk" | "document";

const EMPTY: Judgments = { relevant: new Set(), gains: new Map(), idealGains: [] };

// Each sample is prepared once and shared by every metric of a run: the runner hands all metrics
// the same sample object and the same retrieved array. Inputs are treated as immutable (their
// types are readonly), which is what makes identity a safe cache key.
const judgmentCache = new WeakMap<object, Judgments>();
const chunkRankingCache = new WeakMap<object, readonly string[]>();
const documentRankingCache = new WeakMap<object, readonly string[]>();

/**
 * The judgments of a sample.
 *
 * - Binary relevance is membership in `relevantIds`: the dataset loader decides the threshold
 *   (trec_eval's `-l`), so a graded sample's `relevantIds` may exclude low grades.
 * - nDCG gains come from `relevance` when present (grades ≤ 0 give no gain); a relevant id that
 *   `relevance` does not grade has gain 1, and without `relevance` every relevant id has gain 1.
 */
export function judgmentsOf(sample: EvalSample): Judgments {
  let j = judgmentCache.get(sample);
  if (j === undefined) {
    j = buildJudgments(sample.relevantIds, sample.relevance);
    judgmentCache.set(sample, j);
  }
  return j;
}

/** Pure builder behind {@link judgmentsOf}. */
export function buildJudgments(
  relevantIds: readonly string[],
  relevance: Readonly<Record<string, number>> | undefined,
): Judgments {
  if (relevantIds.length === 0 && relevance === undefined) return EMPTY;
  const relevant = new Set<string>();
  for (let i = 0; i < relevantIds.length; i++) relevant.add(relevantIds[i] as string);
  const gains = new Map<string, number>();
  if (relevance !== undefined) {
    for (const id of Object.keys(relevance)) {
      const grade = relevance[id] as number;
      if (grade > 0) gains.set(id, grade);
    }
    for (const id of relevant) if (!Object.hasOwn(relevance, id)) gains.set(id, 1);
  } else {
    for (const id of relevant) gains.set(id, 1);
  }
  const idealGains = Array.from(gains.values()).sort(descending);
  return { relevant, gains, idealGains };
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
export function rankingIds(
  retrieved: readonly RetrievedChunk[],
  level: MatchLevel,
): readonly string[] {
  const cache = level === "chunk" ? chunkRankingCache : documentRankingCache;
  let ids = cache.get(retrieved);
  if (ids === undefined) {
    ids = level === "chunk" ? chunkIds(retrieved) : documentIds(retrieved);
    cache.set(retrieved, ids);
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
