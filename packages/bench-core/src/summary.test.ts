import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { meanOfValues, percentile, summarize, summarizeValues } from "./summary.js";

describe("summarize", () => {
  it("matches hand-computed statistics", () => {
    // values 1..10: mean 5.5, population variance 8.25
    const s = summarize([3, 1, 2, 10, 4, 5, 9, 6, 8, 7]);
    expect(s.count).toBe(10);
    expect(s.mean).toBe(5.5);
    expect(s.std).toBeCloseTo(Math.sqrt(8.25), 12);
    expect(s.min).toBe(1);
    expect(s.max).toBe(10);
    // numpy.percentile(range(1, 11), [50, 90, 95, 99]) = 5.5, 9.1, 9.55, 9.91
    expect(s.p50).toBeCloseTo(5.5, 12);
    expect(s.p90).toBeCloseTo(9.1, 12);
    expect(s.p95).toBeCloseTo(9.55, 12);
    expect(s.p99).toBeCloseTo(9.91, 12);
  });

  it("gives numpy.percentile's doubles to the last bit", () => {
    // numpy 2.4.6: np.percentile([i * 0.1 for i in range(n)], q), printed with repr. Each differs
    // in the last bits from ((n - 1) * q) / 100 interpolated (numpy takes (n - 1) * (q / 100)).
    const cases: [number, number, number][] = [
      [7, 95, 0.57],
      [8, 95, 0.665],
      [10, 95, 0.855],
      [13, 95, 1.14],
      [19, 95, 1.71],
      [22, 90, 1.8900000000000003],
      [24, 95, 2.185],
      [32, 90, 2.7900000000000005],
      [37, 95, 3.42],
    ];
    for (const [n, q, expected] of cases) {
      const values = Array.from({ length: n }, (_, i) => i * 0.1);
      expect(percentile(values, q), `n=${n} p${q}`).toBe(expected);
    }
  });

  it("summarizes scores near the largest double and tiny ones without overflow or underflow", () => {
    const M = Number.MAX_VALUE;
    // The sum M + M overflows: the mean used to be NaN. By hand: mean M, std 0.
    expect(summarize([M, M])).toMatchObject({ count: 2, mean: M, std: 0, p50: M, max: M });
    // [−M, M]: mean 0, population std M; p50 halfway = 0, p90 = −M + 0.9·2M = 0.8·M.
    const wide = summarize([-M, M]);
    expect(wide).toMatchObject({ mean: 0, std: M, min: -M, max: M, p50: 0 });
    expect(wide.p90).toBeCloseTo(0.8 * M, -300);
    expect((wide.p90 as number) / M).toBeCloseTo(0.8, 14);
    // (1, 2, 3)·1e-300: mean 2e-300, std √(2/3)·1e-300 (the squares, 1e-600, underflow to 0).
    const tiny = summarize([1e-300, 3e-300, 2e-300]);
    expect((tiny.mean as number) / 1e-300).toBeCloseTo(2, 14);
    expect((tiny.std as number) / 1e-300).toBeCloseTo(Math.sqrt(2 / 3), 14);
  });

  it("leaves nulls out rather than counting them as zero", () => {
    const s = summarize([null, 1, null, 3]);
    expect(s.count).toBe(2);
    expect(s.mean).toBe(2);
    expect(s.min).toBe(1);
  });

  it("gives count 0 and null statistics when there is no score", () => {
    expect(summarize([])).toEqual({
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
    expect(summarize([null, null]).mean).toBeNull();
  });

  it("summarizes a single value", () => {
    expect(summarize([0.25])).toMatchObject({ count: 1, mean: 0.25, std: 0, p50: 0.25, p99: 0.25 });
  });

  it("keeps order statistics monotone and the mean within [min, max]", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.double({ min: -1e9, max: 1e9, noNaN: true }), fc.constant(null)), {
          minLength: 1,
        }),
        (values) => {
          const s = summarize(values);
          if (s.count === 0) return;
          const { min, p50, p90, p95, p99, max, mean, std } = s as unknown as Record<
            string,
            number
          >;
          expect(min).toBeLessThanOrEqual(p50 as number);
          expect(p50).toBeLessThanOrEqual(p90 as number);
          expect(p90).toBeLessThanOrEqual(p95 as number);
          expect(p95).toBeLessThanOrEqual(p99 as number);
          expect(p99).toBeLessThanOrEqual(max as number);
          expect(mean).toBeGreaterThanOrEqual(min as number);
          expect(mean).toBeLessThanOrEqual(max as number);
          expect(std).toBeGreaterThanOrEqual(0);
        },
      ),
    );
  });
});

describe("percentile", () => {
  it("interpolates linearly between closest ranks", () => {
    // numpy.percentile([10, 20, 30, 40], 25) = 17.5
    expect(percentile([10, 20, 30, 40], 25)).toBe(17.5);
    expect(percentile([10, 20, 30, 40], 0)).toBe(10);
    expect(percentile([10, 20, 30, 40], 100)).toBe(40);
    expect(percentile([], 50)).toBeNull();
  });
});

describe("meanOfValues", () => {
  // The table of a comparison recomputes means over common samples with it: it must be the mean
  // summarizeValues gives, to the bit, whether it counts distinct values or sorts.
  const same = (values: number[]) => {
    const expected = summarizeValues(Float64Array.from(values)).mean;
    expect(Object.is(meanOfValues(Float64Array.from(values)), expected)).toBe(true);
  };

  it("is summarizeValues' mean, bit for bit, for few distinct values (the counted path)", () => {
    const few = fc.constantFrom(
      0,
      1,
      0.2,
      1 / 3,
      2 / 3,
      0.1,
      0.7,
      1e-17,
      0.30000000000000004,
      -0.5,
      3,
    );
    fc.assert(fc.property(fc.array(few, { minLength: 1, maxLength: 3000 }), same), {
      numRuns: 300,
    });
  });

  it("is summarizeValues' mean for many distinct values, -0, huge and tiny values (sorted)", () => {
    const any = fc.double({ noNaN: true, noDefaultInfinity: true });
    fc.assert(fc.property(fc.array(any, { minLength: 1, maxLength: 400 }), same), { numRuns: 300 });
    same([-0, -0]);
    same([0, 1, Number.NaN, 1]);
    same([1, Number.POSITIVE_INFINITY, 1]);
    same([Number.NEGATIVE_INFINITY, 2]);
    same([1, 1, 0, -0, 0]);
    same([-0, -1, -0]);
    same([0, -0, 1]);
    same([1e308, 1e308, 1e308]);
    same([5e-324, 5e-324]);
    same(Array.from({ length: 1000 }, (_, i) => i / 7));
    // Around the counted path's limit of distinct values.
    for (const k of [255, 256, 257]) same(Array.from({ length: 3 * k }, (_, i) => (i % k) / 9));
  });

  it("gives null for no values", () => {
    expect(meanOfValues(new Float64Array(0))).toBeNull();
  });

  it("gives NaN or ±∞ for scores holding them, as numpy does (it recursed without end)", () => {
    expect(summarize([0, Number.NaN, 1]).mean).toBeNaN();
    expect(summarize([1, Number.POSITIVE_INFINITY]).mean).toBe(Number.POSITIVE_INFINITY);
    expect(summarize([Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY]).mean).toBeNaN();
    expect(meanOfValues(Float64Array.from([2, Number.NaN]))).toBeNaN();
  });
});
