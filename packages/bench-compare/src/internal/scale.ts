import { largestMagnitude } from "./rounding.js";

/**
 * A power of two that brings the largest |value| in `x` and `y` near 1 when it lies beyond
 * 2^±500, else 1. The paired tests are invariant under scaling both samples by one positive
 * factor, and scaling by a power of two is exact, so ordinary scores give the same bits as
 * before, while differences of values near the largest double no longer overflow to ±∞ (a NaN
 * mean, a "significant" p) and squares of tiny differences no longer underflow to 0.
 */
export function pairScale(x: Float64Array, y: Float64Array): number {
  const max = largestMagnitude(x, y);
  if (max === 0 || (max <= 2 ** 500 && max >= 2 ** -500)) return 1;
  // 2^-e with e the exponent of `max`, kept within ±1000 so the factor itself is finite and
  // non-zero (max·2^-1000 is still ≤ 2^24, and ≥ 2^-74 for the smallest subnormal).
  const e = Math.floor(Math.log2(max));
  return 2 ** Math.min(1000, Math.max(-1000, -e));
}

/** `values` times `factor`, as a new array (the caller's stays untouched). */
export function scaled(values: Float64Array, factor: number): Float64Array {
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = (values[i] as number) * factor;
  return out;
}
