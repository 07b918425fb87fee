import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Benchmark } from "../benchmark.js";
import { BenchmarkResult } from "../benchmark-result.js";
import { ConfigurationError } from "../errors.js";
import type { EvalSample, Metric, QueryEngine } from "../types.js";

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
  it("leaves no temporary file behind", async () => {
    const result = await sampleResult();
    const sub = join(dir, "clean");
    await result.save(join(sub, "r.json"));
    await result.save(join(sub, "r.json"));
    expect(await readdir(sub)).toEqual(["r.json"]);
  });

  it("reports a path it cannot write as a ConfigurationError naming it", async () => {
    const result = await sampleResult();
    const file = join(dir, "plain-file");
    await writeFile(file, "");
    const under = join(file, "r.json");
    const error = await result.save(under).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /plain-file\/r\.json: cannot write the file: a parent of it is a file, not a directory \((EEXIST|ENOTDIR)\)$/,
    );
    expect((error as Error).message.startsWith(under)).toBe(true);
    const clean = join(dir, "clean");
    await expect(result.save(clean)).rejects.toThrow(
      /clean: cannot write the file: it is a directory/,
    );
    expect(await readdir(clean)).toEqual(["r.json"]);
  });

  it("creates missing parent directories, and fails (never spins) where none can be made", async () => {
    const result = await sampleResult();
    const deep = join(dir, "a", "b", "c", "r.json");
    await result.save(deep);
    expect(await readdir(join(dir, "a", "b", "c"))).toEqual(["r.json"]);
    // Under /proc, Node's own recursive mkdir retries forever at full CPU.
    if (existsSync("/proc/self")) {
      const error = await result
        .save("/proc/fastrag-no-such-dir/x/r.json")
        .catch((e: unknown) => e);
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(
        /^\/proc\/fastrag-no-such-dir\/x\/r\.json: cannot write the file/,
      );
    }
  }, 10_000);

  const _corrupt: [string, string, RegExp][] = [
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
});

describe("BenchmarkResult.save of what JSON cannot hold", () => {
  it("refuses a cycle with a ConfigurationError naming the field, leaving nothing behind", async () => {
    const good = await sampleResult();
    const sub = join(dir, "cyclic");
    const path = join(sub, "r.json");
    await good.save(path);
    const before = await readFile(path, "utf8");
    const loop: Record<string, unknown> = { text: "x" };
    loop.self = loop;
    const samples = [...good.samples];
    samples[3] = { ...(samples[3] as (typeof samples)[number]), answer: loop as never };
    const cyclicAnswer = new BenchmarkResult({
      name: "c",
      createdAt: new Date(0),
      durationS: 1,
      samples,
      higherIsBetter: good.higherIsBetter,
    });
    const error = await cyclicAnswer.save(path).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toBe(
      `${path}: cannot save the result: samples[3].answer.self cannot be written as JSON (Converting circular structure to JSON); results hold plain data only`,
    );
    // A summary object carrying a link back to itself, and a BigInt score.
    const summary = { ...(good.summary.exact_match as object), parent: null as unknown };
    summary.parent = summary;
    const cyclicSummary = new BenchmarkResult({
      name: "c",
      createdAt: new Date(0),
      durationS: 1,
      samples: good.samples,
      higherIsBetter: good.higherIsBetter,
      summary: { ...good.summary, exact_match: summary as never },
    });
    await expect(cyclicSummary.save(path)).rejects.toThrow(
      new ConfigurationError(
        `${path}: cannot save the result: summary.exact_match.parent cannot be written as JSON (Converting circular structure to JSON); results hold plain data only`,
        { kind: "invalid-input", path, field: "summary.exact_match.parent" },
      ),
    );
    samples[3] = { ...(good.samples[3] as (typeof samples)[number]), scores: { m: 1n as never } };
    const bigint = new BenchmarkResult({
      name: "c",
      createdAt: new Date(0),
      durationS: 1,
      samples,
      higherIsBetter: good.higherIsBetter,
    });
    await expect(bigint.save(path)).rejects.toThrow(
      /: cannot save the result: samples\[3\]\.scores\.m cannot be written as JSON \(Do not know how to serialize a BigInt\)/,
    );
    // No temporary file, and the file saved before is as it was.
    expect(await readdir(sub)).toEqual(["r.json"]);
    expect(await readFile(path, "utf8")).toBe(before);
  });
});
