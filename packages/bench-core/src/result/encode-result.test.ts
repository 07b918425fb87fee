import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Benchmark } from "../benchmark.js";
import { BenchmarkResult } from "../benchmark-result.js";
import type { EvalSample, Metric, QueryEngine, RetrievedChunk } from "../types.js";
import { RESULT_FORMAT } from "./codec.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-format2-"));
});

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

  it("keeps chunks, usage, judge usage, gold data, metadata, the stack and provenance", async () => {
    const result = await new Benchmark({ dataset: samples, metrics: [judged] }).run(engine, {
      name: "f2",
      provenance: { configHash: "sha256:abc", gitCommit: "0123abc", params: { topK: 5 } },
    });
    const path = join(dir, "f2.json");
    await result.save(path);
    const text = await readFile(path, "utf8");
    const raw = JSON.parse(text);
    expect(raw.format).toBe(RESULT_FORMAT);
    expect(RESULT_FORMAT).toBe("fastrag-bench-result/2");
    expect(raw.config_hash).toBe("sha256:abc");
    expect(raw.git_commit).toBe("0123abc");
    expect(raw.params).toEqual({ topK: 5 });
    expect(raw.keep_chunk_text).toBe(false);
    // Header totals: 10+3 input tokens, cost 0.25+0.5; two judged samples of 2 calls each.
    expect(raw.usage).toEqual({ input_tokens: 13, output_tokens: 4, total_tokens: 14, cost: 0.75 });
    expect(raw.judge_usage).toEqual({
      input_tokens: 300,
      output_tokens: 6,
      total_tokens: 202,
      cost: 0.02,
      calls: 4,
    });
    const [a, b, c] = raw.samples;
    // Text is not kept unless asked; a NaN score is no score.
    expect(a.retrieved).toEqual([
      { id: "c1", document_id: "d1", uri: "u1", score: 0.5 },
      { id: "c2" },
    ]);
    expect(a.usage).toEqual({ input_tokens: 10, output_tokens: 4, total_tokens: 14, cost: 0.25 });
    expect(a.judge_usage).toEqual({
      input_tokens: 150,
      output_tokens: 3,
      total_tokens: 101,
      cost: 0.01,
      calls: 2,
    });
    expect(a.expected_answers).toEqual(["x"]);
    expect(a.relevant_ids).toEqual(["c1"]);
    expect(a.relevance).toEqual({ c1: 2 });
    expect(a.metadata).toEqual({ topic: "t1" });
    // An engine that returned no chunks: null, not an empty list.
    expect(b.retrieved).toBeNull();
    expect(b.metadata).toBeUndefined();
    expect(c.status).toBe("errored");
    expect(c.error).toBe("TypeError: no pipeline");
    expect(c.error_stack).toMatch(/^TypeError: no pipeline\n\s+at /);
    expect(c.expected_answers).toEqual(["z"]);
    expect(c.judge_usage).toBeUndefined();
    // One sample per line, as before.
    const lines = text.split("\n");
    expect(lines.filter((l) => l.startsWith('{"sample_id"'))).toHaveLength(3);

    for (const lazy of [false, true]) {
      const back = await BenchmarkResult.load(path, { lazy });
      expect(back.samples).toEqual(result.samples);
      expect(back.provenance).toEqual({
        configHash: "sha256:abc",
        gitCommit: "0123abc",
        params: { topK: 5 },
      });
      expect(back.judgeUsage).toEqual({
        inputTokens: 300,
        outputTokens: 6,
        totalTokens: 202,
        cost: 0.02,
        calls: 4,
      });
      expect(back.samples[0]?.retrievedIds).toEqual(["c1", "c2"]);
      expect(back.samples[0]?.retrievedUris).toEqual(["u1", null]);
    }
  });

  it("keeps chunk text with keepChunkText, and records a cached sample", async () => {
    const result = await new Benchmark({ dataset: samples, metrics: [judged] }).run(engine, {
      name: "text",
      keepChunkText: true,
    });
    expect(result.keepChunkText).toBe(true);
    expect(result.samples[0]?.retrieved?.map((c) => c.text)).toEqual(["chunk one", "chunk two"]);
    const cached = new BenchmarkResult({
      name: "text",
      createdAt: result.createdAt,
      durationS: 0,
      higherIsBetter: result.higherIsBetter,
      keepChunkText: true,
      samples: result.samples.map((s) => (s.status === "errored" ? s : { ...s, cached: true })),
    });
    const path = join(dir, "text.json");
    await cached.save(path);
    const raw = JSON.parse(await readFile(path, "utf8"));
    expect(raw.keep_chunk_text).toBe(true);
    expect(raw.samples[0].retrieved[1]).toEqual({ id: "c2", text: "chunk two" });
    expect(raw.samples.map((s: { cached?: boolean }) => s.cached)).toEqual([true, true, undefined]);
    const back = await BenchmarkResult.load(path);
    expect(back.keepChunkText).toBe(true);
    expect(back.samples[0]?.cached).toBe(true);
  });
});
