import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Benchmark } from "../benchmark.js";
import { BenchmarkResult } from "../benchmark-result.js";
import { ConfigurationError } from "../errors.js";
import type { EvalSample, Metric, QueryEngine, RetrievedChunk } from "../types.js";

const fixture = (name: string): string =>
  new URL(`../__fixtures__/format1/${name}`, import.meta.url).pathname;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-format2-"));
});

describe("format-1 files written by main before format 2", () => {
  it("load fully and lazily, with the records make-format1.mjs wrote", async () => {
    for (const lazy of [false, true]) {
      const r = await BenchmarkResult.load(fixture("engine.json"), { lazy });
      expect(r.name).toBe("engine-f1");
      expect(r.status).toEqual({ successful: 2, errored: 1, incomplete: 1 });
      expect(r.sampleIds()).toEqual(["q1", "q2", "q3", "q4"]);
      expect(r.keepChunkText).toBe(false);
      expect(r.usage).toBeUndefined();
      const [q1, q2, q3, q4] = r.samples;
      expect(q1?.answer).toBe("Shakespeare");
      expect(q1?.retrievedIds).toEqual(["d1#0", "d9#0"]);
      expect(q1?.retrievedUris).toEqual(["https://ex.org/d1", null]);
      // Format 1 kept no chunks, usage, gold data or stack.
      expect(q1?.retrieved).toBeUndefined();
      expect(q1?.expectedAnswers).toBeUndefined();
      expect(q2?.retrievedIds).toEqual(["d2#1", "d2#0"]);
      expect(q2?.scores.exact_match).toBe(0);
      expect(q3?.status).toBe("errored");
      expect(q3?.error).toBe("upstream 500: boom");
      expect(q3?.errorStack).toBeUndefined();
      expect(q4?.status).toBe("incomplete");
    }
  });

  it("merge as shards, and save again as format 2 that reads back the same records", async () => {
    const merged = BenchmarkResult.merge([
      await BenchmarkResult.load(fixture("retriever.shard1.json")),
      await BenchmarkResult.load(fixture("retriever.shard0.json")),
    ]);
    const whole = await BenchmarkResult.load(fixture("retriever.json"));
    expect(merged.samples.map((s) => s.sampleId)).toEqual(["q1", "q2", "q3", "q4"]);
    expect(merged.summary).toEqual(whole.summary);
    const path = join(dir, "resaved.json");
    await merged.save(path);
    const raw = JSON.parse(await readFile(path, "utf8"));
    expect(raw.format).toBe("fastrag-bench-result/2");
    // The chunks a format-1 record can give: its ids and uris.
    expect(raw.samples[0].retrieved).toEqual([
      { id: "d1#0", uri: "https://ex.org/d1" },
      { id: "d9#0" },
    ]);
    expect(raw.samples[0].retrieved_ids).toBeUndefined();
    const back = await BenchmarkResult.load(path);
    expect(back.samples.map((s) => [s.retrievedIds, s.retrievedUris])).toEqual(
      whole.samples.map((s) => [s.retrievedIds, s.retrievedUris]),
    );
  });
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

  it("refuses a format-2 sample whose kept fields have the wrong type, naming the field", async () => {
    const result = await new Benchmark({ dataset: samples, metrics: [judged] }).run(engine, {
      name: "bad",
    });
    const good = JSON.parse(JSON.stringify(result.toJSON()));
    const cases: [(s: Record<string, unknown>) => void, RegExp][] = [
      [
        (s) => (s.retrieved = [{ uri: "x" }]),
        /samples\[0\]\.retrieved\[0\]\.id: expected a string/,
      ],
      [(s) => (s.usage = { cost: "1" }), /samples\[0\]\.usage\.cost/],
      [(s) => (s.judge_usage = { cost: 1 }), /samples\[0\]\.judge_usage\.calls/],
      [(s) => (s.expected_answers = "x"), /samples\[0\]\.expected_answers: expected an array/],
      [(s) => (s.metadata = [1]), /samples\[0\]\.metadata: expected an object/],
    ];
    for (const [edit, message] of cases) {
      const data = structuredClone(good);
      edit(data.samples[0]);
      expect(() => BenchmarkResult.fromJSON(data, "bad.json")).toThrow(message);
      try {
        BenchmarkResult.fromJSON(data, "bad.json");
      } catch (error) {
        expect(ConfigurationError.isInstance(error)).toBe(true);
      }
    }
    const noChunks = structuredClone(good);
    delete noChunks.samples[0].retrieved;
    expect(() => BenchmarkResult.fromJSON(noChunks, "bad.json")).toThrow(
      /samples\[0\]\.retrieved: missing, expected an array of chunks/,
    );
  });
});

describe("merge of format-2 shards", () => {
  const samples: EvalSample[] = Array.from({ length: 5 }, (_, i) => ({
    id: `m${i}`,
    question: `q${i}`,
    expectedAnswers: ["a"],
    relevantIds: [],
  }));
  const engine: QueryEngine = {
    query: async () => ({ answer: "a", chunks: [{ id: "c", text: "t" }], usage: { cost: 1 } }),
  };
  const metric: Metric = {
    name: "one",
    higherIsBetter: true,
    needsRelevantIds: false,
    needsAnswer: true,
    score: () => 1,
  };

  it("keeps provenance, sums usage, and refuses shards of different configs", async () => {
    const b = new Benchmark({ dataset: samples, metrics: [metric] });
    const shard = (index: number, configHash: string, keepChunkText: boolean) =>
      b.run(engine, {
        name: "m",
        shard: { index, count: 2 },
        keepChunkText,
        provenance: { configHash, params: { k: 1 } },
      });
    const merged = BenchmarkResult.merge([await shard(0, "h1", true), await shard(1, "h1", true)]);
    expect(merged.provenance).toEqual({ configHash: "h1", params: { k: 1 } });
    expect(merged.usage).toEqual({ cost: 5 });
    expect(merged.keepChunkText).toBe(true);
    const mixedText = BenchmarkResult.merge([
      await shard(0, "h1", true),
      await shard(1, "h1", false),
    ]);
    expect(mixedText.keepChunkText).toBe(false);
    const h1 = await shard(0, "h1", true);
    const h2 = await shard(1, "h2", true);
    expect(() => BenchmarkResult.merge([h1, h2])).toThrow(
      /run from different configs \(config_hash h1 and h2\)/,
    );
  });
});
