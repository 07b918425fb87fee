import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Benchmark } from "../benchmark.js";
import { BenchmarkResult } from "../benchmark-result.js";
import { MemoryCache, type ResponseCache } from "../cache.js";
import { ConfigurationError } from "../errors.js";
import type { EvalSample, Metric, QueryEngine, Retriever } from "../types.js";

const samples: EvalSample[] = [
  { id: "q1", question: "Capital of France?", expectedAnswers: ["Paris"], relevantIds: ["d1"] },
  { id: "q2", question: "Capital of Italy?", expectedAnswers: ["Rome"], relevantIds: ["d2"] },
  { id: "q3", question: "Capital of Spain?", expectedAnswers: ["Madrid"], relevantIds: ["d3"] },
];
const exact: Metric = {
  name: "exact",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: true,
  score: ({ sample, answer }) => (sample.expectedAnswers.includes(answer ?? "") ? 1 : 0),
};
const latency: Metric = {
  name: "latency_ms",
  higherIsBetter: false,
  needsRelevantIds: false,
  needsAnswer: false,
  score: ({ latencyMs }) => latencyMs,
};
const hit: Metric = {
  name: "hit",
  higherIsBetter: true,
  needsRelevantIds: true,
  needsAnswer: false,
  score: ({ sample, retrieved }) =>
    retrieved.some((c) => sample.relevantIds.includes(c.id)) ? 1 : 0,
};

/** An engine that counts calls per question, answers from a table and takes a few ms. */
function engine(answers: Record<string, string>, extra: Partial<QueryEngine> = {}) {
  const calls: string[] = [];
  const target: QueryEngine = {
    ...extra,
    async query(question, { sample }) {
      calls.push(question);
      await new Promise((r) => setTimeout(r, 2));
      const answer = answers[sample.id as string];
      if (answer === undefined) throw new Error(`no answer for ${sample.id}`);
      return {
        answer,
        chunks: [{ id: `d${sample.id?.slice(1)}`, uri: "doc://x", score: 0.5 }],
        usage: { inputTokens: 10, outputTokens: 2 },
      };
    },
  };
  return { target, calls };
}

const answers = { q1: "Paris", q2: "Milan", q3: "Madrid" };

describe("run({ cache })", () => {
  it("a second run calls the target 0 times, writes the same scores and marks cached samples", async () => {
    const cache = new MemoryCache();
    const bench = new Benchmark({ dataset: samples, metrics: [exact, latency, hit] });
    const { target, calls } = engine(answers);
    const first = await bench.run(target, { name: "r", cache });
    expect(calls).toHaveLength(3);
    expect(first.samples.map((s) => s.cached)).toEqual([undefined, undefined, undefined]);
    const second = await bench.run(target, { name: "r", cache });
    expect(calls).toHaveLength(3);
    expect(second.samples.map((s) => s.cached)).toEqual([true, true, true]);
    // Latency included: the stored latency is the one scored and recorded.
    expect(second.samples.map((s) => s.scores)).toEqual(first.samples.map((s) => s.scores));
    expect(second.samples.map((s) => s.latencyMs)).toEqual(first.samples.map((s) => s.latencyMs));
    expect(second.samples.map((s) => [s.answer, s.retrievedIds, s.retrievedUris])).toEqual(
      first.samples.map((s) => [s.answer, s.retrievedIds, s.retrievedUris]),
    );
  });

  it("one edited question calls the target exactly once", async () => {
    const cache = new MemoryCache();
    const { target, calls } = engine(answers);
    await new Benchmark({ dataset: samples, metrics: [exact] }).run(target, { name: "r", cache });
    const edited = samples.map((s) =>
      s.id === "q2" ? { ...s, question: "Capital city of Italy?" } : s,
    );
    const again = await new Benchmark({ dataset: edited, metrics: [exact] }).run(target, {
      name: "r",
      cache,
    });
    expect(calls).toHaveLength(4);
    expect(calls.slice(3)).toEqual(["Capital city of Italy?"]);
    expect(again.samples.map((s) => s.cached)).toEqual([true, undefined, true]);
  });

  it("never stores an error: the errored sample is called again next run", async () => {
    const cache = new MemoryCache();
    const bench = new Benchmark({ dataset: samples, metrics: [exact] });
    const partial = engine({ q1: "Paris", q3: "Madrid" });
    const first = await bench.run(partial.target, { name: "r", cache });
    expect(first.status).toEqual({ successful: 2, errored: 1, incomplete: 0 });
    const full = engine(answers);
    const second = await bench.run(full.target, { name: "r", cache });
    expect(full.calls).toEqual(["Capital of Italy?"]);
    expect(second.status.errored).toBe(0);
    expect(cache.size).toBe(3);
  });

  it("refresh calls every sample again and overwrites", async () => {
    const cache = new MemoryCache();
    const bench = new Benchmark({ dataset: samples, metrics: [exact] });
    await bench.run(engine(answers).target, { name: "r", cache });
    const fixed = engine({ ...answers, q2: "Rome" });
    const refreshed = await bench.run(fixed.target, { name: "r", cache, refresh: true });
    expect(fixed.calls).toHaveLength(3);
    expect(refreshed.samples.map((s) => s.scores.exact)).toEqual([1, 1, 1]);
    const later = engine(answers);
    const fromCache = await bench.run(later.target, { name: "r", cache });
    expect(later.calls).toHaveLength(0);
    expect(fromCache.samples.map((s) => s.scores.exact)).toEqual([1, 1, 1]);
  });

  it("keys by the target's cacheKey, else by the run name", async () => {
    const cache = new MemoryCache();
    const bench = new Benchmark({ dataset: samples, metrics: [exact] });
    const a = engine(answers, { cacheKey: "rag-v1" });
    await bench.run(a.target, { name: "monday", cache });
    await bench.run(a.target, { name: "tuesday", cache });
    expect(a.calls).toHaveLength(3);
    const b = engine(answers, { cacheKey: "rag-v2" });
    await bench.run(b.target, { name: "monday", cache });
    expect(b.calls).toHaveLength(3);
    const c = engine(answers);
    await bench.run(c.target, { name: "monday", cache });
    await bench.run(c.target, { name: "wednesday", cache });
    expect(c.calls).toHaveLength(6);
  });

  it("caches a retriever's chunks", async () => {
    const cache = new MemoryCache();
    let calls = 0;
    const retriever: Retriever = {
      async retrieve(_q, { sample }) {
        calls++;
        return [{ id: `d${sample.id?.slice(1)}`, documentId: "doc", text: "t", score: 1 }];
      },
    };
    const bench = new Benchmark({ dataset: samples, metrics: [hit] });
    const first = await bench.run(retriever, { name: "r", cache });
    const second = await bench.run(retriever, { name: "r", cache });
    expect(calls).toBe(3);
    expect(second.samples.map((s) => s.scores)).toEqual(first.samples.map((s) => s.scores));
    expect(second.samples.map((s) => s.scores.hit)).toEqual([1, 1, 1]);
  });

  it("a store that cannot be read errors the sample without calling; a failed write keeps the output", async () => {
    const broken: ResponseCache = {
      get: () => {
        throw new ConfigurationError("cache store /x/cache.sqlite: the file is damaged");
      },
      set: () => {},
      close: () => {},
    };
    const { target, calls } = engine(answers);
    const bench = new Benchmark({ dataset: samples, metrics: [exact] });
    const r = await bench.run(target, { name: "r", cache: broken });
    expect(calls).toHaveLength(0);
    expect(r.samples.map((s) => s.error)).toEqual(
      Array(3).fill("cache store /x/cache.sqlite: the file is damaged"),
    );
    const readOnly: ResponseCache = {
      get: () => undefined,
      set: () => {
        throw new ConfigurationError("cache store /x: the file is not writable");
      },
      close: () => {},
    };
    const w = await bench.run(target, { name: "r", cache: readOnly });
    expect(calls).toHaveLength(3);
    expect(w.samples.map((s) => s.scores.exact)).toEqual([1, 0, 1]);
    expect(w.samples[0]?.error).toMatch(/^not cached: .*the file is not writable$/);
    // Such a record saves and loads as it is (a successful sample that says why it was not kept).
    const file = join(mkdtempSync(join(tmpdir(), "target-cache-")), "w.json");
    await w.save(file);
    const loaded = await BenchmarkResult.load(file);
    expect(loaded.samples[0]?.status).toBe("successful");
    expect(loaded.samples[0]?.error).toBe(w.samples[0]?.error);
  });

  it("refuses a bad cache, refresh or cacheKey before any call", async () => {
    const { target, calls } = engine(answers, { cacheKey: "" });
    const bench = new Benchmark({ dataset: samples, metrics: [exact] });
    await expect(bench.run(target, { name: "r", cache: {} as ResponseCache })).rejects.toThrow(
      /cache must be a ResponseCache/,
    );
    await expect(
      bench.run(target, { name: "r", cache: new MemoryCache(), refresh: "yes" as never }),
    ).rejects.toThrow(/Benchmark.run: refresh must be true or false/);
    await expect(bench.run(target, { name: "r", cache: new MemoryCache() })).rejects.toThrow(
      /the target's cacheKey must be a non-empty string, found the string ""/,
    );
    expect(calls).toHaveLength(0);
  });
});
