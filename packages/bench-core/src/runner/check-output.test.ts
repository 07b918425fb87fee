import { describe, expect, it } from "vitest";
import { Benchmark } from "../benchmark.js";
import type { EvalSample, Metric, Retriever } from "../types.js";

const samples: EvalSample[] = [
  { id: "small", question: "q0", expectedAnswers: [], relevantIds: ["d1"] },
  { id: "huge", question: "q1", expectedAnswers: [], relevantIds: ["d1"] },
];
const hit: Metric = {
  name: "hit",
  higherIsBetter: true,
  needsRelevantIds: true,
  needsAnswer: false,
  score: ({ sample, retrieved }) =>
    retrieved.some((c) => sample.relevantIds.includes(c.id)) ? 1 : 0,
};

describe("chunks per sample", () => {
  it("errors a sample that returns more than 10,000 chunks, and keeps one that returns 10,000", async () => {
    const sizes: Record<string, number> = { small: 10_000, huge: 1_000_000 };
    const retriever: Retriever = {
      retrieve: async (_q, { sample }) =>
        Array.from({ length: sizes[sample.id as string] as number }, (_, i) => ({ id: `d${i}` })),
    };
    const result = await new Benchmark({ dataset: samples, metrics: [hit] }).run(retriever, {
      name: "cap",
    });
    const [small, huge] = result.samples;
    expect(small?.status).toBe("successful");
    expect(small?.retrievedIds).toHaveLength(10_000);
    expect(huge?.status).toBe("errored");
    expect(huge?.retrievedIds).toEqual([]);
    expect(huge?.error).toBe(
      "MalformedOutputError: retrieve() result holds 1,000,000 chunks, more than the 10,000 a sample may return (each is kept in the result and the journal: a million would make one sample's record 150 MB); return the top k",
    );
  });
});
