import { ConfigurationError } from "@fastrag/bench-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { randomizationTest } from "./randomization-test.js";

/** Exact two-sided sign-flip p-value by enumerating all 2^n sign vectors (independent of the code). */
function exactByEnumeration(d: readonly number[]): number {
  const obs = Math.abs(d.reduce((s, x) => s + x, 0));
  let extreme = 0;
  const total = 2 ** d.length;
  for (let mask = 0; mask < total; mask++) {
    let s = 0;
    for (let i = 0; i < d.length; i++) s += (mask >> i) & 1 ? d[i]! : -d[i]!;
    if (Math.abs(s) >= obs - 1e-9) extreme++;
  }
  return extreme / total;
}

/** Exact p for integer differences by convolving the distribution of Σ ±|dᵢ| (BigInt counts). */
function exactByConvolution(d: readonly number[]): number {
  let dist = new Map<number, bigint>([[0, 1n]]);
  for (const x of d) {
    const next = new Map<number, bigint>();
    for (const [s, c] of dist) {
      next.set(s + x, (next.get(s + x) ?? 0n) + c);
      next.set(s - x, (next.get(s - x) ?? 0n) + c);
    }
    dist = next;
  }
  const obs = Math.abs(d.reduce((s, x) => s + x, 0));
  let extreme = 0n;
  for (const [s, c] of dist) if (Math.abs(s) >= obs) extreme += c;
  return Number((extreme * 1_000_000_000n) / 2n ** BigInt(d.length)) / 1e9;
}

const zeros = (n: number) => new Array<number>(n).fill(0);
/** Monte Carlo tolerance: 5 standard errors of a proportion estimated from `n` draws. */
const tol = (p: number, n: number) => 5 * Math.sqrt((p * (1 - p)) / n) + 2 / n;

describe("randomizationTest", () => {
  it("matches the exact enumeration on a tiny case: d = [1, 2, 3] gives p = 2/8", () => {
    // Sign patterns of ±1 ±2 ±3 reach |S| = 6 only for +++ and −−−.
    expect(exactByEnumeration([1, 2, 3])).toBe(0.25);
    const r = randomizationTest([1, 2, 3], zeros(3), { permutations: 200_000, seed: 1 });
    expect(Math.abs(r.p - 0.25)).toBeLessThan(tol(0.25, 200_000));
    expect(r.meanDiff).toBe(2);
  });

  it("tests differences past the largest double as the same differences scaled down", () => {
    const M = Number.MAX_VALUE;
    // d = [2M, 2M, 2M] overflows each difference; scaled it is d = [1, 1, 1], whose exact p is
    // 2/8 (only +++ and −−− reach |S| = 3). It used to give a NaN mean and p = 1/(N+1).
    const r = randomizationTest([M, M, M], [-M, -M, -M], { permutations: 200_000, seed: 3 });
    expect(Math.abs(r.p - 0.25)).toBeLessThan(tol(0.25, 200_000));
    expect(r.meanDiff).toBe(Infinity);
    const scaled = randomizationTest(
      [1, 2, 3].map((x) => x * 1e300),
      zeros(3),
      {
        permutations: 200_000,
        seed: 1,
      },
    );
    expect(scaled.p).toBe(
      randomizationTest([1, 2, 3], zeros(3), { permutations: 200_000, seed: 1 }).p,
    );
  });

  it("matches the exact enumeration past one byte-table group (11 distinct differences)", () => {
    const d = [1, -2, 3, 4, -5, 6, 7, -8, 9, 10, -11];
    const exact = exactByEnumeration(d); // 2^11 sign vectors
    const r = randomizationTest(d, zeros(d.length), { permutations: 200_000, seed: 2 });
    expect(Math.abs(r.p - exact)).toBeLessThan(tol(exact, 200_000));
  });

  it("matches the exact binomial p when many pairs share one difference", () => {
    // 20 wins and 10 losses of 1 point: p = P(|2B − 30| ≥ 10), B ~ Bin(30, ½) = 2·P(B ≤ 10).
    const d = [...new Array(20).fill(1), ...new Array(10).fill(-1)];
    let tail = 0n;
    let c = 1n; // C(30, 0)
    for (let k = 0; k <= 10; k++) {
      tail += c;
      c = (c * BigInt(30 - k)) / BigInt(k + 1);
    }
    const exact = Number((2n * tail * 1_000_000n) / 2n ** 30n) / 1e6; // ≈ 0.0987
    expect(exact).toBeCloseTo(0.098737, 5);
    const r = randomizationTest(d, zeros(30), { permutations: 200_000, seed: 3 });
    expect(Math.abs(r.p - exact)).toBeLessThan(tol(exact, 200_000));
  });

  it("matches the exact distribution of a mix of shared and distinct differences", () => {
    const d = [
      ...new Array(17).fill(1),
      ...new Array(9).fill(-1),
      ...new Array(16).fill(2),
      3,
      -5,
      7,
    ];
    const exact = exactByConvolution(d);
    const r = randomizationTest(d, zeros(d.length), { permutations: 200_000, seed: 4 });
    expect(Math.abs(r.p - exact)).toBeLessThan(tol(exact, 200_000));
  });

  it("is deterministic for a seed, and the seed matters", () => {
    const a = [0.1, 0.5, 0.3, 0.9, 0.7, 0.2, 0.4, 0.8, 0.6, 1, 0.3, 0.5];
    const b = [0.2, 0.4, 0.3, 0.5, 0.6, 0.2, 0.1, 0.7, 0.6, 0.8, 0.1, 0.6];
    const one = randomizationTest(a, b, { permutations: 2000, seed: 42 });
    expect(randomizationTest(a, b, { permutations: 2000, seed: 42 })).toEqual(one);
    const others = [1, 2, 3, 4, 5].map(
      (seed) => randomizationTest(a, b, { permutations: 2000, seed }).p,
    );
    expect(others.some((p) => p !== one.p)).toBe(true);
  });

  it("uses the +1 correction: p = (extreme + 1) / (permutations + 1), never 0", () => {
    const a = new Array(200).fill(1);
    const r = randomizationTest(a, zeros(200), { permutations: 999 });
    expect(r.extreme).toBe(0); // all 200 signs equal: probability 2^-199
    expect(r.p).toBe(1 / 1000);
  });

  it("gives p = 1 exactly when every pair ties", () => {
    const r = randomizationTest([0.5, 0.25, 1], [0.5, 0.25, 1]);
    expect(r).toMatchObject({ p: 1, meanDiff: 0, n: 3 });
  });

  it("treats differences that are only floating-point rounding as ties: p = 1", () => {
    // 0.1 + 0.2 is 0.30000000000000004: ten equal differences of 5.6e-17 used to give p ≈ 2/1024.
    const a = new Array<number>(10).fill(0.1 + 0.2);
    const b = new Array<number>(10).fill(0.3);
    const tie = { p: 1, meanDiff: 0, extreme: 10_000, permutations: 10_000, n: 10 };
    expect(randomizationTest(a, b)).toEqual(tie);
    expect(randomizationTest(b, a)).toEqual(tie);
    // Near 0 the floor is the largest score: −0.1 − 0.2 + 0.3 = 5.6e-17 against 0 is noise.
    const nearZero = new Array<number>(10).fill(-0.1 - 0.2 + 0.3);
    expect(randomizationTest([...nearZero, 1], [...zeros(10), 1])).toMatchObject({
      p: 1,
      meanDiff: 0,
    });
  });

  it("keeps real differences far below a score's size: 200 pairs 1e-9 apart", () => {
    const a = new Array<number>(200).fill(0.5 + 1e-9);
    const b = new Array<number>(200).fill(0.5);
    const r = randomizationTest(a, b, { permutations: 999 });
    expect(r.extreme).toBe(0); // all 200 signs equal: probability 2^-199
    expect(r.p).toBe(1 / 1000);
  });

  it("reads meanDiff from the exact sum of the differences: 0 for the same scores repaired", () => {
    // d = [0.1 − 0.7, 0.7 − 0.2, 0.2 − 0.1] sums to 0, but summed in doubles to −2.8e-17.
    const r = randomizationTest([0.1, 0.7, 0.2], [0.7, 0.2, 0.1], { permutations: 99 });
    expect(r).toEqual({ p: 1, meanDiff: 0, extreme: 99, permutations: 99, n: 3 });
    expect(Object.is(r.meanDiff, 0)).toBe(true);
  });

  it("property: the same scores in another pairing give meanDiff 0 and p = 1", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 300 }),
        (xs) => {
          const r = randomizationTest(xs, [...xs].reverse(), { permutations: 50 });
          expect(r).toMatchObject({ p: 1, meanDiff: 0 });
        },
      ),
    );
  });

  it("property: identical runs give p = 1", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 300 }),
        (xs) => {
          expect(randomizationTest(xs, xs, { permutations: 50 }).p).toBe(1);
        },
      ),
    );
  });

  it("property: p lies in [1/(N+1), 1], is the same for (a, b) and (b, a), and ignores pair order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 5 })), {
          minLength: 1,
          maxLength: 80,
        }),
        fc.integer(),
        (pairs, seed) => {
          const a = pairs.map(([x]) => x / 5);
          const b = pairs.map(([, y]) => y / 5);
          const r = randomizationTest(a, b, { permutations: 200, seed });
          expect(r.p).toBeGreaterThanOrEqual(1 / 201);
          expect(r.p).toBeLessThanOrEqual(1);
          expect(randomizationTest(b, a, { permutations: 200, seed }).p).toBe(r.p);
          const ra = [...a].reverse();
          const rb = [...b].reverse();
          expect(randomizationTest(ra, rb, { permutations: 200, seed }).p).toBe(r.p);
        },
      ),
    );
  });

  it("keeps its exact results on inputs large enough for the blocked table walk", () => {
    // 3,000 pairs of 4-decimal scores: mostly distinct |differences|, so the byte tables exceed
    // one cache chunk and 1,500 draws take two full blocks and a partial one. The expected values
    // were produced by the build BEFORE the blocked walk (the simple per-draw loop): the rewrite
    // must not change a single count.
    let state = 2024;
    const next = (): number => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < 3000; i++) {
      a.push(Math.round(next() * 1e4) / 1e4);
      b.push(Math.round((next() * 0.99 + 0.004) * 1e4) / 1e4);
    }
    expect(randomizationTest(a, b, { permutations: 1500, seed: 9 })).toEqual({
      p: 0.5283144570286475,
      meanDiff: -0.0046141666666666675,
      extreme: 792,
      permutations: 1500,
      n: 3000,
    });
  });

  it("refuses bad input with a ConfigurationError", () => {
    expect(() => randomizationTest([1], [1, 2])).toThrow(/equal length, found 1 and 2/);
    expect(() => randomizationTest([], [])).toThrow(/at least 1 pair/);
    expect(() => randomizationTest([1, Infinity], [1, 2])).toThrow(/a\[1\]/);
    expect(() => randomizationTest([1], [2], { permutations: 0 })).toThrow(ConfigurationError);
    expect(() => randomizationTest([1], [2], { permutations: 1.5 })).toThrow(/permutations/);
    // A runaway count (a typo of 1e10 for 1e4) is refused up front instead of running for days.
    expect(() => randomizationTest([1], [2], { permutations: 1e10 })).toThrow(
      "randomizationTest: permutations: expected an integer in [1, 100000000], found the number 10000000000",
    );
    expect(() => randomizationTest([1], [2], { permutations: 100_000_001 })).toThrow(
      ConfigurationError,
    );
    expect(() => randomizationTest([1], [2], { seed: 0.5 })).toThrow(/seed/);
  });

  it("refuses options that are not an object, instead of a TypeError", () => {
    expect(() => randomizationTest([1], [2], null as never)).toThrow(
      "randomizationTest: expected an options object, found null",
    );
    expect(() => randomizationTest([1], [2], 5 as never)).toThrow(ConfigurationError);
  });
});

/**
 * Reference p-values from scipy 1.17 / numpy 2.4 (the Python that produced each is beside it).
 * Ours is a Monte Carlo estimate, so agreement is judged within Monte Carlo error: 4 standard
 * errors of a proportion over `permutations` draws, plus the +1 correction's 1/(permutations + 1).
 */
const mcTolerance = (p: number, permutations: number) =>
  4 * Math.sqrt((p * (1 - p)) / permutations) + 1 / (permutations + 1);

describe("randomizationTest against scipy.stats.permutation_test", () => {
  it("estimates the exact p of 12 continuous pairs (4,096 sign flips), sampling rather than enumerating", () => {
    const a = [0.82, 0.41, 0.67, 0.93, 0.55, 0.71, 0.38, 0.64, 0.77, 0.49, 0.86, 0.6];
    const b = [0.74, 0.45, 0.52, 0.81, 0.58, 0.6, 0.31, 0.66, 0.69, 0.42, 0.7, 0.63];
    // stats.permutation_test((a, b), lambda x, y, axis: np.mean(x - y, axis=axis),
    //     permutation_type="samples", vectorized=True, n_resamples=np.inf).pvalue
    //   → 0.0205078125 (= 84/4096, exact: scipy enumerates the 2^12 sign flips)
    const exact = 0.0205078125;
    const r = randomizationTest(a, b); // defaults: 10,000 draws, seed 0
    expect(Math.abs(r.p - exact)).toBeLessThanOrEqual(mcTolerance(exact, 10_000));
    expect(r.p).toBeGreaterThan(0);
  });

  it("matches hit@k-style 0/1 scores over 300 pairs (89 wins, 64 losses)", () => {
    const ids = Array.from({ length: 300 }, (_, i) => i);
    const a = ids.map((i) => ((i * 37) % 100 < 60 ? 1 : 0));
    const b = ids.map((i) => ((i * 53) % 97 < 50 ? 1 : 0));
    // i = np.arange(300); a = (i*37 % 100 < 60) * 1.0; b = (i*53 % 97 < 50) * 1.0
    // With 0/1 scores the sign-flip p is the two-sided sign test on the discordant pairs:
    // stats.binomtest(89, 89 + 64, 0.5).pvalue → 0.051988852826861894 (exact)
    // stats.permutation_test(..., n_resamples=10**6, rng=np.random.default_rng(0)) → 0.05229
    const exact = 0.051988852826861894;
    const r = randomizationTest(a, b);
    expect(r.meanDiff).toBeCloseTo(25 / 300, 15);
    expect(Math.abs(r.p - exact)).toBeLessThanOrEqual(mcTolerance(exact, 10_000));
  });

  it("matches graded scores in tenths over 200 pairs (shared and distinct differences)", () => {
    const ids = Array.from({ length: 200 }, (_, i) => i);
    const ka = ids.map((i) => (i * 7) % 11);
    const kb = ids.map((i, j) =>
      Math.min(10, Math.max(0, (ka[j] as number) + ((i * 5) % 7) - 3 + (i % 3 === 0 ? 1 : 0))),
    );
    // i = np.arange(200); ka = i*7 % 11; kb = np.clip(ka + (i*5 % 7) - 3 + (i % 3 == 0), 0, 10)
    // a, b = ka / 10, kb / 10; d = ka - kb   # |d| = 1, 2, 3 (54, 52, 41 pairs), 4 (9 pairs)
    // Exact: convolve, per distinct |d| = v shared by c pairs, v·(2B − c) with B ~ Bin(c, ½):
    //   dist = [1.]; off = 0
    //   for v in np.unique(abs(d[d != 0])):
    //       c = (abs(d) == v).sum(); k = np.zeros(2*v*c + 1)
    //       k[::2*v] = stats.binom.pmf(np.arange(c + 1), c, 0.5); dist = np.convolve(dist, k); off += v*c
    //   dist[abs(np.arange(len(dist)) - off) >= abs(d.sum())].sum() → 0.08047993597569636
    // stats.permutation_test(..., n_resamples=10**6, rng=np.random.default_rng(0)) → 0.08074
    const exact = 0.08047993597569636;
    const r = randomizationTest(
      ka.map((k) => k / 10),
      kb.map((k) => k / 10),
    );
    expect(r.meanDiff).toBeCloseTo(-47 / 2000, 15);
    expect(Math.abs(r.p - exact)).toBeLessThanOrEqual(mcTolerance(exact, 10_000));
  });

  it("gives p = 1 when real differences sum to 0 up to rounding (+0.1 and −0.1)", () => {
    // np.mean(a - b) → -9.25e-18, not 0: the differences in tenths are [1, -1, -2, 1, 0, 1].
    // Every sign assignment reaches |Σ| ≥ 0, so the exact p is 1; stats.permutation_test(...,
    // n_resamples=np.inf).pvalue → 1.0 (its tolerance, 100 ulps of the observed statistic, can
    // miss such noise: on other data it gave 0.9375 for an exact p of 1).
    const r = randomizationTest([0.3, 0.5, 0.2, 0.9, 0.1, 0.7], [0.2, 0.6, 0.4, 0.8, 0.1, 0.6]);
    expect(r.p).toBe(1);
    expect(r.extreme).toBe(r.permutations);
  });
});
