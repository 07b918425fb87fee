import type { MetricInput } from "@fastrag/bench-core";
import { dedupe, HASH_LIMIT, hashString, quickHash, rankOf, SCAN_LIMIT } from "./dedupe.js";
import { malformed } from "./input.js";
import { isGraded } from "./kernels.js";
/** What retrieval metrics match: chunk ids, or the chunks' document ids. */
export type MatchLevel = "chunk" | "document";

/**
 * One sample's ranking at one match level, joined with its judgments rank by rank, so that every
 * metric is a flat numeric loop. Only the first `length` entries of the arrays belong to the
 * sample: they are buffers reused from sample to sample, valid until the next call with another
 * input. Never keep one.
 */
export interface RankedJudgments {
  /** The number of ranks once de-duplicated. */
  readonly length: number;
  /** The ranked ids: in the order returned, each id once at its first rank. */
  readonly ids: readonly string[];
  /** 1 where the id at that rank is relevant (in `relevantIds`), else 0. */
  readonly relevant: Uint8Array;
}

/** {@link RankedJudgments} with nDCG's gain at each of the first ranks. */
export interface RankedGains extends RankedJudgments {
  /**
   * The gain at each rank, where only positive values count: the id's grade when `relevance` has
   * it as an own property; else 1 when the id is relevant, 0 when not. Filled for the first
   * `min(length, depth)` ranks, `depth` being the largest one asked for.
   */
  readonly gains: Float64Array;
}

/** The ideal ranking's gains of a sample: entries 0..length-1 of a reused buffer. */
export interface IdealGains {
  /** Every positive gain, sorted descending. */
  readonly gains: Float64Array;
  readonly length: number;
}

/** nDCG's view of a sample's judgments, as the reference builders below give it. */
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
// WeakMaps it costs no per-sample entry for the GC to trace. The slots' arrays are buffers reused
// from sample to sample, so preparing one allocates nothing but what Object.keys returns. A slot
// is marked with its input only once filled: a throw leaves it empty, never stale.
//
// A hit checks the identity of the input, its arrays and its relevance record, never their
// contents (reading them all again would cost what preparing does): an input whose arrays or
// record were changed in place scores as before. The README states it ("one input object, one
// state"): a caller scores a new object (`{ ...input }`) instead.
//
// Every function takes the asking metric's name (`metric`) for its errors: preparing a sample
// checks the elements it walks anyway (relevant ids, chunks, grades), so a malformed input called
// directly is a ConfigurationError naming the metric and the field (see `input.ts`).

// ---- Relevant ids --------------------------------------------------------------------------

let relevantInput: object | undefined;
// What the slot was built from besides the input: a caller outside the runner may reuse one input
// object and swap its sample (or the sample's ids) between calls.
let relevantIdsRef: object | undefined;
let relevantCount = 0;
/** The distinct relevant ids, in first-occurrence order: entries 0..relevantCount-1. */
export const relevantDistinct: string[] = [];
/** Their hashes and mask, when there were at most SCAN_LIMIT ids; else `relevantLookup`. */
const relevantHashes = new Int32Array(SCAN_LIMIT);
let relevantMask = 0;
let relevantLookup: Set<string> | undefined;

/**
 * R, the number of distinct relevant ids: membership in `relevantIds` is what counts as relevant
 * for binary measures. The dataset loader decides the threshold (trec_eval's `-l`), so a graded
 * sample's `relevantIds` may exclude low grades.
 *
 * @throws {ConfigurationError} when a relevant id is not a string.
 */
export function relevantCountOf(input: MetricInput, metric: string): number {
  if (input !== relevantInput || input.sample.relevantIds !== relevantIdsRef)
    prepareRelevant(input, metric);
  return relevantCount;
}

function prepareRelevant(input: MetricInput, metric: string): void {
  relevantInput = undefined;
  const ids = input.sample.relevantIds;
  const n = ids.length;
  const distinct = relevantDistinct;
  let r = 0;
  let mask = 0;
  let lookup: Set<string> | undefined;
  if (n <= SCAN_LIMIT) {
    const hashes = relevantHashes;
    for (let i = 0; i < n; i++) {
      const id = ids[i] as string;
      if (typeof id !== "string") throw badRelevantId(metric, ids, i);
      const h = quickHash(id);
      const bit = 1 << h;
      let j = r;
      if ((mask & bit) !== 0) {
        j = 0;
        while (j < r && (hashes[j] !== h || distinct[j] !== id)) j++;
      }
      if (j === r) {
        mask |= bit;
        hashes[r] = h;
        distinct[r++] = id;
      }
    }
  } else {
    lookup = new Set();
    for (let i = 0; i < n; i++) {
      const id = ids[i] as string;
      if (typeof id !== "string") throw badRelevantId(metric, ids, i);
      if (lookup.has(id)) continue;
      lookup.add(id);
      distinct[r++] = id;
    }
  }
  dropStaleIds(distinct, r);
  relevantCount = r;
  relevantMask = mask;
  relevantLookup = lookup;
  relevantInput = input;
  relevantIdsRef = ids;
}

function badRelevantId(metric: string, ids: readonly unknown[], i: number): Error {
  return malformed(metric, `sample.relevantIds[${i}]`, "a string", ids[i]);
}

// ---- Rankings --------------------------------------------------------------------------------

class RankSlot implements RankedGains {
  /** The input whose ranking and flags the slot holds, and what they were built from. */
  input: object | undefined = undefined;
  retrieved: object | undefined = undefined;
  relevantIds: object | undefined = undefined;
  relevance: object | undefined = undefined;
  /** The input whose gains the slot holds (then `input` too), and for how many ranks. */
  gainsInput: object | undefined = undefined;
  gainsLength = 0;
  length = 0;
  readonly ids: string[] = [];
  /** The ids' hashes, when dedupe compared them (at most SCAN_LIMIT chunks). */
  readonly hashes: Int32Array = new Int32Array(SCAN_LIMIT);
  relevant: Uint8Array = new Uint8Array(64);
  gains: Float64Array = new Float64Array(64);
}

const chunkSlot = new RankSlot();
const documentSlot = new RankSlot();

/**
 * The ranking a retrieval metric scores, with a relevant flag per rank: in the order returned,
 * each id kept once at its first position (later ones move up). At document level the ids are the
 * chunks' `documentId`s, so a document ranks where its first chunk does.
 *
 * @throws {MetricUnavailableError} at document level when a chunk has no `documentId`.
 * @throws {ConfigurationError} when a chunk is not an object, or (at chunk level) its `id` is not
 *   a string.
 */
export function rankedOf(input: MetricInput, level: MatchLevel, metric: string): RankedJudgments {
  const slot = level === "chunk" ? chunkSlot : documentSlot;
  if (!slotIsFor(slot, input)) prepareRanking(input, level === "document", slot, metric);
  return slot;
}

/** Whether `slot` holds `input`'s ranking, built from its current ranking and relevant ids. */
function slotIsFor(slot: RankSlot, input: MetricInput): boolean {
  return (
    input === slot.input &&
    input.retrieved === slot.retrieved &&
    input.sample.relevantIds === slot.relevantIds
  );
}

/**
 * {@link rankedOf} with the gain of each of the first `depth` ranks, for nDCG@depth: a deep ranking
 * is only looked up as far as some nDCG cuts it.
 *
 * @throws {MetricUnavailableError} at document level when a chunk has no `documentId`.
 * @throws {ConfigurationError} as {@link rankedOf}.
 */
export function rankedGainsOf(
  input: MetricInput,
  level: MatchLevel,
  depth: number,
  metric: string,
): RankedGains {
  const slot = level === "chunk" ? chunkSlot : documentSlot;
  if (!slotIsFor(slot, input) || input.sample.relevance !== slot.relevance) {
    prepareRanking(input, level === "document", slot, metric);
  }
  if (input !== slot.gainsInput) {
    slot.gainsLength = 0;
    slot.gainsInput = input;
  }
  const end = Math.min(slot.length, depth);
  if (slot.gainsLength < end) prepareGains(input, slot, end);
  return slot;
}

/** The ranked ids alone, as a new array (see {@link rankedOf}). */
export function rankingIds(
  input: MetricInput,
  level: MatchLevel,
  metric: string,
): readonly string[] {
  const ranked = rankedOf(input, level, metric);
  return ranked.ids.slice(0, ranked.length);
}

function prepareRanking(
  input: MetricInput,
  byDocument: boolean,
  slot: RankSlot,
  metric: string,
): void {
  slot.input = undefined;
  slot.gainsInput = undefined;
  const retrieved = input.retrieved;
  const total = retrieved.length;
  const ids = slot.ids;
  const n = dedupe(retrieved, byDocument, ids, slot.hashes, metric);
  const r = relevantCountOf(input, metric);
  if (slot.relevant.length < n) slot.relevant = new Uint8Array(capacity(n));
  const flags = slot.relevant;
  // Which of dedupe's paths ran decides what it left behind: hashes, or a table.
  if (total <= SCAN_LIMIT && relevantLookup === undefined) {
    // Both short: find each ranked id among the relevant ones.
    const distinct = relevantDistinct;
    const hashes = relevantHashes;
    const mask = relevantMask;
    const rankHashes = slot.hashes;
    for (let i = 0; i < n; i++) {
      const h = rankHashes[i] as number;
      let flag = 0;
      if ((mask & (1 << h)) !== 0) {
        const id = ids[i] as string;
        for (let j = 0; j < r; j++) {
          if (hashes[j] === h && distinct[j] === id) {
            flag = 1;
            break;
          }
        }
      }
      flags[i] = flag;
    }
  } else if (total > SCAN_LIMIT && total <= HASH_LIMIT) {
    // dedupe left the ranking's id → rank table behind: look each relevant id up in it.
    flags.fill(0, 0, n);
    const distinct = relevantDistinct;
    for (let j = 0; j < r; j++) {
      const id = distinct[j] as string;
      const at = rankOf(ids, id, hashString(id));
      if (at >= 0) flags[at] = 1;
    }
  } else {
    const lookup = relevantLookup ?? new Set(relevantDistinct.slice(0, r));
    for (let i = 0; i < n; i++) flags[i] = lookup.has(ids[i] as string) ? 1 : 0;
  }
  dropStaleIds(ids, n);
  slot.length = n;
  slot.input = input;
  slot.retrieved = retrieved;
  slot.relevantIds = input.sample.relevantIds;
  slot.relevance = input.sample.relevance;
}

/** Fills the gains of ranks `slot.gainsLength` to `end` - 1. */
function prepareGains(input: MetricInput, slot: RankSlot, end: number): void {
  const start = slot.gainsLength;
  if (slot.gains.length < end) {
    const grown = new Float64Array(capacity(end));
    grown.set(slot.gains.subarray(0, start));
    slot.gains = grown;
  }
  const gains = slot.gains;
  const flags = slot.relevant;
  const relevance = input.sample.relevance;
  if (relevance === undefined) {
    for (let i = start; i < end; i++) gains[i] = flags[i] as number;
  } else {
    const ids = slot.ids;
    for (let i = start; i < end; i++) {
      const id = ids[i] as string;
      // One look-up for most ids, and `isGraded` only where the gain depends on it: a positive
      // number may be inherited, a relevant id's missing grade gains 1, and a value that is no
      // number (`relevance.toString`, `relevance.__proto__`) is never compared unless it is own.
      const grade: unknown = relevance[id];
      let gain = 0;
      if (typeof grade === "number") {
        if (grade > 0) gain = isGraded(relevance, id) ? grade : (flags[i] as number);
        else if (flags[i] === 1 && !isGraded(relevance, id)) gain = 1;
      } else if (grade === undefined) {
        if (flags[i] === 1 && !isGraded(relevance, id)) gain = 1;
      } else {
        gain = isGraded(relevance, id) ? (grade as number) : (flags[i] as number);
      }
      gains[i] = gain;
    }
  }
  slot.gainsLength = end;
}

/** Lets a reused buffer drop what a much longer ranking left in it, so it keeps no ids alive. */
function dropStaleIds(buffer: string[], used: number): void {
  if (buffer.length > 1024 && buffer.length > 4 * used) buffer.length = used;
}

/** A buffer size for n entries: a power of two, at least 64. */
export function capacity(n: number): number {
  let size = 64;
  while (size < n) size *= 2;
  return size;
}
