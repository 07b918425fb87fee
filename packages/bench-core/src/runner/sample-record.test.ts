// The shape of a scored record and of its kept chunks: which keys, in which order, whichever way
// the record was built (one literal for the usual sample, field by field for the others).
import { describe, expect, it } from "vitest";
import { Benchmark } from "../benchmark.js";
import type { EvalSample, Metric, QueryEngine, RetrievedChunk, Retriever } from "../types.js";

const hit: Metric = {
  name: "hit",
  higherIsBetter: true,
  needsRelevantIds: true,
  needsAnswer: false,
  score: ({ sample, retrieved }) =>
    retrieved.some((c) => sample.relevantIds.includes(c.id)) ? 1 : 0,
};

describe("scored records", () => {
  it("keep the same keys in the same order with and without a sample id, usage or attempts", async () => {
    const samples: EvalSample[] = [
      { id: "a", question: "q0", expectedAnswers: ["x"], relevantIds: ["d1"] },
      { question: "q1", expectedAnswers: [], relevantIds: ["d1"], metadata: { topic: "t" } },
      { id: "c", question: "q2", expectedAnswers: [], relevantIds: [], relevance: { d1: 2 } },
    ];
    const engine: QueryEngine = {
      query: async (question) => ({
        answer: "x",
        chunks: [{ id: "d1", uri: "u1" }],
        ...(question === "q2" ? { usage: { inputTokens: 3 } } : {}),
      }),
    };
    const result = await new Benchmark({ dataset: samples, metrics: [hit] }).run(engine, {
      name: "shape",
    });
    const [a, b, c] = result.samples;
    const common = ["question", "status", "scores", "answer", "retrievedIds", "retrievedUris"];
    expect(Object.keys(a ?? {})).toEqual([
      ...common,
      "latencyMs",
      "error",
      "sampleId",
      "retrieved",
      "expectedAnswers",
      "relevantIds",
    ]);
    expect(Object.keys(b ?? {})).toEqual([
      ...common,
      "latencyMs",
      "error",
      "retrieved",
      "expectedAnswers",
      "relevantIds",
      "metadata",
    ]);
    expect(Object.keys(c ?? {})).toEqual([
      ...common,
      "latencyMs",
      "error",
      "sampleId",
      "retrieved",
      "usage",
      "expectedAnswers",
      "relevantIds",
      "relevance",
    ]);
    expect(a?.expectedAnswers).toBe(samples[0]?.expectedAnswers);
    expect(b?.metadata).toBe(samples[1]?.metadata);
    expect(c?.usage).toEqual({ inputTokens: 3 });

    const retried = await new Benchmark({ dataset: samples.slice(0, 1), metrics: [hit] }).run(
      engine,
      { name: "retried", retries: { attempts: 2, retryOn: () => true } },
    );
    expect(Object.keys(retried.samples[0] ?? {})).toEqual([
      ...common,
      "latencyMs",
      "error",
      "sampleId",
      "attempts",
      "retrieved",
      "expectedAnswers",
      "relevantIds",
    ]);
  });

  it("keep each chunk's id, document id, uri, finite score and (when asked) text, in that order", async () => {
    const chunks = [
      { id: "d1" },
      { id: "d2", uri: "u2" },
      { id: "d3", score: 0.5 },
      { id: "d4", uri: "u4", score: 0.25, text: "four" },
      { id: "d5", documentId: "doc5", uri: "u5", score: Number.NaN, text: "five" },
      // null uri and score: a JavaScript target may return them, and they are accepted as absent.
      { id: "d6", uri: null, score: null, text: "six" },
    ] as unknown as RetrievedChunk[];
    const retriever: Retriever = { retrieve: async () => chunks };
    const dataset: EvalSample[] = [{ question: "q", expectedAnswers: [], relevantIds: ["d1"] }];
    const bench = new Benchmark({ dataset, metrics: [hit] });
    const plain = await bench.run(retriever, { name: "plain" });
    const kept = plain.samples[0]?.retrieved ?? [];
    expect(kept.map((c) => Object.entries(c))).toEqual([
      [["id", "d1"]],
      [
        ["id", "d2"],
        ["uri", "u2"],
      ],
      [
        ["id", "d3"],
        ["score", 0.5],
      ],
      [
        ["id", "d4"],
        ["uri", "u4"],
        ["score", 0.25],
      ],
      [
        ["id", "d5"],
        ["documentId", "doc5"],
        ["uri", "u5"],
      ],
      [["id", "d6"]],
    ]);
    // Copies, not the target's objects.
    expect(kept[0]).not.toBe(chunks[0]);
    const withText = await bench.run(retriever, { name: "text", keepChunkText: true });
    expect((withText.samples[0]?.retrieved ?? []).map((c) => Object.keys(c))).toEqual([
      ["id"],
      ["id", "uri"],
      ["id", "score"],
      ["id", "uri", "score", "text"],
      ["id", "documentId", "uri", "text"],
      ["id", "text"],
    ]);
  });
});
