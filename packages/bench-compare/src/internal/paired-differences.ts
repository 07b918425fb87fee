import { equalUpToRounding, largestMagnitude, ROUNDING_TOLERANCE } from "./rounding.js";

/** The paired differences behind both paired tests. */
export interface PairedDifferences {
  /** `x[i] − y[i]` per pair, 0 for a pair equal up to rounding (see `rounding.ts`). */
  readonly d: Float64Array;
  /** Pairs whose difference is not 0. */
  readonly nonzero: number;
  /**
   * `Σ (x[i] − y[i])` over the pairs that differ: summed exactly and rounded once, so its sign is
   * the sign of the true sum and two runs holding the same scores in another pairing sum to
   * exactly 0 (a naive sum of `0.1 − 0.7`, `0.7 − 0.2`, `0.2 − 0.1` gives −2.8e-17); and 0 when
   * the true sum is only rounding noise of the scores it came from (at most 1e-12 of their
   * sizes, as a single pair is judged), so `0.1 − 0.4` and `0.9 − 0.6` sum to 0 although the
   * doubles nearest 0.1 and 0.9 do not add up to exactly those nearest 0.4 and 0.6.
   */
  readonly sum: number;
}

/**
 * The paired differences `x[i] − y[i]` of two equal-length arrays of finite scores (scaled by the
 * caller so that no difference overflows), with the one sum both paired tests read their mean
 * difference from: `meanDiff = sum / n` is exactly 0 for identical runs, and has the right sign.
 */
export function pairedDifferences(x: Float64Array, y: Float64Array): PairedDifferences {
  const n = x.length;
  // A difference that is only rounding noise of the scores counts as 0 (0.1 + 0.2 against 0.3).
  const magnitude = largestMagnitude(x, y);
  const d = new Float64Array(n);
  const exact = new ExactSum();
  let nonzero = 0;
  let size = 0;
  for (let i = 0; i < n; i++) {
    const xi = x[i] as number;
    const yi = y[i] as number;
    if (equalUpToRounding(xi, yi, magnitude)) continue;
    d[i] = xi - yi;
    nonzero++;
    // x[i] and −y[i] rather than their rounded difference: the sum stays exact.
    exact.add(xi);
    exact.add(-yi);
    size += Math.max(Math.abs(xi), Math.abs(yi));
  }
  const total = exact.value();
  const sum = Math.abs(total) <= size * ROUNDING_TOLERANCE ? 0 : total;
  return { d, nonzero, sum };
}

/**
 * Exact summation of doubles (Shewchuk's non-overlapping partials, as Python's `math.fsum`):
 * the value is the true sum of everything added, rounded once to the nearest double. Addends
 * must be finite and their running sums must not overflow.
 */
class ExactSum {
  /**
   * Non-overlapping partials, increasing in magnitude, in `#p[0 … #n)`; their exact sum is the
   * running total. A typed array with a count rather than a `number[]` cut by `length = i` (why:
   * docs/decisions/compare-house.md).
   */
  #p = new Float64Array(8);
  #n = 0;

  add(value: number): void {
    const p = this.#p;
    const n = this.#n;
    let x = value;
    let i = 0;
    for (let j = 0; j < n; j++) {
      let y = p[j] as number;
      if (Math.abs(x) < Math.abs(y)) {
        const t = x;
        x = y;
        y = t;
      }
      // hi + lo is exactly x + y (Fast2Sum, |x| ≥ |y|).
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) p[i++] = lo;
      x = hi;
    }
    if (x !== 0) {
      if (i === p.length) {
        const grown = new Float64Array(2 * p.length);
        grown.set(p);
        this.#p = grown;
        grown[i++] = x;
      } else p[i++] = x;
    }
    this.#n = i;
  }

  /** The exact sum, correctly rounded (ties to even, across partials as CPython does). */
  value(): number {
    const p = this.#p;
    let k = this.#n;
    if (k === 0) return 0;
    let hi = p[--k] as number;
    let lo = 0;
    // Add from the top until a partial no longer fits exactly.
    while (k > 0) {
      const x = hi;
      const y = p[--k] as number;
      hi = x + y;
      lo = y - (hi - x);
      if (lo !== 0) break;
    }
    // Half-way cases: the partials below decide which way hi + lo rounds.
    const below = k > 0 ? (p[k - 1] as number) : 0;
    if ((lo < 0 && below < 0) || (lo > 0 && below > 0)) {
      const y = lo * 2;
      const x = hi + y;
      if (y === x - hi) hi = x;
    }
    return hi;
  }
}
