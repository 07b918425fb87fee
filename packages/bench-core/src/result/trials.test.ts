import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Benchmark } from "../benchmark.js";
import { BenchmarkResult } from "../benchmark-result.js";
import { ConfigurationError } from "../errors.js";
import type { EvalSample, Metric, QueryEngine } from "../types.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "trials-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function dataset(n: number): EvalSample[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `q${i}`,
    question: `question ${i}`,
    expectedAnswers: ["right"],
    relevantIds: [`doc-${i}`],
  }));
}

const exact: Metric = {
  name: "exact",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: true,
  score: ({ answer }) => (answer === "right" ? 1 : 0),
};
const hit: Metric = {
  name: "hit",
  higherIsBetter: true,
  needsRelevantIds: true,
  needsAnswer: false,
  score: ({ sample, retrieved }) =>
    retrieved.some((c) => sample.relevantIds.includes(c.id)) ? 1 : 0,
};

/** mulberry32: a small seeded generator, so the known-answer runs are the same every time. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function bernoulliEngine(p: number, seed: number): QueryEngine {
  const next = rng(seed);
  return {
    query: async () => ({ answer: next() < p ? "right" : "wrong", chunks: [] }),
  };
}

function deterministicEngine(calls?: string[]): QueryEngine {
  return {
    query: async (_q, { sample }) => {
      calls?.push(sample.id as string);
      const i = Number((sample.id as string).slice(1));
      return {
        answer: i % 3 === 0 ? "wrong" : "right",
        chunks: [{ id: i % 2 ? `doc-${i}` : "other" }],
      };
    },
  };
}

describe("trials: sample status and scores", () => {
  it("errored only when every trial errored, incomplete when some did; means skip nulls", async () => {
    // q0: every trial fails; q1: trials 1 and 3 (of 0..3) fail; q2: none fails.
    const counts = new Map<string, number>();
    const engine: QueryEngine = {
      query: async (_q, { sample }) => {
        const id = sample.id as string;
        const k = counts.get(id) ?? 0;
        counts.set(id, k + 1);
        if (id === "q0" || (id === "q1" && k % 2 === 1)) throw new Error(`boom ${id} ${k}`);
        return { answer: k === 0 ? "right" : "wrong", chunks: [] };
      },
    };
    const r = await new Benchmark({ dataset: dataset(3), metrics: [exact], maxConcurrent: 1 }).run(
      engine,
      { name: "mixed", trials: 4 },
    );
    const [q0, q1, q2] = r.samples;
    expect(q0?.status).toBe("errored");
    expect(q0?.scores.exact).toBeNull();
    expect(q1?.status).toBe("incomplete");
    // Trials 0 and 2 ran: right then wrong → mean 0.5.
    expect(q1?.scores.exact).toBe(0.5);
    expect(q1?.trials?.map((t) => t.status)).toEqual([
      "successful",
      "errored",
      "successful",
      "errored",
    ]);
    expect(q2?.status).toBe("successful");
    expect(q2?.scores.exact).toBe(0.25);
    expect(r.status).toEqual({ successful: 1, incomplete: 1, errored: 1 });
    // trial_std over q1 (0.5 → sample std of [1, 0] = √0.5) and q2 ([1,0,0,0]: √(0.25) = 0.5).
    expect(r.summary.exact?.trial_std).toBeCloseTo((Math.SQRT1_2 + 0.5) / 2, 12);
  });
});

describe("trials: files", () => {
  it("round-trips through save and load, and keeps trials-1 files as they were", async () => {
    const b = new Benchmark({ dataset: dataset(10), metrics: [exact, hit] });
    const five = await b.run(bernoulliEngine(0.5, 7), { name: "five", trials: 5 });
    const path = join(dir, "five.json");
    await five.save(path);
    const text = await readFile(path, "utf8");
    const raw = JSON.parse(text);
    expect(raw.trials).toBe(5);
    expect(raw.samples[0].trials).toHaveLength(5);
    expect(Object.keys(raw.samples[0].trials[0])).toEqual(
      expect.arrayContaining(["status", "scores", "answer", "retrieved", "latency_ms", "error"]),
    );
    const back = await BenchmarkResult.load(path);
    expect(back.trials).toBe(5);
    expect(back.summary).toEqual(five.summary);
    expect(back.samples.map((s) => s.trials?.map((t) => t.scores))).toEqual(
      five.samples.map((s) => s.trials?.map((t) => t.scores)),
    );
    const lazy = await BenchmarkResult.load(path, { lazy: true });
    expect(lazy.summary).toEqual(five.summary);
    expect(lazy.samples[3]?.trials).toHaveLength(5);

    const one = await b.run(deterministicEngine(), { name: "one" });
    const onePath = join(dir, "one.json");
    await one.save(onePath);
    const oneText = await readFile(onePath, "utf8");
    expect(oneText).not.toContain('"trials"');
    expect(oneText).not.toContain("trial_std");
  });

  it("refuses a file whose sample scores are not its trials' means, or whose trial count differs", async () => {
    const r = await new Benchmark({ dataset: dataset(4), metrics: [exact] }).run(
      bernoulliEngine(0.5, 3),
      { name: "x", trials: 3 },
    );
    const json = JSON.parse(JSON.stringify(r.toJSON()));
    // Sample 0's first trial flipped by hand: the sample's mean no longer matches.
    const t0 = json.samples[0].trials[0];
    t0.scores.exact = t0.scores.exact === 1 ? 0 : 1;
    let error: unknown;
    try {
      BenchmarkResult.fromJSON(json, "edited.json");
    } catch (e) {
      error = e;
    }
    expect((error as ConfigurationError).field).toBe("samples[0].scores");

    const short = JSON.parse(JSON.stringify(r.toJSON()));
    short.samples[1].trials.pop();
    short.samples[1].scores.exact = null; // keep it self-consistent below the check that counts
    let error2: unknown;
    try {
      BenchmarkResult.fromJSON(short, "short.json");
    } catch (e) {
      error2 = e;
    }
    expect(ConfigurationError.isInstance(error2)).toBe(true);
    expect((error2 as ConfigurationError).field).toMatch(/^samples\[1\]/);
  });

  it("merges shards with their trials, and refuses shards of different trial counts", async () => {
    const b = new Benchmark({ dataset: dataset(9), metrics: [exact] });
    const shards = await Promise.all(
      [0, 1, 2].map((index) =>
        b.run(deterministicEngine(), { name: "s", trials: 3, shard: { index, count: 3 } }),
      ),
    );
    const merged = BenchmarkResult.merge(shards);
    expect(merged.trials).toBe(3);
    expect(merged.samples.map((s) => s.trials?.length)).toEqual(new Array(9).fill(3));
    expect(merged.summary.exact?.trial_std).toBe(0);
    const other = await b.run(deterministicEngine(), {
      name: "s",
      trials: 2,
      shard: { index: 2, count: 3 },
    });
    let error: unknown;
    try {
      BenchmarkResult.merge([shards[0], shards[1], other] as BenchmarkResult[]);
    } catch (e) {
      error = e;
    }
    expect((error as ConfigurationError).field).toBe("trials");
  });
});

describe("trials: results built by hand", () => {
  it("takes the trial count from the records when none is given, so the file loads back", async () => {
    const r = await new Benchmark({ dataset: dataset(3), metrics: [exact] }).run(
      bernoulliEngine(0.5, 5),
      { name: "h", trials: 2 },
    );
    const copy = new BenchmarkResult({
      name: r.name,
      createdAt: r.createdAt,
      durationS: r.durationS,
      samples: r.samples,
      higherIsBetter: r.higherIsBetter,
    });
    expect(copy.trials).toBe(2);
    expect(copy.summary.exact?.trial_std).toBe(r.summary.exact?.trial_std);
    expect(BenchmarkResult.parse(JSON.stringify(copy.toJSON())).trials).toBe(2);
  });
});
