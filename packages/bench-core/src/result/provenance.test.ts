import { describe, expect, it } from "vitest";
import { Benchmark } from "../benchmark.js";
import type { EvalSample, Metric, QueryEngine, RetrievedChunk } from "../types.js";

describe("result format 2", () => {
  const samples: EvalSample[] = [
    {
      id: "a",
      question: "qa",
      expectedAnswers: ["x"],
      relevantIds: ["c1"],
      relevance: { c1: 2 },
      metadata: { topic: "t1" },
    },
    { id: "b", question: "qb", expectedAnswers: [""], relevantIds: [] },
    { id: "c", question: "qc", expectedAnswers: ["z"], relevantIds: ["c9"] },
  ];
  const chunks: RetrievedChunk[] = [
    { id: "c1", documentId: "d1", uri: "u1", score: 0.5, text: "chunk one" },
    { id: "c2", text: "chunk two", score: Number.NaN },
  ];
  const engine: QueryEngine = {
    async query(_q, { sample }) {
      if (sample.id === "c") throw new TypeError("no pipeline");
      if (sample.id === "b") return { answer: "", usage: { inputTokens: 3, cost: 0.5 } };
      return {
        answer: "x",
        chunks,
        usage: { inputTokens: 10, outputTokens: 4, totalTokens: 14, cost: 0.25 },
      };
    },
  };
  // A judge-like metric: two model calls per sample, reported through reportUsage.
  const judged: Metric = {
    name: "judged",
    higherIsBetter: true,
    needsRelevantIds: false,
    needsAnswer: true,
    async score({ reportUsage }) {
      reportUsage?.({ inputTokens: 100, outputTokens: 1, totalTokens: 101, cost: 0.01 });
      reportUsage?.({ inputTokens: 50, outputTokens: 2 });
      return 1;
    },
  };

  it("refuses a provenance that is not { configHash?, gitCommit?, params? }", async () => {
    const b = new Benchmark({ dataset: samples, metrics: [judged] });
    await expect(
      b.run(engine, { name: "p", provenance: { gitCommit: 5 } as never }),
    ).rejects.toThrow(/provenance\.gitCommit must be a string, found .*5/);
    await expect(b.run(engine, { name: "p", keepChunkText: "yes" as never })).rejects.toThrow(
      /keepChunkText must be true or false/,
    );
  });
});
