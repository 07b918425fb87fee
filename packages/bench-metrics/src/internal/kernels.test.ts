import { describe, expect, it } from "vitest";
import { averagePrecision, ndcgAt, precisionAt, reciprocalRank, rPrecision } from "./kernels.js";
import { buildGains, buildJudgments } from "./reference-gains.js";

describe("kernels", () => {
  it("discount deep ranks exactly, past the precomputed table", () => {
    const ranked = Array.from({ length: 2000 }, (_, i) => `d${i + 1}`);
    const { gains, idealGains } = buildGains(["d1500"], undefined);
    expect(ndcgAt(ranked, gains, idealGains, 2000)).toBe(1 / Math.log2(1501));
    expect(ndcgAt(ranked, gains, idealGains, 1499)).toBe(0);
    const relevant = new Set(["d1500"]);
    expect(reciprocalRank(ranked, relevant, Number.POSITIVE_INFINITY)).toBe(1 / 1500);
    expect(averagePrecision(ranked, relevant, Number.POSITIVE_INFINITY)).toBe(1 / 1500);
  });

  it("precision divides by k and R-precision by R, whatever was retrieved", () => {
    const j = buildJudgments(["a", "b", "c", "d"], undefined);
    expect(precisionAt(["a"], j.relevant, 4)).toBe(0.25);
    expect(rPrecision(["a", "x", "b"], j.relevant)).toBe(0.5);
  });

  it("builds gains from positive grades, sorted for the ideal ranking", () => {
    const g = buildGains(["a", "b", "z", "z"], { a: 1, b: 3, c: 2, d: 0, e: -1 });
    expect([...g.gains.entries()]).toEqual([
      ["a", 1],
      ["b", 3],
      ["c", 2],
      ["z", 1],
    ]);
    expect(g.idealGains).toEqual([3, 2, 1, 1]);
    // An id named like an Object.prototype member is an ordinary id.
    expect(buildGains(["constructor"], { toString: 2 }).idealGains).toEqual([2, 1]);
  });
});
