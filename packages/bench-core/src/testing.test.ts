import { describe, expect, it } from "vitest";
import { Benchmark } from "./benchmark.js";
import { fakeDataset, fakeEngine, fakeRetriever, metricInput } from "./testing.js";
import type { Metric } from "./types.js";

const exact: Metric = {
  name: "exact",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: true,
  score: ({ sample, answer }) =>
    sample.expectedAnswers.length === 0
      ? null
      : sample.expectedAnswers.includes(answer ?? "")
        ? 1
        : 0,
};

const firstHit: Metric = {
  name: "first_hit_rank",
  higherIsBetter: false,
  needsRelevantIds: true,
  needsAnswer: false,
  score: ({ sample, retrieved }) => {
    const i = retrieved.findIndex((c) => sample.relevantIds.includes(c.id));
    return i < 0 ? null : i + 1;
  },
};

describe("fakeDataset", () => {
  it("fills ids, questions and empty answers from a count", () => {
    expect(fakeDataset(2).samples).toEqual([
      { id: "q1", question: "question 1", expectedAnswers: [], relevantIds: [] },
      { id: "q2", question: "question 2", expectedAnswers: [], relevantIds: [] },
    ]);
  });

  it("keeps the fields given", () => {
    const [s] = fakeDataset([{ id: "a", relevantIds: ["d"], metadata: { lang: "en" } }]).samples;
    expect(s).toEqual({
      id: "a",
      question: "question 1",
      expectedAnswers: [],
      relevantIds: ["d"],
      metadata: { lang: "en" },
    });
  });
});

describe("fake targets in a run", () => {
  it("answers by id or question; an unknown sample gets an empty answer", async () => {
    const dataset = fakeDataset([
      { id: "a", question: "capital of France?", expectedAnswers: ["Paris"] },
      { id: "b", question: "capital of Spain?", expectedAnswers: ["Madrid"] },
      { id: "c", question: "capital of Italy?", expectedAnswers: ["Rome"] },
    ]);
    const engine = fakeEngine({
      a: { answer: "Paris" },
      "capital of Spain?": { answer: "Lisbon" },
    });
    const result = await new Benchmark({ dataset, metrics: [exact] }).run(engine, { name: "t" });
    expect(result.samples.map((s) => s.scores.exact)).toEqual([1, 0, 0]);
    expect(result.samples.map((s) => s.answer)).toEqual(["Paris", "Lisbon", ""]);
    expect([...engine.calls].sort()).toEqual([
      "capital of France?",
      "capital of Italy?",
      "capital of Spain?",
    ]);
  });

  it("rejects with the reply's error: the sample is errored, not scored", async () => {
    const engine = fakeEngine({ q1: { error: new Error("model down") } });
    const result = await new Benchmark({
      dataset: fakeDataset([{ expectedAnswers: ["x"] }]),
      metrics: [exact],
    }).run(engine, { name: "t" });
    expect(result.samples[0]?.status).toBe("errored");
    expect(result.samples[0]?.error).toContain("model down");
  });

  it("retrieves the chunks given, in order", async () => {
    const retriever = fakeRetriever({ q1: { chunks: ["x", "d", { id: "y", documentId: "Y" }] } });
    const result = await new Benchmark({
      dataset: fakeDataset([{ relevantIds: ["d"] }, { relevantIds: ["d"] }]),
      metrics: [firstHit],
    }).run(retriever, { name: "t" });
    expect(result.samples.map((s) => s.retrievedIds)).toEqual([["x", "d", "y"], []]);
    expect(result.samples.map((s) => s.scores.first_hit_rank)).toEqual([2, null]);
  });

  it("ends a delayed reply when the run is aborted", async () => {
    const controller = new AbortController();
    const engine = fakeEngine(() => ({ answer: "late", delayMs: 60_000 }));
    const run = new Benchmark({ dataset: fakeDataset(1), metrics: [exact] }).run(engine, {
      name: "t",
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 10);
    const started = Date.now();
    await expect(run).rejects.toMatchObject({ name: "RunAbortedError" });
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});

describe("metricInput", () => {
  it("has a null answer, no chunks and zero latency by default", () => {
    expect(metricInput()).toEqual({
      sample: { id: "q1", question: "question 1", expectedAnswers: [], relevantIds: [] },
      answer: null,
      retrieved: [],
      latencyMs: 0,
    });
  });

  it("turns ids into chunks in rank order", () => {
    const input = metricInput({ relevantIds: ["a"], retrieved: ["x", "a"], answer: "A" });
    expect(input.retrieved).toEqual([{ id: "x" }, { id: "a" }]);
    expect(firstHit.score(input)).toBe(2);
    expect(input.sample.relevantIds).toEqual(["a"]);
  });
});
