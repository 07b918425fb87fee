import { ConfigurationError } from "@fastrag/bench-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pairedTTest } from "./paired-t-test.js";

// Student's sleep data (Cushny & Peebles), as in R's `t.test(extra ~ group, paired = TRUE)`.
const A = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
const B = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];

describe("pairedTTest", () => {
  it("reproduces R on the sleep data to 1e-8", () => {
    const r = pairedTTest(A, B);
    expect(r.t).toBeCloseTo(-4.062127683, 8);
    expect(r.df).toBe(9);
    expect(Math.abs(r.p - 0.0028328902)).toBeLessThan(1e-8);
    expect(r.meanDiff).toBeCloseTo(-1.58, 12);
    expect(r.n).toBe(10);
  });

  it("is symmetric: swapping the runs flips t and keeps p", () => {
    const r = pairedTTest(B, A);
    expect(r.t).toBeCloseTo(4.062127683, 8);
    expect(Math.abs(r.p - 0.0028328902)).toBeLessThan(1e-8);
  });

  it("matches a hand-computed small case", () => {
    // d = [1, 2, 3]: mean 2, sd 1, se 1/√3, t = 2√3 ≈ 3.4641016; two-sided p with 2 df is
    // 1 − t/√(t² + 2) = 1 − √12/√14 exactly (Student t with 2 df has a closed-form CDF).
    const r = pairedTTest([1, 2, 3], [0, 0, 0]);
    expect(r.t).toBeCloseTo(2 * Math.sqrt(3), 12);
    expect(r.p).toBeCloseTo(1 - Math.sqrt(12 / 14), 12);
  });

  it("tests scores near the largest double and tiny ones by their scale-free statistic", () => {
    const M = Number.MAX_VALUE;
    // d = [1e300 + M, 0, 0] overflows no more: mean d₀/3, sd d₀/√3, se d₀/3, so t = 1, and
    // with 2 df p = 1 − t/√(t² + 2) = 1 − 1/√3. (It used to be t = NaN, p = NaN.)
    const huge = pairedTTest([1e300, 0, 0], [-1.79e308, 0, 0]);
    expect(huge.t).toBeCloseTo(1, 12);
    expect(huge.p).toBeCloseTo(1 - 1 / Math.sqrt(3), 12);
    expect(huge.meanDiff / ((1e300 + 1.79e308) / 3)).toBeCloseTo(1, 14);
    // d = [2M, 1.5M, 1.5M]: t = (5M/3) / (M/6) = 10; the mean itself is past the largest double.
    const past = pairedTTest([M, M / 2, M], [-M, -M, -M / 2]);
    expect(past.t).toBeCloseTo(10, 12);
    expect(past.meanDiff).toBe(Infinity);
    // The hand-computed case [1, 2, 3] scaled to subnormals: t = 2√3 still (squares underflowed).
    const tiny = pairedTTest([1e-310, 2e-310, 3e-310], [0, 0, 0]);
    expect(tiny.t).toBeCloseTo(2 * Math.sqrt(3), 6);
  });

  it("gives t = 0, p = 1 for identical runs and p = 0 for a constant nonzero shift", () => {
    expect(pairedTTest([0.1, 0.5, 0.9], [0.1, 0.5, 0.9])).toMatchObject({
      t: 0,
      p: 1,
      meanDiff: 0,
    });
    const shifted = pairedTTest([1.5, 2.5, 3.5], [1, 2, 3]);
    expect(shifted.p).toBe(0);
    expect(shifted.t).toBe(Infinity);
  });

  it("counts differences that are only floating-point rounding as 0", () => {
    // 0.1 + 0.2 is 0.30000000000000004: every pair differs by 5.6e-17, one constant difference,
    // which used to read as a perfect shift (t = Infinity, p = 0). It is an identical run.
    const a = new Array<number>(10).fill(0.1 + 0.2);
    const b = new Array<number>(10).fill(0.3);
    expect(a[0]).not.toBe(b[0]);
    expect(pairedTTest(a, b)).toEqual({ t: 0, df: 9, p: 1, meanDiff: 0, n: 10 });
    expect(pairedTTest(b, a)).toEqual({ t: 0, df: 9, p: 1, meanDiff: 0, n: 10 });
    // Near 0 the floor is the largest score: −0.1 − 0.2 + 0.3 = 5.6e-17 against 0, beside scores
    // of 1 and 0.5, is noise too (it used to give d = [5.6e-17, 0, 0], t = 1, p = 1 − 1/√3).
    expect(pairedTTest([-0.1 - 0.2 + 0.3, 1, 0.5], [0, 1, 0.5])).toEqual({
      t: 0,
      df: 2,
      p: 1,
      meanDiff: 0,
      n: 3,
    });
  });

  it("keeps real differences far below a score's size, at any scale", () => {
    // A constant shift of 1e-9 on scores of 0.5 is 2e-9 of them: real, so still p = 0.
    const shifted = pairedTTest([0.5 + 1e-9, 0.5 + 1e-9, 0.5 + 1e-9], [0.5, 0.5, 0.5]);
    expect(shifted).toMatchObject({ t: Infinity, p: 0 });
    // The tolerance is relative, never absolute: d = [1, 2, 3] × 1e-20 still gives t = 2√3.
    const small = pairedTTest([1e-20, 2e-20, 3e-20], [0, 0, 0]);
    expect(small.t).toBeCloseTo(2 * Math.sqrt(3), 10);
    // The true mean of those three doubles, rounded once (Python: Fraction sum / 3); summed in
    // order they gave 2e-20, an ulp low.
    expect(small.meanDiff).toBe(2.0000000000000002e-20);
    // One huge score does not make the others' real changes noise: 19 samples each +1 beside a
    // sample of 1e13 (which a floor of 1e-12 of the largest score, 10, used to hide: p = 1).
    const big = [1e13, ...Array.from({ length: 19 }, (_, i) => i % 5)];
    const up = big.map((v, i) => (i === 0 ? v : v + 1));
    const t = pairedTTest(up, big);
    expect(t.meanDiff).toBeCloseTo(0.95, 12);
    expect(t.p).toBeLessThan(1e-10);
  });

  it("reads meanDiff from the exact sum of the differences: 0 when it is 0, and its true sign", () => {
    // The same scores paired differently: d = [0.1 − 0.7, 0.7 − 0.2, 0.2 − 0.1] sums to 0, but
    // summed in doubles to −2.8e-17 (meanDiff −9.25e-18, t = −1.1e-16).
    const a = [0.1, 0.7, 0.2];
    const b = [0.7, 0.2, 0.1];
    expect(pairedTTest(a, b)).toEqual({ t: 0, df: 2, p: 1, meanDiff: 0, n: 3 });
    expect(pairedTTest(b, a)).toEqual({ t: 0, df: 2, p: 1, meanDiff: 0, n: 3 });
    // 0.1 − 0.4 and 0.9 − 0.6: the doubles differ from those decimals, so their true sum is
    // 2.8e-17, rounding noise of scores near 1: 0 (the naive sum happened to be 0 too).
    expect(pairedTTest([0.1, 0.9], [0.4, 0.6])).toEqual({ t: 0, df: 1, p: 1, meanDiff: 0, n: 2 });
    // A million differences of 0.3 and one of −299999.999997: the true mean is +3.0000087e-12
    // (Python: Fraction(0.3) · 10⁶ − Fraction(299999.999997), over 10⁶ + 1), but summed in
    // order the 0.3s drift 5.7e-6 low, and meanDiff came out −2.66e-12, the wrong sign.
    const n = 1_000_000;
    const up = new Float64Array(n + 1).fill(0.3);
    up[n] = 0;
    const down = new Float64Array(n + 1);
    down[n] = 299999.999997;
    const r = pairedTTest(up, down);
    expect(r.meanDiff).toBeGreaterThan(0);
    expect(r.meanDiff / 3.0000087412411226e-12).toBeCloseTo(1, 14);
    expect(r.t).toBeGreaterThan(0);
  });

  it("property: the same scores in another pairing give meanDiff 0, t = 0, p = 1", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 2 }),
        (xs) => {
          const r = pairedTTest(xs, [...xs].reverse());
          expect(r).toMatchObject({ t: 0, p: 1, meanDiff: 0 });
        },
      ),
    );
  });

  it("property: identical samples give p = 1", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 2 }),
        (xs) => {
          expect(pairedTTest(xs, xs).p).toBe(1);
        },
      ),
    );
  });

  it("refuses bad input with a ConfigurationError", () => {
    expect(() => pairedTTest([1, 2], [1])).toThrow(ConfigurationError);
    expect(() => pairedTTest([1], [2])).toThrow(/at least 2 pairs/);
    expect(() => pairedTTest([1, Number.NaN], [2, 3])).toThrow(/a\[1\]: expected a finite number/);
    expect(() => pairedTTest(null as unknown as number[], [1])).toThrow(ConfigurationError);
  });
});
