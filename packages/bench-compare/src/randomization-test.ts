import { ConfigurationError } from "@fastrag/bench-core";
import { pairedDifferences } from "./internal/paired-differences.js";
import { pairScale, scaled } from "./internal/scale.js";
import { countExtremeSignFlips } from "./internal/sign-flip.js";
import { expectInteger, expectOptions, expectSeed, finiteArray } from "./internal/validate.js";

/** Options of {@link randomizationTest}. */
export interface RandomizationOptions {
  /** Random sign assignments drawn: an integer in [1, 10⁸]. Default 10,000. */
  readonly permutations?: number;
  /** Seed of the generator: the same inputs and seed always give the same p. Default 0. */
  readonly seed?: number;
}

/** Outcome of {@link randomizationTest}. */
export interface RandomizationResult {
  /**
   * Two-sided p-value, `(extreme + 1) / (permutations + 1)`; exactly 1 when every pair ties
   * (within rounding).
   */
  readonly p: number;
  /**
   * Mean of `a[i] − b[i]` (a difference within rounding counted as 0), from their exact sum
   * rounded once: exactly 0 when the runs hold the same scores however paired, and of the true
   * sign otherwise (0 when the sum is only rounding noise of the scores).
   */
  readonly meanDiff: number;
  /** Draws whose |Σ signed difference| reached the observed one (not counting the +1). */
  readonly extreme: number;
  readonly permutations: number;
  /** Number of pairs. */
  readonly n: number;
}

/** Default number of random sign assignments. */
export const DEFAULT_PERMUTATIONS = 10_000;

/**
 * Most random sign assignments one test may draw: 10⁸. More cannot make `p` more accurate (its
 * Monte Carlo standard error is already at most 5·10⁻⁵ there, and its 10⁻⁸ steps are finer than
 * the binomial draws, which resolve probabilities to about 10⁻⁶), while the cost grows linearly:
 * 10⁸ draws take about a second for 3 pairs and an hour for 10⁵ pairs. A larger count is almost
 * surely a typo (`1e10` for `1e4`) that would run for days without a word, so it is refused.
 * @internal
 */
export const MAX_PERMUTATIONS = 100_000_000;

/**
 * Paired two-sided approximate randomization test (Fisher's sign-flip test, as in Noreen 1989
 * and ranx/trectools "Fisher's randomization"): under the null hypothesis the two systems are
 * exchangeable on each sample, so each difference `a[i] − b[i]` is as likely to have either sign.
 * The p-value is the share of random sign assignments whose |mean difference| is at least the
 * observed one, with the +1 correction, `(extreme + 1) / (permutations + 1)`, so it is never 0
 * and is a valid p-value for a finite number of draws. Its Monte Carlo standard error is
 * `√(p(1 − p)/permutations)`. The sign assignments are always sampled, never enumerated, even
 * when the `2^n` of a few pairs are fewer than `permutations`: `p` then estimates the exact
 * enumeration's p (2/32 for 5 pairs all won by one run) within that error.
 * (ranx reports `extreme / permutations`, which can be 0; `scipy.stats.permutation_test`
 * enumerates when it can.)
 *
 * Deterministic: the draws come from a seeded xoshiro128** generator. Pairs that tie (difference
 * 0) cannot change the statistic and are skipped; if every pair ties, `p` is exactly 1 and
 * `meanDiff` 0. A difference within floating-point rounding of the scores (1e-12 of the larger
 * score, or of the largest |score| of either run, as `check()` and `diff()` decide equality) is a
 * tie, so runs equal but for rounding (`0.1 + 0.2` against `0.3`) get `p = 1`; so do differences
 * whose sum is 0 up to rounding (`+0.1` and `−0.1`), as every draw reaches |0|.
 *
 * @throws {ConfigurationError} when the arrays differ in length, are empty, hold a non-finite
 * number, `permutations` is not an integer in [1, 10⁸], or `seed` is not an integer.
 * @example
 * ```ts
 * const { p, meanDiff } = randomizationTest(candidateScores, baselineScores, { seed: 7 });
 * ```
 */
export function randomizationTest(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  options: RandomizationOptions = {},
): RandomizationResult {
  const opts = expectOptions(options, "randomizationTest");
  const permutations = expectInteger(
    opts.permutations ?? DEFAULT_PERMUTATIONS,
    "randomizationTest: permutations",
    1,
    MAX_PERMUTATIONS,
  );
  const seed = expectSeed(opts.seed ?? 0, "randomizationTest: seed");
  const x = finiteArray(a, "randomizationTest: a");
  const y = finiteArray(b, "randomizationTest: b");
  if (x.length !== y.length) {
    throw new ConfigurationError(
      `randomizationTest: a paired test needs arrays of equal length, found ${x.length} and ${y.length}`,
      { kind: "invalid-input" },
    );
  }
  const n = x.length;
  if (n === 0)
    throw new ConfigurationError("randomizationTest: expected at least 1 pair, found 0", {
      kind: "invalid-input",
    });
  // Scores near the largest double would overflow their differences: work in scaled units.
  const scale = pairScale(x, y);
  if (scale !== 1) {
    const result = randomizationTest(scaled(x, scale), scaled(y, scale), { permutations, seed });
    return { ...result, meanDiff: result.meanDiff / scale };
  }
  // A difference that is only rounding noise of the scores is a tie (0.1 + 0.2 against 0.3);
  // the sum of the differences is exact, rounded once (0 for identical runs).
  const { d, nonzero: m, sum } = pairedDifferences(x, y);
  const meanDiff = sum / n;
  if (m === 0) return { p: 1, meanDiff: 0, extreme: permutations, permutations, n };
  // Tied pairs (difference 0) cannot change the statistic: only the others are flipped.
  const abs = new Float64Array(m);
  for (let i = 0, j = 0; i < n; i++) {
    const di = d[i] as number;
    if (di !== 0) abs[j++] = di < 0 ? -di : di;
  }
  const extreme = countExtremeSignFlips(abs, Math.abs(sum), permutations, seed);
  return { p: (extreme + 1) / (permutations + 1), meanDiff, extreme, permutations, n };
}
