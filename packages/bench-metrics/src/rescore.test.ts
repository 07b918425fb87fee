// BenchmarkResult.rescore with the real metrics: scores equal a fresh run's, bit for bit, with
// no target call; what a file did not keep is refused before any work.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Benchmark,
  BenchmarkResult,
  ConfigurationError,
  type EvalSample,
  type Metric,
  type QueryEngine,
  type Retriever,
} from "@fastrag/bench-core";
import { scriptedJudge } from "@fastrag/bench-core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import {
  AnswerContains,
  Cost,
  ExactMatch,
  Faithfulness,
  Latency,
  MRR,
  NDCG,
  Precision,
  Recall,
  TokenF1,
  Tokens,
} from "./index.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-rescore-"));
});

// A deterministic engine over 60 samples: answers, chunks with text, usage; one in 7 errors.
const dataset: EvalSample[] = Array.from({ length: 60 }, (_, i) => ({
  id: `s${i}`,
  question: `question ${i}`,
  expectedAnswers: i % 5 === 0 ? [""] : [`answer ${i}`, `the ${i}`],
  relevantIds: i % 9 === 0 ? [] : [`c${i}`, `c${i + 1}`],
  ...(i % 4 === 0 ? { relevance: { [`c${i}`]: 2, [`c${i + 1}`]: 1 } } : {}),
  metadata: { bucket: i % 3 },
}));
let calls = 0;
const engine: QueryEngine = {
  async query(question, { sample }) {
    calls++;
    const i = Number(sample.id?.slice(1));
    if (i % 7 === 3) throw new Error(`pipeline failed on ${question}`);
    return {
      answer: i % 2 === 0 ? `answer ${i}` : `an answer ${i} and more`,
      chunks: [i + 2, i, i + 5, i + 1].map((k, r) => ({
        id: `c${k}`,
        documentId: `d${k % 11}`,
        text: `passage ${k} about answer ${i}`,
        score: 1 / (r + 1),
      })),
      usage: {
        inputTokens: 100 + i,
        outputTokens: i % 13,
        totalTokens: 100 + i + (i % 13),
        cost: i / 1000,
      },
    };
  },
};
/** Faithfulness's steps, answered from their inputs alone: 1 to 3 statements, every other one supported. */
const steps = {
  statements: ({ answer }: { answer: string }) => ({
    statements: Array.from({ length: (answer.length % 3) + 1 }, (_, k) => `${answer} #${k}`),
  }),
  verdicts: ({ statements }: { statements: string[] }) => ({
    verdicts: statements.map((statement, k) => ({
      statement,
      reason: "",
      verdict: k % 2 === 0 ? 1 : 0,
    })),
  }),
};

const firstSet = (): Metric[] => [new Recall({ k: 2 }), new ExactMatch()];
const secondSet = (): Metric[] => [
  new NDCG({ k: 3 }),
  new MRR(),
  new Precision({ k: 2 }),
  new Recall({ k: 3, level: "document" }),
  new TokenF1(),
  new AnswerContains(),
  new Latency(),
  new Tokens(),
  new Cost(),
];

describe("BenchmarkResult.rescore", () => {
  it("gives a fresh run's scores bit for bit, from the saved file, with no target call", async () => {
    const first = await new Benchmark({ dataset, metrics: firstSet() }).run(engine, { name: "e" });
    const path = join(dir, "e.json");
    await first.save(path);
    const saved = await BenchmarkResult.load(path);

    calls = 0;
    const rescored = await saved.rescore(secondSet(), { dataset });
    expect(calls).toBe(0);
    const fresh = await new Benchmark({ dataset, metrics: secondSet() }).run(engine, { name: "e" });
    expect(calls).toBe(60);

    expect(rescored.metrics).toEqual(fresh.metrics);
    expect(rescored.status).toEqual(fresh.status);
    expect(rescored.status.errored).toBe(9); // i % 7 === 3 for i < 60
    for (let i = 0; i < 60; i++) {
      const r = rescored.samples[i];
      const f = fresh.samples[i];
      expect(r?.status).toBe(f?.status);
      for (const m of fresh.metrics) {
        // Object.is: bit for bit, -0 and NaN included. Latency is the saved run's, so compare
        // it to the saved run's own latency rather than to the fresh run's clock.
        if (m === "latency_ms") expect(r?.scores[m]).toBe(saved.samples[i]?.latencyMs ?? null);
        else expect(Object.is(r?.scores[m], f?.scores[m]), `${m} of s${i}`).toBe(true);
      }
    }
    for (const m of fresh.metrics.filter((x) => x !== "latency_ms")) {
      expect(rescored.summary[m]).toEqual(fresh.summary[m]);
    }
    // Without a dataset, a format-2 file's own gold data gives the same scores.
    const alone = await saved.rescore(secondSet());
    expect(alone.samples.map((s) => s.scores)).toEqual(rescored.samples.map((s) => s.scores));
    // Saved and loaded again, the rescored result is unchanged.
    await rescored.save(join(dir, "e.rescored.json"));
    expect((await BenchmarkResult.load(join(dir, "e.rescored.json"))).samples).toEqual(
      rescored.samples,
    );
  });

  it("refuses a metric that reads chunk text the file did not keep, and rescores it when kept", async () => {
    const plain = await new Benchmark({ dataset, metrics: firstSet() }).run(engine, { name: "p" });
    await plain.save(join(dir, "p.json"));
    const saved = await BenchmarkResult.load(join(dir, "p.json"));
    const judge = scriptedJudge(steps);
    const faithfulness = new Faithfulness({ judge });
    const error = await saved.rescore([faithfulness], { dataset }).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/retrieved\[\]\.text/);
    expect((error as Error).message).toMatch(/keepChunkText: true/);
    expect((error as Error).message).toMatch(/--keep-chunk-text/);
    expect(judge.count()).toBe(0);

    const kept = await new Benchmark({ dataset, metrics: firstSet() }).run(engine, {
      name: "k",
      keepChunkText: true,
    });
    await kept.save(join(dir, "k.json"));
    const rescored = await (await BenchmarkResult.load(join(dir, "k.json"))).rescore(
      [faithfulness],
      { dataset },
    );
    const fresh = await new Benchmark({ dataset, metrics: [faithfulness] }).run(engine, {
      name: "k",
    });
    expect(rescored.samples.map((s) => s.scores.faithfulness)).toEqual(
      fresh.samples.map((s) => s.scores.faithfulness),
    );
    expect(rescored.summary.faithfulness?.count).toBe(51);
    // By hand for s0: "answer 0" has 8 characters, so 8 % 3 + 1 = 3 statements, verdicts
    // [1, 0, 1].
    expect(rescored.samples[0]?.scores.faithfulness).toBe(2 / 3);
  });

  it("refuses an answer metric on a retriever's result, before any work", async () => {
    const retriever: Retriever = {
      retrieve: async (_q, { sample }) => [{ id: `c${sample.id?.slice(1)}` }],
    };
    const r = await new Benchmark({ dataset, metrics: [new Recall({ k: 1 })] }).run(retriever, {
      name: "r",
    });
    let scored = 0;
    const counting: Metric = { ...new Recall({ k: 1 }), name: "x", score: () => ++scored };
    await expect(r.rescore([counting, new ExactMatch()], { dataset })).rejects.toThrow(
      /metric "exact_match" needs an answer \(field answer\).*Retriever run/,
    );
    expect(scored).toBe(0);
  });

  it("sums the judge's reported usage per sample and per run", async () => {
    const saved = await new Benchmark({ dataset, metrics: firstSet() }).run(engine, { name: "u" });
    const reporting: Metric = {
      name: "reporting",
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: true,
      score: async ({ reportUsage }) => {
        reportUsage?.({ inputTokens: 7, outputTokens: 1, cost: 0.5 });
        return 1;
      },
    };
    const r = await saved.rescore([reporting], { dataset });
    expect(r.samples[0]?.judgeUsage).toEqual({
      calls: 1,
      inputTokens: 7,
      outputTokens: 1,
      cost: 0.5,
    });
    expect(r.samples[3]?.judgeUsage).toBeUndefined(); // errored: no metric ran
    expect(r.judgeUsage).toEqual({ calls: 51, inputTokens: 357, outputTokens: 51, cost: 25.5 });
  });
});

describe("rescore of a format-1 file written by main before format 2", () => {
  const fixture = new URL("../../bench-core/src/__fixtures__/format1/engine.json", import.meta.url)
    .pathname;
  // The dataset make-format1.mjs ran.
  const v1Dataset: EvalSample[] = [
    {
      id: "q1",
      question: "Who wrote Hamlet?",
      expectedAnswers: ["William Shakespeare", "Shakespeare"],
      relevantIds: ["d1#0"],
    },
    {
      id: "q2",
      question: "Capital of France?",
      expectedAnswers: ["Paris"],
      relevantIds: ["d2#0", "d2#1"],
      relevance: { "d2#0": 2, "d2#1": 1 },
    },
    {
      id: "q3",
      question: "Boiling point of water in C?",
      expectedAnswers: ["100"],
      relevantIds: ["d3#0"],
    },
    { id: "q4", question: "Largest planet?", expectedAnswers: ["Jupiter"], relevantIds: [] },
  ];

  it("rescores with its dataset: token F1 and recall@1 by hand", async () => {
    const saved = await BenchmarkResult.load(fixture);
    const r = await saved.rescore([new TokenF1(), new Recall({ k: 1 })], { dataset: v1Dataset });
    // q1: "Shakespeare" = gold → 1; d1#0 first → recall 1. q2: "paris france" vs "paris":
    // P 1/2, R 1, F1 2/3; d2#1 first, 1 of 2 relevant → 1/2. q3 errored. q4: no relevant ids.
    expect(r.samples.map((s) => s.scores)).toEqual([
      { f1: 1, "recall@1": 1 },
      { f1: 2 / 3, "recall@1": 0.5 },
      { f1: null, "recall@1": null },
      { f1: 1, "recall@1": null },
    ]);
    expect(r.samples[2]?.error).toBe("upstream 500: boom");
  });

  it("without its dataset is a ConfigurationError saying to pass it", async () => {
    const saved = await BenchmarkResult.load(fixture);
    await expect(saved.rescore([new TokenF1()])).rejects.toThrow(
      /samples\[0\] keeps no expected_answers or relevant_ids \(a format-1 result\); pass the dataset/,
    );
  });
});

describe("judge usage through a real judge metric", () => {
  it("Faithfulness's judge reports usage: summed per sample in a run, none in a replaying rescore", async () => {
    const usage = { inputTokens: 20, outputTokens: 5, totalTokens: 25, cost: 0.125 };
    const judge = scriptedJudge(steps, { usage });
    const faithfulness = new Faithfulness({ judge });
    const run = await new Benchmark({ dataset, metrics: [faithfulness] }).run(engine, {
      name: "j",
      keepChunkText: true,
    });
    // 60 samples, 9 errored: 51 scored, two steps each (statements, verdicts).
    expect(judge.count()).toBe(102);
    expect(run.samples[0]?.judgeUsage).toEqual({
      calls: 2,
      inputTokens: 40,
      outputTokens: 10,
      totalTokens: 50,
      cost: 0.25,
    });
    expect(run.judgeUsage).toEqual({
      calls: 102,
      inputTokens: 2040,
      outputTokens: 510,
      totalTokens: 2550,
      cost: 12.75,
    });
    await run.save(join(dir, "j.json"));
    const saved = await BenchmarkResult.load(join(dir, "j.json"));
    // The record kept the judgments: a rescore replays them, paying nothing.
    const replayed = await saved.rescore([faithfulness]);
    expect(judge.count()).toBe(102);
    expect(replayed.judgeUsage).toBeUndefined();
    expect(replayed.samples.map((s) => s.scores)).toEqual(run.samples.map((s) => s.scores));
    // Asked again, it pays what the run paid.
    const again = await saved.rescore([faithfulness], { judgments: "ask" });
    expect(judge.count()).toBe(204);
    expect(again.judgeUsage).toEqual(run.judgeUsage);
    expect(again.samples.map((s) => s.scores)).toEqual(run.samples.map((s) => s.scores));
  });
});
