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

  it("refuses options that are not an object, instead of a TypeError", () => {
    expect(() => bootstrapCi([1], null as never)).toThrow(
      "bootstrapCi: expected an options object, found null",
    );
    expect(() => bootstrapCi([1], [] as never)).toThrow(ConfigurationError);
  });
});

describe("bootstrapCi against scipy.stats.bootstrap", () => {
  it("agrees with the percentile bootstrap of the mean within Monte Carlo error", () => {
    const x = Array.from({ length: 25 }, (_, i) => ((i * 37) % 101) ** 2 / 10_000);
    // x = np.array([((i*37) % 101)**2 / 10000 for i in range(25)])
    // stats.bootstrap((x,), np.mean, method="percentile", confidence_level=0.95,
    //     n_resamples=10**6, rng=np.random.default_rng(0)).confidence_interval
    //   → (0.2075679, 0.4367601)
    // The same at n_resamples=10**4 over 300 seeds: sd of the ends 0.00143 and 0.00161.
    const r = bootstrapCi(x); // 10,000 resamples, seed 0
    expect(r.mean).toBeCloseTo(0.318688, 12);
    expect(Math.abs(r.lower - 0.2075679)).toBeLessThan(4 * 0.00143);
    expect(Math.abs(r.upper - 0.4367601)).toBeLessThan(4 * 0.00161);
  });

  it("reads the ends with numpy's linear interpolation of the sorted resample means", () => {
    // The resample means drawn by xoshiro128** (splitmix-style seeding, index ⌊u·n / 2³²⌋),
    // replayed in Python, then np.percentile (linear, as scipy.stats.quantile):
    //   def gen(seed):
    //       M = 0xFFFFFFFF; mul = lambda a, b: (a * b) & M; rotl = lambda v, k: ((v << k) | (v >> (32 - k))) & M
    //       x = seed & M; s = []
    //       for _ in range(4):
    //           x = (x + 0x9E3779B9) & M; z = mul(x ^ (x >> 16), 0x85EBCA6B)
    //           z = mul(z ^ (z >> 13), 0xC2B2AE35); s.append(z ^ (z >> 16))
    //       while True:
    //           r = mul(rotl(mul(s[1], 5), 7), 9); t = (s[1] << 9) & M
    //           s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 11)
    //           yield r
    //   v = [0.1, 0.9, 0.4, 0.4, 0.7, 0.2, 1, 0]; g = gen(3)
    //   m = [sum(v[(next(g) * 8) >> 32] for _ in range(8)) / 8 for _ in range(2000)]  # sequential sums
    //   tail = (1 - 0.95) / 2 * 100
    //   np.percentile(m, [tail, 100 - tail]) → [0.24968750000000053, 0.7124999999999999]
    // Sorted m[49], m[50] = 0.2375, 0.25: other definitions give 0.2375 (lower), 0.25 (higher,
    // nearest), 0.24375 (midpoint, hazen), 0.2378125 (weibull).
    const r = bootstrapCi([0.1, 0.9, 0.4, 0.4, 0.7, 0.2, 1, 0], { resamples: 2000, seed: 3 });
    expect(r.lower).toBeCloseTo(0.2496875, 14);
    expect(r.upper).toBeCloseTo(0.7125, 14);
  });

  it("gives [x, x] for a single value (scipy refuses one observation)", () => {
    expect(bootstrapCi([0.7])).toMatchObject({ mean: 0.7, lower: 0.7, upper: 0.7, n: 1 });
  });
});
