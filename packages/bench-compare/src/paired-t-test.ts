import { ConfigurationError } from "@fastrag/bench-core";
import tCdf from "@stdlib/stats-base-dists-t-cdf";
import { pairedDifferences } from "./internal/paired-differences.js";
import { pairScale, scaled } from "./internal/scale.js";
import { finiteArray } from "./internal/validate.js";

/** Outcome of {@link pairedTTest}. */
export interface PairedTTestResult {
  /** t statistic of the mean difference `a − b`. */
  readonly t: number;
  /** Degrees of freedom, `n − 1`. */
  readonly df: number;
  /** Two-sided p-value from Student's t distribution (`@stdlib/stats-base-dists-t-cdf`). */
  readonly p: number;
  /**
   * Mean of `a[i] − b[i]` (a difference within rounding counted as 0), from their exact sum
   * rounded once: exactly 0 when the runs hold the same scores however paired, and of the true
   * sign otherwise (0 when the sum is only rounding noise of the scores).
   */
  readonly meanDiff: number;
  /** Number of pairs. */
  readonly n: number;
}

/**
 * Paired two-sided Student t-test on `a[i] − b[i]` (R's `t.test(a, b, paired = TRUE)`, SciPy's
 * `ttest_rel`). The t distribution comes from a maintained statistics package, never a
 * hand-written CDF.
 *
 * A difference within floating-point rounding of the scores (1e-12 of the larger score, or of
 * the largest |score| of either run, as `check()` and `diff()` decide equality) counts as 0, so
 * runs equal but for rounding (`0.1 + 0.2` against `0.3`) are identical runs.
 *
 * Degenerate cases, decided rather than left to NaN: when every difference is identical the
 * standard error is 0, so `t = 0, p = 1, meanDiff = 0` if that difference is 0 (identical runs)
 * and `t = ±Infinity, p = 0` otherwise.
 *
 * @throws {ConfigurationError} when the arrays differ in length, hold fewer than 2 pairs, or hold
 * a non-finite number.
 * @example
 * ```ts
 * pairedTTest([0.7, -1.6, -0.2], [1.9, 0.8, 1.1]); // { t, df: 2, p, meanDiff, n: 3 }
 * ```
 */
export function pairedTTest(a: ArrayLike<number>, b: ArrayLike<number>): PairedTTestResult {
  const x = finiteArray(a, "pairedTTest: a");
  const y = finiteArray(b, "pairedTTest: b");
  if (x.length !== y.length) {
    throw new ConfigurationError(
      `pairedTTest: a paired test needs arrays of equal length, found ${x.length} and ${y.length}`,
      { kind: "invalid-input" },
    );
  }
  const n = x.length;
  if (n < 2)
    throw new ConfigurationError(`pairedTTest: expected at least 2 pairs, found ${n}`, {
      kind: "invalid-input",
    });
  // Scores near the largest double would overflow their differences: work in scaled units.
  const scale = pairScale(x, y);
  if (scale !== 1) {
    const result = pairedTTest(scaled(x, scale), scaled(y, scale));
    return { ...result, meanDiff: result.meanDiff / scale };
  }
  // A difference that is only rounding noise of the scores counts as 0 (0.1 + 0.2 against 0.3);
  // the mean is the exact sum of the differences, rounded once (0 for identical runs).
  const { d, sum } = pairedDifferences(x, y);
  const mean = sum / n;
  let sq = 0;
  for (let i = 0; i < n; i++) {
    const e = (d[i] as number) - mean;
    sq += e * e;
  }
  const df = n - 1;
  const se = Math.sqrt(sq / df / n);
  // Relative to the differences' scale, an se this small is rounding noise of identical values.
  if (se === 0 || se <= Math.abs(mean) * 1e-14) {
    if (mean === 0) return { t: 0, df, p: 1, meanDiff: 0, n };
    return { t: mean > 0 ? Infinity : -Infinity, df, p: 0, meanDiff: mean, n };
  }
  const t = mean / se;
  // 2·F(−|t|) keeps precision in the tail, where 1 − F(|t|) would cancel to 0.
  const p = Math.min(1, 2 * tCdf(-Math.abs(t), df));
  return { t, df, p, meanDiff: mean, n };
}
