import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Benchmark } from "../benchmark.js";
import { BenchmarkResult } from "../benchmark-result.js";
import { ConfigurationError } from "../errors.js";
import type { EvalSample, Metric, QueryEngine } from "../types.js";

let _dir: string;
beforeAll(async () => {
  _dir = await mkdtemp(join(tmpdir(), "fastrag-results-"));
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

describe("BenchmarkResult.merge", () => {
  const bench = () => new Benchmark({ dataset: samples, metrics: [exact, latency] });

  it("joins shards into the whole run in dataset order with recomputed summaries", async () => {
    const shards = await Promise.all(
      [2, 0, 1].map((index) => bench().run(engine, { name: "m", shard: { index, count: 3 } })),
    );
    const merged = BenchmarkResult.merge(shards);
    const whole = await bench().run(engine, { name: "m" });
    expect(merged.samples.map((s) => s.sampleId)).toEqual(samples.map((s) => s.id));
    expect(merged.status).toEqual(whole.status);
    expect(merged.summary.exact_match).toEqual(whole.summary.exact_match);
    expect(merged.shard).toBeUndefined();
  });

  it("refuses shard files whose shard indexes were swapped, instead of merging them out of order", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fastrag-swapped-"));
    const even = samples.length % 2 === 0 ? samples : samples.slice(0, -1);
    const b = new Benchmark({ dataset: even, metrics: [exact, latency] });
    const files: string[] = [];
    for (const index of [0, 1]) {
      const file = join(dir, `m.shard-${index + 1}-of-2.json`);
      await (await b.run(engine, { name: "m", shard: { index, count: 2 } })).save(file);
      files.push(file);
    }
    // Swap the shard indexes inside the two files, as an edit or a faulty script would.
    const texts = await Promise.all(files.map((f) => readFile(f, "utf8")));
    await writeFile(files[0] as string, (texts[0] as string).replace('"index": 0', '"index": 1'));
    await writeFile(files[1] as string, (texts[1] as string).replace('"index": 1', '"index": 0'));
    const loaded = await Promise.all(files.map((f) => BenchmarkResult.load(f)));
    expect(loaded[0]?.shard?.index).toBe(1);
    expect(() => BenchmarkResult.merge(loaded)).toThrow(
      new ConfigurationError(
        `merge: the result of "m" that says it is shard 2/2 holds the samples of shard 1/2 (its shard index was changed); merged, each of its samples would land in another's place. Set its shard index back to 0, or run the shard again`,
        { kind: "invalid-input", field: "shard" },
      ),
    );
    // Unswapped, they merge in dataset order; and the fingerprint survives save and load.
    const good = await Promise.all(
      texts.map(async (t, i) => {
        await writeFile(files[i] as string, t as string);
        return BenchmarkResult.load(files[i] as string);
      }),
    );
    expect(good[0]?.shard?.samplesFingerprint).toMatch(/^sha256:[0-9a-f]{32}$/);
    expect(BenchmarkResult.merge(good).samples.map((s) => s.sampleId)).toEqual(
      even.map((s) => s.id),
    );
    // Without fingerprints (files from before they were recorded), merge trusts the indexes.
    const old = texts.map((t) => t.replace(/,\s*"samples_fingerprint": "[^"]*"/, ""));
    expect(old[0]).not.toContain("samples_fingerprint");
    for (const [i, t] of old.entries()) await writeFile(files[i] as string, t);
    const older = await Promise.all(files.map((f) => BenchmarkResult.load(f)));
    expect(older[0]?.shard?.samplesFingerprint).toBeUndefined();
    expect(BenchmarkResult.merge(older).samples).toHaveLength(even.length);
  });

  it("refuses overlapping, incomplete or mismatched shards, saying which", async () => {
    const s0 = await bench().run(engine, { name: "m", shard: { index: 0, count: 2 } });
    const s1 = await bench().run(engine, { name: "m", shard: { index: 1, count: 2 } });
    expect(() => BenchmarkResult.merge([s0, s0, s1])).toThrow(/shard 1\/2 appears twice/);
    expect(() => BenchmarkResult.merge([s0])).toThrow(/missing shard\(s\) 2\/2/);
    const other = await bench().run(engine, { name: "other", shard: { index: 1, count: 2 } });
    expect(() => BenchmarkResult.merge([s0, other])).toThrow(
      /shards belong to different runs: .*; merge each run's shards on their own/,
    );
    const fewer = await new Benchmark({ dataset: samples, metrics: [exact] }).run(engine, {
      name: "m",
      shard: { index: 1, count: 2 },
    });
    expect(() => BenchmarkResult.merge([s0, fewer])).toThrow(/different metrics/);
    // The same metrics, but one shard scored exact_match as lower-is-better.
    const flipped = await new Benchmark({
      dataset: samples,
      metrics: [{ ...exact, higherIsBetter: false }, latency],
    }).run(engine, { name: "m", shard: { index: 1, count: 2 } });
    for (const order of [
      [s0, flipped],
      [flipped, s0],
    ]) {
      expect(() => BenchmarkResult.merge(order)).toThrow(
        /disagree on the direction of "exact_match"/,
      );
    }
    const otherData = await new Benchmark({
      dataset: samples.slice(0, 5),
      metrics: [exact, latency],
    }).run(engine, {
      name: "m",
      shard: { index: 1, count: 2 },
    });
    expect(() => BenchmarkResult.merge([s0, otherData])).toThrow(/different datasets/);
    const whole = await bench().run(engine, { name: "m" });
    expect(() => BenchmarkResult.merge([whole])).toThrow(/not a shard/);
  });

  it("refuses what is not a list of results with a ConfigurationError, never a TypeError", async () => {
    const s0 = await bench().run(engine, { name: "m", shard: { index: 0, count: 2 } });
    for (const [input, message] of [
      [null, "merge: expected an array of results, found null"],
      [s0, "merge: expected an array of results, found an object"],
      [[s0, null], "merge: shards[1] is null, expected a BenchmarkResult (from run() or load())"],
      [[{}], "merge: shards[0] is an object, expected a BenchmarkResult (from run() or load())"],
    ] as const) {
      expect(() => BenchmarkResult.merge(input as never)).toThrow(
        new ConfigurationError(message, { kind: "invalid-option" }),
      );
    }
  });
});
