import type { DistributionSummary } from "./types.js";

/**
 * Percentile `q` ∈ [0, 100] of ascending-sorted values, interpolating linearly between the closest
 * ranks (numpy's default, `method="linear"`). `null` for an empty array.
 */
export function percentile(sorted: ArrayLike<number>, q: number): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  // numpy divides q by 100 first, then multiplies: (n - 1) * (q / 100), rounded as it rounds.
  const pos = (n - 1) * (q / 100);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] as number;
  if (lo === hi) return a;
  const b = sorted[hi] as number;
  // numpy's _lerp, operation for operation, so results agree to the last bit.
  const t = pos - lo;
  const diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

const EMPTY: DistributionSummary = Object.freeze({
  count: 0,
  mean: null,
  std: null,
  min: null,
  p50: null,
  p90: null,
  p95: null,
  p99: null,
  max: null,
});

/**
 * Summarizes the scores of one metric. `null` entries are left out (not scorable is not zero).
 *
 * `std` is the population standard deviation (ddof = 0), as numpy's `std` computes by default;
 * the mean uses a compensated (Neumaier) sum so a long run's mean does not drift.
 */
export function summarize(scores: Iterable<number | null>): DistributionSummary {
  let values: Float64Array;
  let n = 0;
  if (Array.isArray(scores)) {
    // An index loop into a typed array (docs/decisions/core-hot-paths.md).
    const list = scores as readonly (number | null)[];
    values = new Float64Array(list.length);
    for (let i = 0; i < list.length; i++) {
      const s = list[i];
      if (s !== null && s !== undefined) values[n++] = s;
    }
  } else {
    const list: number[] = [];
    for (const s of scores) if (s !== null) list.push(s);
    values = Float64Array.from(list);
    n = list.length;
  }
  return summarizeValues(n === values.length ? values : values.subarray(0, n));
}

/**
 * {@link summarize} of numbers already gathered (no nulls), sorting `values` in place: the
 * runner's and a loaded result's summaries fill one typed array per metric and call this.
 */
export function summarizeValues(values: Float64Array): DistributionSummary {
  const n = values.length;
  if (n === 0) return EMPTY;
  const sorted = values.sort();
  const min = sorted[0] as number;
  const max = sorted[n - 1] as number;
  const scale = scaleOf(Math.max(Math.abs(min), Math.abs(max)));
  if (scale !== 1) return unscaled(summarizeValues(sorted.map((v) => v * scale)), scale, min, max);
  const mean = clampedMean(sorted, min, max);
  let sq = 0;
  for (let i = 0; i < n; i++) {
    const d = (sorted[i] as number) - mean;
    sq += d * d;
  }
  return {
    count: n,
    mean,
    std: Math.sqrt(sq / n),
    min,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max,
  };
}

/**
 * The mean {@link summarizeValues} gives, bit for bit, without the spread and percentiles (sorting
 * `values` in place, as it does): a comparison's table recomputes many means over common samples.
 */
export function meanOfValues(values: Float64Array): number | null {
  const n = values.length;
  if (n === 0) return null;
  const counted = countedMean(values);
  if (counted !== undefined) return counted;
  const sorted = values.sort();
  const min = sorted[0] as number;
  const max = sorted[n - 1] as number;
  const scale = scaleOf(Math.max(Math.abs(min), Math.abs(max)));
  if (scale === 1) return clampedMean(sorted, min, max);
  const inner = meanOfValues(sorted.map((v) => v * scale)) as number;
  return Math.min(max, Math.max(min, inner / scale));
}

/** Distinct values above which {@link countedMean} gives up (sorting is then cheaper). */
const MAX_COUNTED = 256;
/** Slots of the counting table: a power of two, at most half full. */
const SLOTS = 4 * MAX_COUNTED;
// The counting table, reused by every call (nothing in a call can re-enter it): each slot's value
// and count, and the slots in use, to clear them afterwards. A double's bits hash it.
const slotValue = new Float64Array(SLOTS);
const slotCount = new Int32Array(SLOTS);
const usedSlots = new Int32Array(MAX_COUNTED);
const bits = new Float64Array(1);
const bitWords = new Int32Array(bits.buffer);

/**
 * {@link meanOfValues} of scores that take few distinct values (most metrics' in [0, 1]) without
 * sorting them: the distinct values are counted, then added in ascending order, each as many
 * times as it occurs, which is the very sequence of additions over the sorted values. `undefined`
 * (sort instead) for more than {@link MAX_COUNTED} distinct values, a NaN or a −0 (the table
 * compares with `===`, which does not tell −0 from 0; the sort does), or values that need scaling.
 */
function countedMean(values: Float64Array): number | undefined {
  const n = values.length;
  let used = 0;
  let ok = true;
  for (let i = 0; i < n && ok; i++) {
    const v = values[i] as number;
    if (v === 0 ? Object.is(v, -0) : Number.isNaN(v)) {
      ok = false;
      break;
    }
    bits[0] = v;
    let slot =
      (Math.imul((bitWords[0] as number) ^ (bitWords[1] as number), 0x9e3779b1) >>> 22) &
      (SLOTS - 1);
    for (;;) {
      const c = slotCount[slot] as number;
      if (c === 0) {
        if (used === MAX_COUNTED) {
          ok = false;
          break;
        }
        slotValue[slot] = v;
        slotCount[slot] = 1;
        usedSlots[used++] = slot;
        break;
      }
      if (slotValue[slot] === v) {
        slotCount[slot] = c + 1;
        break;
      }
      slot = (slot + 1) & (SLOTS - 1);
    }
  }
  const distinct = new Float64Array(used);
  const counts = new Int32Array(used);
  for (let j = 0; j < used; j++) {
    const slot = usedSlots[j] as number;
    distinct[j] = slotValue[slot] as number;
    counts[j] = slotCount[slot] as number;
    slotCount[slot] = 0;
  }
  if (!ok) return undefined;
  // Ascending, each value with its count (an insertion sort: at most 256 values).
  for (let j = 1; j < used; j++) {
    const v = distinct[j] as number;
    const c = counts[j] as number;
    let k = j - 1;
    while (k >= 0 && (distinct[k] as number) > v) {
      distinct[k + 1] = distinct[k] as number;
      counts[k + 1] = counts[k] as number;
      k--;
    }
    distinct[k + 1] = v;
    counts[k + 1] = c;
  }
  const min = distinct[0] as number;
  const max = distinct[used - 1] as number;
  if (scaleOf(Math.max(Math.abs(min), Math.abs(max))) !== 1) return undefined;
  let sum = 0;
  let c = 0;
  for (let j = 0; j < used; j++) {
    const v = distinct[j] as number;
    const abs = Math.abs(v);
    // kahanSum's step, repeated: the same operations on the same operands, in the same order.
    for (let k = counts[j] as number; k > 0; k--) {
      const t = sum + v;
      c += Math.abs(sum) >= abs ? sum - t + v : v - t + sum;
      sum = t;
    }
  }
  return Math.min(max, Math.max(min, (Number.isFinite(sum) ? sum + c : sum) / n));
}

/** The compensated mean of ascending `sorted`, clamped to [min, max]. */
function clampedMean(sorted: Float64Array, min: number, max: number): number {
  // Rounding can put the mean of identical values one ulp outside [min, max]; clamp it back.
  return Math.min(max, Math.max(min, kahanSum(sorted) / sorted.length));
}

/**
 * A power of two that brings `max` near 1 when it lies beyond 2^±500, else 1. Scaling by a power
 * of two is exact, so ordinary scores are summarized as before, bit for bit, while sums and
 * squares of values near the largest double no longer overflow (a NaN mean, an infinite
 * standard deviation or percentile), nor squares of tiny ones underflow.
 */
function scaleOf(max: number): number {
  // NaN and ±∞ are not scaled (no factor brings them near 1): they make the mean NaN or ±∞, as
  // numpy's does, rather than recursing without end.
  if (max === 0 || !Number.isFinite(max) || (max <= 2 ** 500 && max >= 2 ** -500)) return 1;
  const e = Math.floor(Math.log2(max));
  return 2 ** Math.min(1000, Math.max(-1000, -e));
}

function unscaled(
  s: DistributionSummary,
  scale: number,
  min: number,
  max: number,
): DistributionSummary {
  const back = (v: number | null) => (v === null ? null : v / scale);
  return {
    count: s.count,
    mean: Math.min(max, Math.max(min, (s.mean as number) / scale)),
    std: back(s.std),
    min,
    p50: back(s.p50),
    p90: back(s.p90),
    p95: back(s.p95),
    p99: back(s.p99),
    max,
  };
}

function kahanSum(values: ArrayLike<number>): number {
  let sum = 0;
  let c = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    const t = sum + v;
    c += Math.abs(sum) >= Math.abs(v) ? sum - t + v : v - t + sum;
    sum = t;
  }
  // Past ±∞ the compensation is NaN: the sum itself is the answer (NaN stays NaN).
  return Number.isFinite(sum) ? sum + c : sum;
}
