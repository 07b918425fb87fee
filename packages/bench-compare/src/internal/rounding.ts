/**
 * The one notion of "equal up to floating-point rounding" shared by `check()`, the paired tests
 * (`pairedTTest`, `randomizationTest`, and so the table's significance marks) and the per-sample
 * `diff()` (and so the HTML report's diff and `fastrag-bench diff --fail-on-regression`).
 *
 * Two numbers that are mathematically equal can come out of floating point an ulp or two apart:
 * `0.1 + 0.2` is 0.30000000000000004, not 0.3, and `-0.1 - 0.2 + 0.3` is 5.55e-17, not 0. Such
 * noise is at most a few 1e-16 of the magnitudes it was computed from; any real difference between
 * two scores (a recall, an NDCG, a latency in ms) is many orders of magnitude larger. So two
 * values count as equal when they differ by at most {@link ROUNDING_TOLERANCE} (1e-12) of the
 * largest magnitude involved: their own, or the `scale` of the data they come from (the largest
 * |score| of the metric), which is the floor for values near 0. The floor is relative, never a
 * fixed absolute number, so a metric measured in small units (1e-20 per query) keeps its real
 * differences, and scaling every score by one factor never changes the verdict.
 */

/** Relative tolerance of "equal up to rounding": 1e-12 of the largest magnitude involved. */
export const ROUNDING_TOLERANCE = 1e-12;

/**
 * How far apart two values may be and still count as equal up to rounding, given the largest
 * magnitude involved (the values themselves, or the scale of the data they come from).
 */
export function roundingSlack(magnitude: number): number {
  return Math.abs(magnitude) * ROUNDING_TOLERANCE;
}

/**
 * Whether `a` and `b` are equal up to floating-point rounding: `|a − b| ≤ 1e-12 × max(|a|, |b|,
 * scale)`, with `scale` the largest |value| of the data they come from (0 when unknown). Two
 * values that are `===` always are; a difference that overflows to ±∞ never is.
 */
export function equalUpToRounding(a: number, b: number, scale = 0): boolean {
  const d = a - b;
  if (d === 0) return true;
  return Math.abs(d) <= Math.max(Math.abs(a), Math.abs(b), scale) * ROUNDING_TOLERANCE;
}

/** The largest |value| in `x` and `y` (0 for empty arrays): the `scale` of paired scores. */
export function largestMagnitude(x: ArrayLike<number>, y: ArrayLike<number>): number {
  let max = 0;
  for (let i = 0; i < x.length; i++) {
    const v = Math.abs(x[i] as number);
    if (v > max) max = v;
  }
  for (let i = 0; i < y.length; i++) {
    const v = Math.abs(y[i] as number);
    if (v > max) max = v;
  }
  return max;
}
