import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  averagePrecision,
  averagePrecisionOfFlags,
  hitRateAt,
  hitRateOfFlags,
  hitsAt,
  hitsOfFlags,
  ndcgAt,
  ndcgOfGains,
  precisionAt,
  precisionOfFlags,
  recallAt,
  recallOfFlags,
  reciprocalRank,
  reciprocalRankOfFlags,
  rPrecision,
  rPrecisionOfFlags,
} from "./kernels.js";

// The flat kernels the metric classes use must give exactly (`toBe`) the numbers of the Set-based
// kernels, which the trec_eval parity test pins to trec_eval.

/** A ranking of distinct ids "d0".."dn", a grade per rank (≤ 0: not relevant), relevant ids never retrieved. */
const judgedRanking = fc.record({
  grades: fc.array(fc.integer({ min: -1, max: 3 }), { maxLength: 40 }),
  missing: fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 5 }),
  k: fc.oneof(fc.integer({ min: 1, max: 45 }), fc.constant(Number.POSITIVE_INFINITY)),
  // Buffers longer than the ranking, as the reused ones are: entries past n must be ignored.
  junk: fc.integer({ min: 0, max: 3 }),
});

function setup(grades: readonly number[], missing: readonly number[], junk: number) {
  const ranked = grades.map((_, i) => `d${i}`);
  const relevant = new Set(ranked.filter((_, i) => (grades[i] as number) > 0));
  const gains = new Map<string, number>();
  for (let i = 0; i < grades.length; i++)
    if ((grades[i] as number) > 0) gains.set(`d${i}`, grades[i] as number);
  missing.forEach((grade, i) => {
    relevant.add(`x${i}`);
    gains.set(`x${i}`, grade);
  });
  const n = grades.length;
  const flags = new Uint8Array(n + junk).fill(1);
  const perRank = new Float64Array(n + junk).fill(5);
  for (let i = 0; i < n; i++) {
    flags[i] = (grades[i] as number) > 0 ? 1 : 0;
    perRank[i] = grades[i] as number;
  }
  const idealGains = [...gains.values()].sort((a, b) => b - a);
  const ideal = new Float64Array(idealGains.length + junk).fill(9);
  ideal.set(idealGains);
  return { ranked, relevant, gains, idealGains, n, flags, perRank, ideal };
}

describe("flat kernels", () => {
  it("equal the Set-based kernels exactly", () => {
    fc.assert(
      fc.property(judgedRanking, ({ grades, missing, k, junk }) => {
        const s = setup(grades, missing, junk);
        const r = s.relevant.size;
        fc.pre(r > 0);
        const cut = Number.isFinite(k) ? k : s.n + 1;
        expect(hitsOfFlags(s.flags, s.n, k)).toBe(hitsAt(s.ranked, s.relevant, k));
        expect(recallOfFlags(s.flags, s.n, r, cut)).toBe(recallAt(s.ranked, s.relevant, cut));
        expect(precisionOfFlags(s.flags, s.n, cut)).toBe(precisionAt(s.ranked, s.relevant, cut));
        expect(hitRateOfFlags(s.flags, s.n, k)).toBe(hitRateAt(s.ranked, s.relevant, k));
        expect(reciprocalRankOfFlags(s.flags, s.n, k)).toBe(
          reciprocalRank(s.ranked, s.relevant, k),
        );
        expect(averagePrecisionOfFlags(s.flags, s.n, r, k)).toBe(
          averagePrecision(s.ranked, s.relevant, k),
        );
        expect(rPrecisionOfFlags(s.flags, s.n, r)).toBe(rPrecision(s.ranked, s.relevant));
        expect(ndcgOfGains(s.perRank, s.n, s.ideal, s.idealGains.length, cut)).toBe(
          ndcgAt(s.ranked, s.gains, s.idealGains, cut),
        );
      }),
      { numRuns: 500 },
    );
  });

  it("compute hand-checked values", () => {
    // Ranks: relevant at 2 and 4 of 5, R = 3 (one never retrieved).
    const flags = Uint8Array.of(0, 1, 0, 1, 0);
    expect(recallOfFlags(flags, 5, 3, 2)).toBe(1 / 3);
    expect(precisionOfFlags(flags, 5, 10)).toBe(0.2);
    expect(hitRateOfFlags(flags, 5, 1)).toBe(0);
    expect(reciprocalRankOfFlags(flags, 5, Number.POSITIVE_INFINITY)).toBe(0.5);
    expect(averagePrecisionOfFlags(flags, 5, 3, Number.POSITIVE_INFINITY)).toBe(
      (1 / 2 + 2 / 4) / 3,
    );
    expect(rPrecisionOfFlags(flags, 5, 3)).toBe(1 / 3);
    // Gains 3 at rank 1 and 1 at rank 3 (a grade ≤ 0 gains nothing); ideal 3, 2, 1.
    const gains = Float64Array.of(3, -1, 1);
    const ideal = Float64Array.of(3, 2, 1);
    const dcg = 3 / Math.log2(2) + 1 / Math.log2(4);
    const best = 3 / Math.log2(2) + 2 / Math.log2(3) + 1 / Math.log2(4);
    expect(ndcgOfGains(gains, 3, ideal, 3, 3)).toBe(dcg / best);
    expect(ndcgOfGains(gains, 3, Float64Array.of(), 0, 3)).toBe(0);
  });
});
