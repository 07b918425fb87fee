// The shape of a scored record and of its kept chunks: which keys, in which order, whichever way
// the record was built (one literal for the usual sample, field by field for the others).

import { describe, expect, it } from "vitest";
import { dataset, exact } from "../__fixtures__/run-fixtures.js";
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

describe("the record keeps what the dataset held", () => {
  /** A target that overwrites the sample's question and id during its call. */
  const vandal = (seen: unknown[]): QueryEngine => ({
    async query(question, o) {
      seen.push(question);
      const sample = o.sample as { question: unknown; id: unknown };
      const answer = o.sample.expectedAnswers[0] as string;
      const chunks = [{ id: o.sample.relevantIds[0] ?? "x" }];
      sample.question = 42;
      sample.id = 7;
      return { answer, chunks };
    },
  });

  it("records the question and id read before the call, on every path", async () => {
    const options = [
      {},
      { timeoutMs: 60_000 },
      { signal: new AbortController().signal },
      { retries: { attempts: 2, retryOn: () => true } },
    ];
    for (const extra of options) {
      for (const metrics of [[exact], [{ ...exact, score: async () => 1 }]]) {
        const seen: unknown[] = [];
        const result = await new Benchmark({ dataset: dataset(2), metrics }).run(vandal(seen), {
          name: "v",
          ...extra,
        });
        const label = JSON.stringify(extra);
        expect(
          result.samples.map((s) => [s.question, s.sampleId]),
          label,
        ).toEqual([
          ["question 0", "q0"],
          ["question 1", "q1"],
        ]);
        expect(seen, label).toEqual(["question 0", "question 1"]);
      }
    }
  });

  it("records them for an errored sample, and a retry asks the question the dataset held", async () => {
    const seen: unknown[] = [];
    const failing: QueryEngine = {
      async query(question, o) {
        seen.push(question);
        (o.sample as { question: unknown }).question = 42;
        (o.sample as { id: unknown }).id = 7;
        throw new Error("transient");
      },
    };
    const result = await new Benchmark({ dataset: dataset(1), metrics: [exact] }).run(failing, {
      name: "v",
      retries: { attempts: 2, backoffMs: 1, retryOn: () => true },
    });
    expect(result.samples.map((s) => [s.status, s.question, s.sampleId, s.attempts])).toEqual([
      ["errored", "question 0", "q0", 2],
    ]);
    expect(seen).toEqual(["question 0", "question 0"]);
  });
});
