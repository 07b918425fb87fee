import { describe, expect, it } from "vitest";
import { Benchmark } from "../benchmark.js";
import type { EvalSample, Metric, QueryEngine } from "../types.js";

function dataset(n: number): EvalSample[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `q${i}`,
    question: `question ${i}`,
    expectedAnswers: ["right"],
    relevantIds: [`doc-${i}`],
  }));
}

const exact: Metric = {
  name: "exact",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: true,
  score: ({ answer }) => (answer === "right" ? 1 : 0),
};

/** mulberry32: a small seeded generator, so the known-answer runs are the same every time. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function bernoulliEngine(p: number, seed: number): QueryEngine {
  const next = rng(seed);
  return {
    query: async () => ({ answer: next() < p ? "right" : "wrong", chunks: [] }),
  };
}

describe("trials: files", () => {
  it("rescores per trial, the means recomputed", async () => {
    const r = await new Benchmark({ dataset: dataset(30), metrics: [exact] }).run(
      bernoulliEngine(0.5, 99),
      { name: "r", trials: 4 },
    );
    // "wrong" answers score 1 here: each trial flips, so each sample's mean is 1 − the old one.
    const wrong: Metric = {
      ...exact,
      name: "wrong",
      score: ({ answer }) => (answer === "wrong" ? 1 : 0),
    };
    const again = await r.rescore([wrong]);
    expect(again.trials).toBe(4);
    for (let i = 0; i < 30; i++) {
      const before = r.samples[i]?.scores.exact as number;
      expect(again.samples[i]?.scores.wrong).toBeCloseTo(1 - before, 12);
      expect(again.samples[i]?.trials?.map((t) => t.scores.wrong)).toEqual(
        r.samples[i]?.trials?.map((t) => 1 - (t.scores.exact as number)),
      );
    }
    expect(again.summary.wrong?.trial_std).toBeCloseTo(r.summary.exact?.trial_std as number, 12);
  });
});
