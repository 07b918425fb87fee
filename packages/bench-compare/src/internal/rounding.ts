/**
 * The one notion of "equal up to floating-point rounding" shared by `check()`, the paired tests
 * (`pairedTTest`, `randomizationTest`, and so the table's significance marks) and the per-sample
 * `diff()` (and so the HTML report's diff and `fastrag-bench diff --fail-on-regression`).
 *
 * Two numbers that are mathematically equal can come out of floating point an ulp or two apart:
 * `0.1 + 0.2` is 0.30000000000000004, not 0.3, and `-0.1 - 0.2 + 0.3` is 5.55e-17, not 0. Such
 * noise is a few 1e-16 of the magnitudes it was computed from. So two values count as equal when
 * they differ by at most {@link ROUNDING_TOLERANCE} (1e-12) of the larger of the two, or by at
 * most {@link NEAR_ZERO_TOLERANCE} (1e-14) of the `scale` of the data they come from (the largest
 * |score| of the metric): the latter covers a value that should be 0 and came out as a rounding
 * remainder of the other scores. That floor is kept small on purpose: one huge score in a run
 * (1e13 beside small integers, or 0.9 beside likelihoods of 1e-13) must not swallow the real
 * differences of all the other samples, which a floor of 1e-12 of the scale did. Both bounds are
 * relative, never a fixed absolute number, so a metric measured in small units (1e-20 per query)
 * keeps its real differences, and scaling every score by one factor never changes the verdict. */

/** Relative tolerance of "equal up to rounding": 1e-12 of the largest magnitude involved. */
export const ROUNDING_TOLERANCE = 1e-12;

/**
 * Tolerance of "equal up to rounding" near 0: 1e-14 of the largest |score| of the data, about 45
 * ulps of it (a score computed from a dozen terms of that size is off by a few).
 */
export const NEAR_ZERO_TOLERANCE = 1e-14;

/**
 * How far apart two values may be and still count as equal up to rounding, given the largest
 * magnitude involved (the values themselves, or the scale of the data they come from).
 */
export function roundingSlack(magnitude: number): number {
  return Math.abs(magnitude) * ROUNDING_TOLERANCE;
}

/**
 * Whether `a` and `b` are equal up to floating-point rounding: `|a − b| ≤ max(1e-12 × max(|a|,
 * |b|), 1e-14 × scale)`, with `scale` the largest |value| of the data they come from (0 when
 * unknown). Two values that are `===` always are; a difference that overflows to ±∞ never is.
 */
export function equalUpToRounding(a: number, b: number, scale = 0): boolean {
  const d = a - b;
  if (d === 0) return true;
  return (
    Math.abs(d) <=
    Math.max(Math.max(Math.abs(a), Math.abs(b)) * ROUNDING_TOLERANCE, scale * NEAR_ZERO_TOLERANCE)
  );
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
