import type { MetricInput } from "@fastrag/bench-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rankingIds } from "./judgments.js";
import { ndcgAt, ndcgGraded } from "./kernels.js";
import { buildGains, buildIdealGains } from "./reference-gains.js";

// Ids drawn from a small pool (so rankings and judgments overlap), including names of
// Object.prototype members, which must behave as ordinary ids.
const id = fc.constantFrom("a", "b", "c", "d", "e", "f", "constructor", "toString", "__proto__");
const relevanceArb = fc.option(
  fc.array(fc.tuple(id, fc.integer({ min: -1, max: 3 })), { maxLength: 8 }).map((pairs) => {
    const record: Record<string, number> = {};
    for (const [k, grade] of pairs) {
      Object.defineProperty(record, k, {
        value: grade,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return record;
  }),
  { nil: undefined },
);

describe("graded judgments without a gains map", () => {
  it("ideal gains equal buildGains' (hand-checked case)", () => {
    // Positive grades 1, 3, 2 and the ungraded relevant "z" (gain 1), sorted descending.
    const relevance = { a: 1, b: 3, c: 2, d: 0, e: -1 };
    expect(buildIdealGains(new Set(["a", "b", "z"]), relevance)).toEqual([3, 2, 1, 1]);
    expect(buildIdealGains(new Set(["a", "b"]), undefined)).toEqual([1, 1]);
  });

  it("ndcgGraded gives ndcgAt's value on the same gains (hand-checked case)", () => {
    // Ranking b, x, a with gains 3, 0, 1; ideal 3, 2, 1, 1 cut at 3.
    const relevance = { a: 1, b: 3, c: 2, d: 0 };
    const expected =
      (3 / Math.log2(2) + 1 / Math.log2(4)) /
      (3 / Math.log2(2) + 2 / Math.log2(3) + 1 / Math.log2(4));
    const relevant = new Set(["a", "b", "z"]);
    const ideal = buildIdealGains(relevant, relevance);
    expect(ndcgGraded(["b", "x", "a"], relevance, relevant, ideal, 3)).toBeCloseTo(expected, 15);
  });

  it("agrees exactly with buildGains + ndcgAt on random judgments", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(id, { maxLength: 9 }),
        fc.array(id, { maxLength: 6 }),
        relevanceArb,
        fc.integer({ min: 1, max: 10 }),
        (ranked, relevantIds, relevance, k) => {
          const g = buildGains(relevantIds, relevance);
          const relevant = new Set(relevantIds);
          const ideal = buildIdealGains(relevant, relevance);
          expect(ideal).toEqual(g.idealGains);
          expect(ndcgGraded(ranked, relevance, relevant, ideal, k)).toBe(
            ndcgAt(ranked, g.gains, g.idealGains, k),
          );
        },
      ),
    );
  });
});

describe("rankingIds de-duplication", () => {
  const input = (ids: readonly string[]): MetricInput => ({
    sample: { question: "q", expectedAnswers: [], relevantIds: [] },
    answer: null,
    retrieved: ids.map((id) => ({ id })),
    latencyMs: 0,
    usage: undefined,
    signal: new AbortController().signal,
  });

  it("keeps each id once, at its first rank, for short, long and very long rankings", () => {
    for (const n of [5, 16, 17, 100, 3000, 40_000]) {
      // d0 … d(n-1) with every fifth rank repeating the id two ranks before it.
      const ids = Array.from({ length: n }, (_, i) => (i % 5 === 4 ? `d${i - 2}` : `d${i}`));
      // The reference: a Set keeps each id at its first occurrence (linear, unlike a prefix scan
      // per rank, which took minutes at 40,000 on a loaded machine).
      const seen = new Set<string>();
      const expected = ids.filter((id) => !seen.has(id) && seen.add(id) !== undefined);
      const got = rankingIds(input(ids), "chunk", "test");
      expect(got.length).toBe(n - Math.floor(n / 5));
      expect(got).toEqual(expected);
    }
  });

  it("agrees with a Set on random rankings with many repeats", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 120 }), (picks) => {
        const ids = picks.map((p) => `doc${p}`);
        expect(rankingIds(input(ids), "chunk", "test")).toEqual([...new Set(ids)]);
      }),
    );
  });
});
