import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { bootstrapCi } from "./bootstrap-ci.js";

describe("bootstrapCi", () => {
  it("gives a zero-width interval for constant values", () => {
    const r = bootstrapCi([0.25, 0.25, 0.25, 0.25], { resamples: 500 });
    expect(r.mean).toBe(0.25);
    expect(r.lower).toBe(0.25);
    expect(r.upper).toBe(0.25);
  });

  it("matches the exact resampling distribution of [0, 1]", () => {
    // Resample means of [0, 1] are 0, ½, 1 with probabilities ¼, ½, ¼: the 2.5th percentile is 0
    // and the 97.5th is 1 (with 10,000 resamples, ~2,500 land on each end).
    const r = bootstrapCi([0, 1], { resamples: 10_000, seed: 9 });
    expect(r).toMatchObject({ mean: 0.5, lower: 0, upper: 1, level: 0.95, n: 2 });
  });

  it("is close to the normal-theory interval for a large sample", () => {
    // 0/1 values with mean 0.3 over 2,000 samples: se = √(0.3·0.7/2000) ≈ 0.010247, so the 95 %
    // interval is about 0.3 ± 1.96·se = [0.2799, 0.3201].
    const values = Array.from({ length: 2000 }, (_, i) => (i % 10 < 3 ? 1 : 0));
    const r = bootstrapCi(values, { resamples: 4000, seed: 5 });
    expect(r.mean).toBeCloseTo(0.3, 12);
    expect(Math.abs(r.lower - 0.2799)).toBeLessThan(0.003);
    expect(Math.abs(r.upper - 0.3201)).toBeLessThan(0.003);
    const r90 = bootstrapCi(values, { resamples: 4000, seed: 5, level: 0.9 });
    expect(r90.upper - r90.lower).toBeLessThan(r.upper - r.lower);
  });

  it("stays finite for values near the largest double", () => {
    // Their sum overflows; the interval must still lie within the data, as for small values.
    const r = bootstrapCi([1.7e308, 1e308], { resamples: 10_000, seed: 9 });
    expect(r.mean).toBe(1.35e308);
    expect(r).toMatchObject({ lower: 1e308, upper: 1.7e308 });
    // The same interval as [1.7, 1], scaled: scaling by a power of two is exact.
    const small = bootstrapCi([1.7, 1], { resamples: 10_000, seed: 9 });
    expect(small).toMatchObject({ mean: 1.35, lower: 1, upper: 1.7 });
    const neg = bootstrapCi([-1.7e308, -1.7e308, 1e308], { resamples: 500 });
    expect(Number.isFinite(neg.lower) && Number.isFinite(neg.upper)).toBe(true);
    expect(neg.lower).toBeGreaterThanOrEqual(-1.7e308);
    expect(neg.upper).toBeLessThanOrEqual(1e308);
  });

  it("is deterministic for a seed", () => {
    const values = [0.1, 0.9, 0.4, 0.4, 0.7, 0.2, 1, 0];
    expect(bootstrapCi(values, { resamples: 300, seed: 3 })).toEqual(
      bootstrapCi(values, { resamples: 300, seed: 3 }),
    );
  });

  it("refuses bad input with a ConfigurationError", () => {
    expect(() => bootstrapCi([])).toThrow(/at least 1 value/);
    expect(() => bootstrapCi([1], { level: 1 })).toThrow(/level/);
    expect(() => bootstrapCi([1], { resamples: 0 })).toThrow(ConfigurationError);
    expect(() => bootstrapCi([Number.NaN])).toThrow(/values\[0\]/);
  });
});
