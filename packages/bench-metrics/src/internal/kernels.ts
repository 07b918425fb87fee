const ownEnumerable = Object.prototype.propertyIsEnumerable;

/**
 * Whether `relevance` grades `id`: an own enumerable property, as `Object.keys` (which the ideal
 * ranking reads) and JSON see it. A non-enumerable or inherited value is no grade, on both sides
 * of nDCG's ratio, so it cannot push a score above 1.
 */
export const isGraded = (relevance: object, id: string): boolean =>
  ownEnumerable.call(relevance, id);

/**
 * Pure retrieval kernels: numbers from a ranking and its judgments, nothing else.
 *
 * The metric classes use the flat kernels (`…OfFlags`, `ndcgOfGains`): loops over a ranking
 * already joined with its judgments rank by rank (see `rankedOf` and `rankedGainsOf`), a 0/1
 * relevant flag and a gain per rank, with R, the number of relevant ids, passed alongside. The
 * Set-based kernels below them are the same definitions over a de-duplicated ranking of ids and a
 * Set of relevant ids: the readable reference the flat ones are tested against. Both take
 * judgments with at least one relevant id (the metric classes return `null` before calling a
 * kernel otherwise); `bench/metrics.mjs` measures them.
 *
 * The definitions are trec_eval's (P, recall, success, recip_rank, map, map_cut, ndcg_cut,
 * Rprec); the trec_eval parity test checks them against its printed numbers.
 */

/** Relevant ranks among the first `k` of `n`: `relevant` holds a 0/1 flag per rank. */
export function hitsOfFlags(relevant: Uint8Array, n: number, k: number): number {
  const end = Math.min(n, k);
  let hits = 0;
  for (let i = 0; i < end; i++) hits += relevant[i] as number;
  return hits;
}

/** trec_eval `recall_k` over rank flags: relevant in the top k, divided by R. */
export function recallOfFlags(relevant: Uint8Array, n: number, r: number, k: number): number {
  return hitsOfFlags(relevant, n, k) / r;
}

/** trec_eval `P_k` over rank flags: relevant in the top k, divided by k. */
export function precisionOfFlags(relevant: Uint8Array, n: number, k: number): number {
  return hitsOfFlags(relevant, n, k) / k;
}

/** trec_eval `success_k` over rank flags: 1 when any relevant id is in the top k, else 0. */
export function hitRateOfFlags(relevant: Uint8Array, n: number, k: number): number {
  const end = Math.min(n, k);
  for (let i = 0; i < end; i++) if (relevant[i] === 1) return 1;
  return 0;
}

/** trec_eval `recip_rank` over rank flags, cut at `k` (`Infinity` for none). */
export function reciprocalRankOfFlags(relevant: Uint8Array, n: number, k: number): number {
  const end = Math.min(n, k);
  for (let i = 0; i < end; i++) if (relevant[i] === 1) return 1 / (i + 1);
  return 0;
}

/** trec_eval `map` / `map_cut_k` over rank flags (see `averagePrecision`). */
export function averagePrecisionOfFlags(
  relevant: Uint8Array,
  n: number,
  r: number,
  k: number,
): number {
  const end = Math.min(n, k);
  let hits = 0;
  let sum = 0;
  for (let i = 0; i < end; i++) {
    if (relevant[i] === 1) {
      hits++;
      sum += hits / (i + 1);
    }
  }
  return sum / r;
}

/** trec_eval `Rprec` over rank flags: relevant in the top R, divided by R. */
export function rPrecisionOfFlags(relevant: Uint8Array, n: number, r: number): number {
  return hitsOfFlags(relevant, n, r) / r;
}

/**
 * trec_eval `ndcg_cut_k` over per-rank gains (see `ndcgAt`): `gains` holds the gain of each of the
 * `n` ranks, `ideal` the ideal ranking's `m` positive gains sorted descending.
 */
export function ndcgOfGains(
  gains: Float64Array,
  n: number,
  ideal: Float64Array,
  m: number,
  k: number,
): number {
  const cut = Math.min(m, k);
  let best = 0;
  for (let i = 0; i < cut; i++) best += (ideal[i] as number) / discount(i);
  if (best <= 0) return 0;
  const end = Math.min(n, k);
  let dcg = 0;
  for (let i = 0; i < end; i++) {
    const gain = gains[i] as number;
    if (gain > 0) dcg += gain / discount(i);
  }
  // Grades near Number.MAX_VALUE overflow the sums (a 0 or NaN score): nDCG does not change when
  // every gain is scaled alike, so score them again divided by the power of two nearest below the
  // largest, which is exact (but for a grade that becomes subnormal, too small to count).
  if (best === Number.POSITIVE_INFINITY || dcg === Number.POSITIVE_INFINITY) {
    const scale = 2 ** Math.floor(Math.log2(ideal[0] as number));
    return ndcgOfScaledGains(gains, end, ideal, cut, scale);
  }
  return dcg / best;
}

/** {@link ndcgOfGains} over the first `end` ranks and `cut` ideal gains, each divided by `scale`. */
function ndcgOfScaledGains(
  gains: Float64Array,
  end: number,
  ideal: Float64Array,
  cut: number,
  scale: number,
): number {
  let best = 0;
  for (let i = 0; i < cut; i++) best += (ideal[i] as number) / scale / discount(i);
  let dcg = 0;
  for (let i = 0; i < end; i++) {
    const gain = gains[i] as number;
    if (gain > 0) dcg += gain / scale / discount(i);
  }
  return dcg / best;
}

/** Binary and graded judgments of one sample as a Set and a Map, for the Set-based kernels. */
export interface Judgments {
  /** Ids that count as relevant for binary measures. Its size is R. */
  readonly relevant: ReadonlySet<string>;
  /** Positive gains for nDCG: id → grade (> 0). Ids absent here have gain 0. */
  readonly gains: ReadonlyMap<string, number>;
  /** Every positive gain, sorted descending: the ideal ranking's gains. */
  readonly idealGains: readonly number[];
}

/** Relevant ids among the first `k` ranks. */
export function hitsAt(
  ranked: readonly string[],
  relevant: ReadonlySet<string>,
  k: number,
): number {
  const n = Math.min(ranked.length, k);
  let hits = 0;
  for (let i = 0; i < n; i++) if (relevant.has(ranked[i] as string)) hits++;
  return hits;
}

/** trec_eval `recall_k`: relevant in the top k, divided by R. */
export function recallAt(
  ranked: readonly string[],
  relevant: ReadonlySet<string>,
  k: number,
): number {
  return hitsAt(ranked, relevant, k) / relevant.size;
}

/** trec_eval `P_k`: relevant in the top k, divided by k even when fewer were retrieved. */
export function precisionAt(
  ranked: readonly string[],
  relevant: ReadonlySet<string>,
  k: number,
): number {
  return hitsAt(ranked, relevant, k) / k;
}

/** trec_eval `success_k`: 1 when any relevant id is in the top k, else 0. */
export function hitRateAt(
  ranked: readonly string[],
  relevant: ReadonlySet<string>,
  k: number,
): number {
  const n = Math.min(ranked.length, k);
  for (let i = 0; i < n; i++) if (relevant.has(ranked[i] as string)) return 1;
  return 0;
}

/** trec_eval `recip_rank`, cut at `k` (`Infinity` for none): 1 / rank of the first relevant id. */
export function reciprocalRank(
  ranked: readonly string[],
  relevant: ReadonlySet<string>,
  k: number,
): number {
  const n = Math.min(ranked.length, k);
  for (let i = 0; i < n; i++) if (relevant.has(ranked[i] as string)) return 1 / (i + 1);
  return 0;
}

/**
 * trec_eval `map` / `map_cut_k`: the sum, over relevant ranks i ≤ k, of precision at i, divided
 * by R (relevant ids never retrieved contribute 0).
 */
export function averagePrecision(
  ranked: readonly string[],
  relevant: ReadonlySet<string>,
  k: number,
): number {
  const n = Math.min(ranked.length, k);
  let hits = 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    if (relevant.has(ranked[i] as string)) {
      hits++;
      sum += hits / (i + 1);
    }
  }
  return sum / relevant.size;
}

/** trec_eval `Rprec`: relevant in the top R, divided by R. */
export function rPrecision(ranked: readonly string[], relevant: ReadonlySet<string>): number {
  return hitsAt(ranked, relevant, relevant.size) / relevant.size;
}

// log2(i + 2) for ranks 1..DISCOUNT_CACHE, computed once: the nDCG inner loop then only divides.
const DISCOUNT_CACHE = 1024;
const DISCOUNTS: Float64Array = /* @__PURE__ */ makeDiscounts(DISCOUNT_CACHE);

function makeDiscounts(n: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.log2(i + 2);
  return out;
}

function discount(i: number): number {
  return i < DISCOUNT_CACHE ? (DISCOUNTS[i] as number) : Math.log2(i + 2);
}

/**
 * trec_eval `ndcg_cut_k`: DCG = Σ_{rank r ≤ k} gain_r / log2(r + 1), divided by the DCG of the
 * ideal ranking (every positive gain sorted descending, cut at k). 0 when the ideal DCG is 0.
 */
export function ndcgAt(
  ranked: readonly string[],
  gains: ReadonlyMap<string, number>,
  idealGains: readonly number[],
  k: number,
): number {
  const m = Math.min(idealGains.length, k);
  let ideal = 0;
  for (let i = 0; i < m; i++) ideal += (idealGains[i] as number) / discount(i);
  if (ideal <= 0) return 0;
  const n = Math.min(ranked.length, k);
  let dcg = 0;
  for (let i = 0; i < n; i++) {
    const gain = gains.get(ranked[i] as string);
    if (gain !== undefined) dcg += gain / discount(i);
  }
  return dcg / ideal;
}

/**
 * `ndcgAt` with the gains looked up per ranked id instead of held in a Map: a ranked id graded
 * in `relevance` gains its grade when > 0 (else nothing); an ungraded id gains 1 when relevant.
 * These are exactly `buildGains`'s gains, so the result equals `ndcgAt` with them.
 */
export function ndcgGraded(
  ranked: readonly string[],
  relevance: Readonly<Record<string, number>> | undefined,
  relevant: ReadonlySet<string>,
  idealGains: readonly number[],
  k: number,
): number {
  const m = Math.min(idealGains.length, k);
  let ideal = 0;
  for (let i = 0; i < m; i++) ideal += (idealGains[i] as number) / discount(i);
  if (ideal <= 0) return 0;
  const n = Math.min(ranked.length, k);
  let dcg = 0;
  for (let i = 0; i < n; i++) {
    const id = ranked[i] as string;
    let gain = 0;
    if (relevance !== undefined && isGraded(relevance, id)) gain = relevance[id] as number;
    else if (relevant.has(id)) gain = 1;
    if (gain > 0) dcg += gain / discount(i);
  }
  return dcg / ideal;
}
