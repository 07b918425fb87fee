// Trials: every sample run n times. Known answers from first principles: a seeded Bernoulli
// target's mean is p and its per-sample spread √(p(1−p)); a deterministic target spreads 0.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Benchmark } from "../benchmark.js";
import { BenchmarkResult } from "../benchmark-result.js";
import { MemoryCache } from "../cache.js";
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

const killFixture = fileURLToPath(new URL("../__fixtures__/kill-trials.mjs", import.meta.url));

describe("trials: known answers", () => {
  for (const p of [0.5, 0.3]) {
    it(`a target right with probability ${p}: mean p within 3 SE, trial_std √(p(1−p)) within 3 %`, async () => {
      const n = 2000;
      const trials = 20;
      const result = await new Benchmark({ dataset: dataset(n), metrics: [exact] }).run(
        bernoulliEngine(p, 12345 + Math.round(p * 100)),
        { name: `p${p}`, trials },
      );
      expect(result.trials).toBe(trials);
      const s = result.summary.exact;
      // Every draw is independent: the grand mean has standard error √(p(1−p)/(n·trials)).
      const se = Math.sqrt((p * (1 - p)) / (n * trials));
      expect(Math.abs((s?.mean as number) - p)).toBeLessThan(3 * se);
      const sigma = Math.sqrt(p * (1 - p));
      expect(Math.abs((s?.trial_std as number) - sigma) / sigma).toBeLessThan(0.03);
      for (const sample of result.samples) expect(sample.trials).toHaveLength(trials);
    });
  }

  it("a deterministic target: trial_std 0, nothing flips, scores equal the trials-1 run", async () => {
    const benchmark = new Benchmark({ dataset: dataset(60), metrics: [exact, hit] });
    const one = await benchmark.run(deterministicEngine(), { name: "d" });
    const five = await benchmark.run(deterministicEngine(), { name: "d", trials: 5 });
    expect(five.summary.exact?.trial_std).toBe(0);
    expect(five.summary.hit?.trial_std).toBe(0);
    expect(five.samples.map((s) => s.scores)).toEqual(one.samples.map((s) => s.scores));
    for (const s of five.samples) {
      for (const t of s.trials ?? []) expect(t.scores).toEqual(s.scores);
    }
    expect(five.summary.exact?.mean).toBe(one.summary.exact?.mean);
    expect(one.summary.exact?.trial_std).toBeUndefined();
  });
});

describe("trials: sample status and scores", () => {
  it("refuses a bad trials option with its kind and option", async () => {
    const b = new Benchmark({ dataset: dataset(2), metrics: [exact] });
    for (const bad of [0, -1, 1.5, Number.NaN, "3", Number.MAX_SAFE_INTEGER + 1]) {
      const error = await b
        .run(deterministicEngine(), { name: "x", trials: bad as number })
        .catch((e: unknown) => e);
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as ConfigurationError).kind).toBe("invalid-option");
      expect((error as ConfigurationError).option).toBe("trials");
    }
    let thrown: unknown;
    try {
      new Benchmark({ dataset: dataset(2), metrics: [exact], trials: 0 });
    } catch (e) {
      thrown = e;
    }
    expect((thrown as ConfigurationError).option).toBe("trials");
  });
});

describe("trials: cache and journal", () => {
  it("keys the cache by trial: a cached re-run replays every trial without a call", async () => {
    const cache = new MemoryCache();
    const b = new Benchmark({ dataset: dataset(5), metrics: [exact] });
    const first = await b.run(bernoulliEngine(0.5, 42), { name: "c", trials: 4, cache });
    let calls = 0;
    const counting: QueryEngine = {
      query: async () => {
        calls++;
        return { answer: "right", chunks: [] };
      },
    };
    const again = await b.run(counting, { name: "c", trials: 4, cache });
    expect(calls).toBe(0);
    expect(again.samples.map((s) => s.trials?.map((t) => t.answer))).toEqual(
      first.samples.map((s) => s.trials?.map((t) => t.answer)),
    );
    expect(again.samples.every((s) => s.cached === true)).toBe(true);
    // A trials-1 run keys as trial 0 did: it hits; a sixth trial does not.
    await b.run(counting, { name: "c", cache });
    expect(calls).toBe(0);
    await b.run(counting, { name: "c", trials: 5, cache });
    expect(calls).toBe(5);
  });

  it("journals each trial, and a resume runs only the trials left", async () => {
    const journal = join(dir, "j.jsonl");
    const b = new Benchmark({ dataset: dataset(4), metrics: [exact], maxConcurrent: 1 });
    const stop = new AbortController();
    let calls = 0;
    const stopping: QueryEngine = {
      query: async () => {
        calls++;
        if (calls === 7) stop.abort();
        return { answer: "right", chunks: [] };
      },
    };
    const error = await b
      .run(stopping, { name: "j", trials: 5, checkpoint: journal, stop: stop.signal })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe("RunAbortedError");
    const lines = (await readFile(journal, "utf8")).trim().split("\n");
    expect(JSON.parse(lines[0] as string).trials).toBe(5);
    expect(lines.length - 1).toBe(7);
    const resumedCalls: string[] = [];
    const resumed = await b.run(deterministicEngine(resumedCalls), {
      name: "j",
      trials: 5,
      checkpoint: journal,
    });
    // 4 samples × 5 trials = 20, 7 journaled: 13 left, 3 of them for q1 (trials 2..4).
    expect(resumedCalls).toHaveLength(13);
    expect(resumedCalls.filter((id) => id === "q1")).toHaveLength(3);
    expect(resumed.samples.map((s) => s.trials?.length)).toEqual([5, 5, 5, 5]);
    // A journal of 5 trials is not resumed with 3.
    const refused = await b
      .run(deterministicEngine(), { name: "j", trials: 3, checkpoint: journal })
      .catch((e: unknown) => e);
    expect((refused as ConfigurationError).kind).toBe("journal-unusable");
  });

  it("reports progress in samples and trials", async () => {
    const seen: { done: number; trialsDone?: number; trialsTotal?: number }[] = [];
    await new Benchmark({ dataset: dataset(3), metrics: [exact], maxConcurrent: 1 }).run(
      deterministicEngine(),
      { name: "p", trials: 2, onProgress: (p) => seen.push({ ...p }) },
    );
    const last = seen[seen.length - 1];
    expect(last).toMatchObject({ done: 3, total: 3, trialsDone: 6, trialsTotal: 6 });
    expect(seen.map((p) => p.trialsDone)).toContain(1);
  });
});

const builtCore = fileURLToPath(new URL("../../dist/index.js", import.meta.url));

describe.runIf(existsSync(builtCore))(
  "trials: SIGKILL mid-sample (needs the built package)",
  () => {
    it("a kill after 3 of 5 trials of a sample resumes the 2 left, and runs no finished trial again", async () => {
      const journal = join(dir, "kill.jsonl");
      const calls = join(dir, "calls.txt");
      const out = join(dir, "out.json");
      await writeFile(calls, "");
      // One call at a time: q0 and q1 take calls 1–10, q2 calls 11–13; call 14 (q2's 4th) hangs.
      const child = spawn(process.execPath, [killFixture, journal, calls, out, "6", "14"], {
        stdio: ["ignore", "ignore", "pipe"],
      });
      const exited = new Promise((r) => child.once("exit", r));
      for (;;) {
        const lines = (await readFile(calls, "utf8")).split("\n").filter(Boolean);
        if (lines.length >= 14) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      child.kill("SIGKILL");
      await exited;
      expect(existsSync(out)).toBe(false);
      const before = (await readFile(calls, "utf8")).split("\n").filter(Boolean);
      expect(before).toHaveLength(14);

      const resume = spawn(process.execPath, [killFixture, journal, calls, out, "6", "0"], {
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      resume.stderr?.on("data", (d) => {
        stderr += String(d);
      });
      const code = await new Promise((r) => resume.once("exit", r));
      expect(code, stderr).toBe(0);
      const after = (await readFile(calls, "utf8")).split("\n").filter(Boolean).slice(14);
      const count = (id: string) => after.filter((c) => c === id).length;
      expect(count("q0")).toBe(0);
      expect(count("q1")).toBe(0);
      expect(count("q2")).toBe(2);
      for (const id of ["q3", "q4", "q5"]) expect(count(id)).toBe(5);
      const result = await BenchmarkResult.load(out);
      expect(result.trials).toBe(5);
      expect(result.samples.map((s) => s.trials?.length)).toEqual([5, 5, 5, 5, 5, 5]);
    }, 30_000);
  },
);
