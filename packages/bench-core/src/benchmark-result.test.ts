import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Benchmark } from "./benchmark.js";
import { BenchmarkResult } from "./benchmark-result.js";
import { ConfigurationError } from "./errors.js";
import { RESULT_FORMAT } from "./result/codec.js";
import type { EvalSample, Metric, QueryEngine } from "./types.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-results-"));
});

const samples: EvalSample[] = Array.from({ length: 6 }, (_, i) => ({
  id: `q${i}`,
  question: `question ${i} "quoted" ünïcode`,
  expectedAnswers: [`a${i}`],
  relevantIds: [`d${i}`],
}));

const exact: Metric = {
  name: "exact_match",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: true,
  score: ({ sample, answer }) => {
    // q2's metric fails (an incomplete sample, with its reason); a plain null would not.
    if (sample.id === "q2") throw new Error("judge unreachable");
    return answer === sample.expectedAnswers[0] ? 1 : 0;
  },
};
const latency: Metric = {
  name: "latency_ms",
  higherIsBetter: false,
  needsRelevantIds: false,
  needsAnswer: false,
  score: ({ latencyMs }) => latencyMs,
};
const engine: QueryEngine = {
  async query(_q, { sample }) {
    if (sample.id === "q4") throw new Error("boom");
    return {
      answer: sample.id === "q1" ? "wrong" : (sample.expectedAnswers[0] as string),
      chunks: [{ id: "d0" }],
    };
  },
};

async function sampleResult(): Promise<BenchmarkResult> {
  return new Benchmark({ dataset: samples, metrics: [exact, latency] }).run(engine, {
    name: "run-a",
  });
}

describe("BenchmarkResult save/load", () => {
  it("round-trips to an equal object in the snake_case format", async () => {
    const result = await sampleResult();
    const path = join(dir, "nested", "deeper", "a.json");
    await result.save(path);
    const raw = JSON.parse(await readFile(path, "utf8"));
    expect(raw.format).toBe(RESULT_FORMAT);
    expect(Object.keys(raw)).toEqual([
      "format",
      "name",
      "created_at",
      "duration_s",
      "status",
      "summary",
      "higher_is_better",
      "dataset",
      "keep_chunk_text",
      "samples",
    ]);
    expect(raw.status).toEqual({ successful: 4, errored: 1, incomplete: 1 });
    expect(raw.higher_is_better).toEqual({ exact_match: true, latency_ms: false });
    expect(Object.keys(raw.samples[0])).toEqual([
      "sample_id",
      "question",
      "status",
      "scores",
      "answer",
      "retrieved",
      "latency_ms",
      "error",
      "expected_answers",
      "relevant_ids",
    ]);
    expect(raw.samples[4]).toMatchObject({
      status: "errored",
      error: "boom",
      scores: { exact_match: null },
    });

    const loaded = await BenchmarkResult.load(path);
    expect(loaded).toEqual(result);
    // `samples` is an accessor (a lazy load reads it on demand), which toEqual does not visit.
    expect(loaded.samples).toEqual(result.samples);
    expect(loaded.samples).toHaveLength(6);
    expect(loaded.createdAt).toBeInstanceOf(Date);
    expect(loaded.summary.exact_match).toMatchObject({ count: 4, mean: 0.75 });
  });

  const corrupt: [string, string, RegExp][] = [
    ["empty.json", "", /not valid JSON \(the file is empty\)/],
    ["trunc.json", "", /not valid JSON, truncated/],
    ["array.json", "[1, 2]", /top level: expected an object, found an array/],
    [
      "trailing-comma.json",
      '{\n  "format": "fastrag-bench-result/1",\n}',
      /trailing-comma\.json: line 3, column 1: not valid JSON at "}"/,
    ],
    [
      "emoji.json",
      '{\n  "name": "g😀😀d" "x": 1\n}',
      /emoji\.json: line 2, column 18: not valid JSON at "\\"x\\"/,
    ],
    ["dataset.json", '{"samples": [{"question": "q"}]}', /format: expected a string/],
    ["other.json", '{"name": "x"}', /not a fastrag bench result.*"name"/],
    [
      "future.json",
      '{"format": "fastrag-bench-result/3", "samples": []}',
      /not supported by this version/,
    ],
    ["alien.json", '{"format": "promptfoo/3", "samples": []}', /format is "promptfoo\/3"/],
  ];
  it.each(corrupt)(
    "rejects %s with a ConfigurationError naming the file",
    async (file, content, pattern) => {
      const path = join(dir, file);
      if (file === "trunc.json") {
        const full = JSON.stringify((await sampleResult()).toJSON());
        await writeFile(path, full.slice(0, Math.floor(full.length / 2)));
      } else {
        await writeFile(path, content);
      }
      const error = await BenchmarkResult.load(path).catch((e: unknown) => e);
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain(path);
      expect((error as Error).message).toMatch(pattern);
    },
  );
});

describe("prototype safety", () => {
  it("keeps __proto__, constructor and prototype keys as plain data", async () => {
    const text = `{"format": "${RESULT_FORMAT}", "name": "p", "created_at": "2026-01-01T00:00:00Z", "duration_s": 1,
      "status": {"successful": 1, "errored": 0, "incomplete": 0},
      "summary": {"__proto__": {"count": 1, "mean": 1, "std": 0, "min": 1, "p50": 1, "p90": 1, "p95": 1, "p99": 1, "max": 1},
        "constructor": {"count": 1, "mean": 0.5, "std": 0, "min": 0.5, "p50": 0.5, "p90": 0.5, "p95": 0.5, "p99": 0.5, "max": 0.5},
        "prototype": {"count": 1, "mean": 0, "std": 0, "min": 0, "p50": 0, "p90": 0, "p95": 0, "p99": 0, "max": 0}},
      "higher_is_better": {"__proto__": true, "constructor": false, "prototype": true},
      "samples": [{"question": "q", "status": "successful", "scores": {"__proto__": 1, "constructor": 0.5, "prototype": 0},
        "answer": null, "retrieved_ids": [], "retrieved_uris": [], "latency_ms": 1, "error": null}]}`;
    const r = BenchmarkResult.parse(text, "proto.json");
    const scores = r.samples[0]?.scores as Record<string, number>;
    expect(Object.getPrototypeOf(scores)).toBe(Object.prototype);
    expect(Object.keys(scores)).toEqual(["__proto__", "constructor", "prototype"]);
    expect(Object.getOwnPropertyDescriptor(scores, "__proto__")?.value).toBe(1);
    expect(r.metrics).toEqual(["__proto__", "constructor", "prototype"]);
    expect(Object.getOwnPropertyDescriptor(r.summary, "__proto__")?.value.mean).toBe(1);
    expect(({} as Record<string, unknown>).count).toBeUndefined();
    // And it survives a save/load round trip as data.
    const path = join(dir, "proto.json");
    await r.save(path);
    const back = await BenchmarkResult.load(path);
    expect(Object.keys(back.samples[0]?.scores ?? {})).toEqual([
      "__proto__",
      "constructor",
      "prototype",
    ]);
  });
});
