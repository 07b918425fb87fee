// The judge metrics inside core's runner (DESIGN §11): steps shared within a sample, judgments
// kept in the record and through save/load, rescore replaying them, the run's cache storing only
// usable replies, and malformed or hung steps leaving the sample incomplete, never 0.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Benchmark,
  BenchmarkResult,
  type JudgmentStep,
  type Judgments,
  MemoryCache,
  type Metric,
} from "@fastrag/bench-core";
import {
  fakeDataset,
  fakeEmbed,
  fakeEngine,
  type ScriptedStep,
  scriptedJudge,
} from "@fastrag/bench-core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { verdictsBy } from "./__fixtures__/judge.js";
import {
  AnswerCorrectness,
  AnswerRelevancy,
  ContextPrecision,
  ContextRecall,
  DEFAULT_JUDGE_TIMEOUT_MS,
  FactualCorrectness,
  Faithfulness,
  NoiseSensitivity,
} from "./generation.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-judge-steps-"));
});

// Three samples: answers, references, two chunks each. Each text's statements are its sentences.
const dataset = fakeDataset([
  { id: "q1", question: "Where is the tower?", expectedAnswers: ["It is in Paris. It is iron."] },
  { id: "q2", question: "How tall is it?", expectedAnswers: ["It is 330 m tall."] },
  { id: "q3", question: "When did it open?", expectedAnswers: ["", "It opened in 1889."] },
]);
const ANSWERS: Record<string, string> = {
  q1: "It is in Paris. It is blue.",
  q2: "It is 330 m tall. It is old.",
  q3: "It opened in 1889.",
};
const engine = fakeEngine((s) => ({
  answer: ANSWERS[s.id as string] as string,
  chunks: [
    { id: `${s.id}-a`, text: `Passage on ${s.id}: It is in Paris. It is 330 m tall.` },
    { id: `${s.id}-b`, text: `Passage on ${s.id}: It opened in 1889.` },
  ],
}));

const sentences = (text: string): string[] =>
  text
    .split(/(?<=\.)\s+/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
/** A context supports a sentence it contains; the answer and reference are contexts too. */
const supports = (context: string, statement: string): boolean => context.includes(statement);

const STEPS: Record<string, ScriptedStep> = {
  statements: ({ answer }: { answer: string }) => ({ statements: sentences(answer) }),
  claims: ({ text }: { text: string }) => ({ claims: sentences(text) }),
  verdicts: verdictsBy(supports),
  context_verdict: ({ context, reference }: { context: string; reference: string }) => ({
    reason: "",
    verdict: sentences(reference).some((s) => context.includes(s)) ? 1 : 0,
  }),
  attributions: ({ context, reference }: { context: string; reference: string }) => ({
    attributions: sentences(reference).map((statement) => ({
      statement,
      reason: "",
      attributed: context.includes(statement) ? 1 : 0,
    })),
  }),
  question_generation: ({ answer }: { answer: string }, { attempt }) => ({
    question: `${sentences(answer)[0]} (${attempt})`,
    noncommittal: 0,
  }),
  classification: ({ answer, ground_truth }: { answer: string[]; ground_truth: string[] }) => ({
    TP: answer
      .filter((s) => ground_truth.includes(s))
      .map((statement) => ({ statement, reason: "" })),
    FP: answer
      .filter((s) => !ground_truth.includes(s))
      .map((statement) => ({ statement, reason: "" })),
    FN: ground_truth
      .filter((s) => !answer.includes(s))
      .map((statement) => ({ statement, reason: "" })),
  }),
};

/** Vectors from a text's length and first letter: deterministic, never zero. */
const vectorOf = (text: string): number[] => [text.length, text.charCodeAt(0) % 7, 1];

function judgeWith(overrides: Record<string, ScriptedStep> = {}) {
  return scriptedJudge({ ...STEPS, ...overrides });
}

/** Every judge metric, on one judge and one embed. */
function everyMetric(judge: ReturnType<typeof judgeWith>, embed: ReturnType<typeof fakeEmbed>) {
  return [
    new Faithfulness({ judge }),
    new ContextPrecision({ judge }),
    new ContextPrecision({ judge, against: "answer" }),
    new ContextRecall({ judge }),
    new AnswerRelevancy({ judge, embed }),
    new FactualCorrectness({ judge }),
    new FactualCorrectness({ judge, mode: "precision" }),
    new NoiseSensitivity({ judge }),
    new NoiseSensitivity({ judge, mode: "irrelevant" }),
    new AnswerCorrectness({ judge, embed }),
  ];
}

function statementsAsked(judge: ReturnType<typeof judgeWith>, text: string): number {
  return judge.calls.filter((c) => c.step === "statements" && c.input?.answer === text).length;
}

describe("one call per step, shared within a sample", () => {
  it("Faithfulness, NoiseSensitivity and AnswerCorrectness ask each text's statements once", async () => {
    const judge = judgeWith();
    const metrics = [
      new Faithfulness({ judge }),
      new NoiseSensitivity({ judge }),
      new AnswerCorrectness({ judge, embed: fakeEmbed(vectorOf) }),
    ];
    const result = await new Benchmark({ dataset, metrics }).run(engine, {
      name: "shared",
      keepChunkText: true,
    });
    expect(result.samples.map((s) => s.status)).toEqual(["successful", "successful", "successful"]);
    for (const s of dataset.samples) {
      expect(statementsAsked(judge, ANSWERS[s.id as string] as string), s.id).toBe(1);
      const reference = s.expectedAnswers.find((a) => a !== "") as string;
      expect(statementsAsked(judge, reference), s.id).toBe(1);
    }
    // Per sample, by hand: 2 statements, faithfulness's verdicts, noise sensitivity's verdicts
    // on 2 chunks and on the reference, answer correctness's classification: 7. q3's answer is
    // its reference, so one statements step serves both: 6.
    expect(judge.count()).toBe(7 + 7 + 6);
  });

  it("NoiseSensitivity in both modes asks nothing more than one mode alone", async () => {
    const one = judgeWith();
    await new Benchmark({ dataset, metrics: [new NoiseSensitivity({ judge: one })] }).run(engine, {
      name: "one",
    });
    const both = judgeWith();
    const result = await new Benchmark({
      dataset,
      metrics: [
        new NoiseSensitivity({ judge: both }),
        new NoiseSensitivity({ judge: both, mode: "irrelevant" }),
      ],
    }).run(engine, { name: "both" });
    // 2 statements + 2 chunks + the reference, per sample (q3's statements are one step).
    expect(one.count()).toBe(5 + 5 + 4);
    expect(both.count()).toBe(one.count());
    expect(result.samples[0]?.scores).toEqual({
      // q1: "It is blue." is incorrect and no chunk supports it; "It is in Paris." is correct.
      noise_sensitivity: 0,
      noise_sensitivity_irrelevant: 0,
    });
  });

  it("the same metric twice under two names shares every step", async () => {
    const judge = judgeWith();
    await new Benchmark({
      dataset,
      metrics: [new Faithfulness({ judge }), new Faithfulness({ judge, name: "again" })],
    }).run(engine, { name: "twice" });
    expect(judge.count()).toBe(3 * 2);
  });
});

describe("judgments kept in the record", () => {
  it("list each metric's steps with their replies, and survive save and load", async () => {
    const judge = judgeWith();
    const embed = fakeEmbed(vectorOf);
    const result = await new Benchmark({ dataset, metrics: everyMetric(judge, embed) }).run(
      engine,
      { name: "kept", keepChunkText: true },
    );
    const first = result.samples[0];
    const faithful = first?.judgments?.faithfulness as readonly JudgmentStep[];
    expect(
      faithful.map(({ step, attempt, about, reply }) => ({ step, attempt, about, reply })),
    ).toEqual([
      {
        step: "statements",
        attempt: 0,
        about: "the answer",
        reply: { statements: ["It is in Paris.", "It is blue."] },
      },
      {
        step: "verdicts",
        attempt: 0,
        about: "the retrieved context",
        reply: {
          verdicts: [
            { statement: "It is in Paris.", reason: "judged", verdict: 1 },
            { statement: "It is blue.", reason: "judged", verdict: 0 },
          ],
        },
      },
    ]);
    expect(first?.scores.faithfulness).toBe(1 / 2);
    // Every judge metric kept its steps; a shared step is kept by each metric that asked it.
    expect(Object.keys(first?.judgments ?? {})).toEqual(result.metrics);
    const stepsOf = (metric: string) =>
      (first?.judgments?.[metric] ?? []).map((s) => s.step).sort();
    expect(stepsOf("context_precision")).toEqual(["context_verdict", "context_verdict"]);
    expect(stepsOf("answer_relevancy")).toEqual([
      "embed",
      "question_generation",
      "question_generation",
      "question_generation",
    ]);
    expect(stepsOf("noise_sensitivity")).toEqual([
      "statements",
      "statements",
      "verdicts",
      "verdicts",
      "verdicts",
    ]);
    expect(stepsOf("answer_correctness")).toEqual([
      "classification",
      "embed",
      "statements",
      "statements",
    ]);
    const shared = (metric: string) =>
      first?.judgments?.[metric]?.find((s) => s.step === "statements" && s.about === "the answer")
        ?.key;
    expect(shared("noise_sensitivity")).toBe(shared("faithfulness"));
    expect(shared("answer_correctness")).toBe(shared("faithfulness"));

    const path = join(dir, "kept.json");
    await result.save(path);
    const loaded = await BenchmarkResult.load(path);
    expect(loaded.samples.map((s) => s.judgments)).toEqual(result.samples.map((s) => s.judgments));
    expect(loaded.samples[2]?.judgments?.faithfulness?.[0]?.reply).toEqual({
      statements: ["It opened in 1889."],
    });
  });
});

describe("rescore of kept judgments", () => {
  it("recomputes every judge score with no judge or embed call; judgments: 'ask' calls again", async () => {
    const judge = judgeWith();
    const embed = fakeEmbed(vectorOf);
    const metrics = everyMetric(judge, embed);
    const run = await new Benchmark({ dataset, metrics }).run(engine, {
      name: "replay",
      keepChunkText: true,
    });
    expect(run.samples.every((s) => s.status === "successful")).toBe(true);
    const judged = judge.count();
    const embedded = embed.calls.length;
    expect(embedded).toBe(3 * 2); // answer relevancy's and answer correctness's, per sample
    await run.save(join(dir, "replay.json"));
    const saved = await BenchmarkResult.load(join(dir, "replay.json"));

    const replayed = await saved.rescore(metrics);
    expect(judge.count()).toBe(judged);
    expect(embed.calls).toHaveLength(embedded);
    expect(replayed.samples.map((s) => s.scores)).toEqual(run.samples.map((s) => s.scores));
    // Kept in the order each metric asked its steps, whatever order the replies came in.
    expect(JSON.stringify(replayed.samples.map((s) => s.judgments))).toBe(
      JSON.stringify(run.samples.map((s) => s.judgments)),
    );

    const asked = await saved.rescore(metrics, { judgments: "ask" });
    expect(judge.count()).toBe(2 * judged);
    expect(embed.calls).toHaveLength(2 * embedded);
    expect(asked.samples.map((s) => s.scores)).toEqual(run.samples.map((s) => s.scores));
  });

  it("pays only for the steps a new metric does not share with the kept ones", async () => {
    const judge = judgeWith();
    const run = await new Benchmark({ dataset, metrics: [new Faithfulness({ judge })] }).run(
      engine,
      { name: "add", keepChunkText: true },
    );
    const before = judge.count();
    const rescored = await run.rescore([
      new Faithfulness({ judge }),
      new NoiseSensitivity({ judge }),
    ]);
    expect(rescored.samples.every((s) => s.status === "successful")).toBe(true);
    // The answer's statements are kept; noise sensitivity asks the reference's, 2 chunks and
    // the reference's verdicts: 4 a sample, 3 for q3 (whose reference is its answer).
    expect(judge.count() - before).toBe(4 + 4 + 3);
    expect(statementsAsked(judge, ANSWERS.q1 as string)).toBe(1);
  });
});

describe("the run's cache", () => {
  it("answers a second run with no judge or embed call and the same scores", async () => {
    const cache = new MemoryCache();
    const judge = judgeWith();
    const embed = fakeEmbed(vectorOf);
    const metrics = everyMetric(judge, embed);
    const first = await new Benchmark({ dataset, metrics }).run(engine, {
      name: "first",
      cache,
      keepChunkText: true,
    });
    const judged = judge.count();
    const embedded = embed.calls.length;
    expect(judged).toBeGreaterThan(0);
    const second = await new Benchmark({ dataset, metrics }).run(engine, {
      name: "second",
      cache,
      keepChunkText: true,
    });
    expect(judge.count()).toBe(judged);
    expect(embed.calls).toHaveLength(embedded);
    expect(second.samples.map((s) => s.scores)).toEqual(first.samples.map((s) => s.scores));
    // refresh asks again.
    await new Benchmark({ dataset, metrics }).run(engine, {
      name: "third",
      cache,
      refresh: true,
      keepChunkText: true,
    });
    expect(judge.count()).toBe(2 * judged);
  });

  it("does not store an unparsable reply: fixed, the judge is asked again and the sample scores", async () => {
    const stored: unknown[] = [];
    const cache = new (class extends MemoryCache {
      override set(key: string, value: unknown): void {
        stored.push(value);
        super.set(key, value);
      }
    })();
    let broken = true;
    const judge = judgeWith({
      verdicts: (i, info) =>
        broken ? "Mostly supported, I'd say." : (STEPS.verdicts as ScriptedStep)(i, info),
    });
    const metric = new Faithfulness({ judge });
    const one = dataset.samples.slice(0, 1);
    const first = await new Benchmark({ dataset: one, metrics: [metric] }).run(engine, {
      name: "broken",
      cache,
      keepChunkText: true,
    });
    expect(first.samples[0]?.status).toBe("incomplete");
    expect(first.samples[0]?.scores.faithfulness).toBeNull();
    expect(first.samples[0]?.error).toMatch(
      /^faithfulness: .*step verdicts: unparsable judge reply/,
    );
    expect([judge.count("statements"), judge.count("verdicts")]).toEqual([1, 1]);
    // The statements' reply was stored, the verdicts' was not.
    expect(stored).toContainEqual({ statements: ["It is in Paris.", "It is blue."] });
    expect(JSON.stringify(stored)).not.toContain("Mostly supported");

    broken = false;
    const second = await new Benchmark({ dataset: one, metrics: [metric] }).run(engine, {
      name: "fixed",
      cache,
      keepChunkText: true,
    });
    // The statements were stored; the verdicts were not, and are asked again.
    expect([judge.count("statements"), judge.count("verdicts")]).toEqual([1, 2]);
    expect(second.samples[0]?.status).toBe("successful");
    expect(second.samples[0]?.scores.faithfulness).toBe(1 / 2);
  });
});

describe("a step that fails leaves the sample incomplete, never 0", () => {
  it("a malformed reply: null, and the step named in the error", async () => {
    const judge = judgeWith({
      attributions: () => ({ attributions: [{ statement: "x", reason: "", attributed: 2 }] }),
    });
    // The failing metric first: see "metrics that fail out of order" below.
    const metrics: Metric[] = [new ContextRecall({ judge }), new Faithfulness({ judge })];
    const result = await new Benchmark({ dataset, metrics }).run(engine, {
      name: "malformed",
      keepChunkText: true,
    });
    for (const s of result.samples) {
      expect(s.status).toBe("incomplete");
      expect(s.scores.context_recall).toBeNull();
      expect(s.error).toMatch(
        /^context_recall: (MetricUnavailableError: )?step attributions: the reply does not match the step's schema \(reply\.attributions\[0\]\.attributed: expected one of 0, 1/,
      );
    }
    // The other metric still scores.
    expect(result.samples[0]?.scores.faithfulness).toBe(1 / 2);
    expect(result.summary.context_recall?.count).toBe(0);
  });

  it("a judge that never settles: incomplete quickly with timeoutMs 50", async () => {
    expect(DEFAULT_JUDGE_TIMEOUT_MS).toBe(120_000);
    const judge = judgeWith({ statements: () => new Promise<never>(() => {}) });
    const started = Date.now();
    const result = await new Benchmark({
      dataset,
      metrics: [new Faithfulness({ judge, timeoutMs: 50 })],
    }).run(engine, { name: "hung", keepChunkText: true });
    expect(Date.now() - started).toBeLessThan(10_000);
    for (const s of result.samples) {
      expect(s.status).toBe("incomplete");
      expect(s.scores.faithfulness).toBeNull();
      expect(s.error).toMatch(
        /^faithfulness: (MetricUnavailableError: )?step statements: judge call timed out after 50 ms$/,
      );
    }
  });

  // A sample's metrics start at once: a later metric that rejects while an earlier one is still
  // pending must be recorded, not left an unhandled rejection (which ends a Node process and fails
  // a vitest run).
  it("metrics that fail out of order, or together on a shared step, do not crash the run", async () => {
    const judge = judgeWith({ statements: () => "not JSON" });
    const result = await new Benchmark({
      dataset,
      metrics: [
        new ContextRecall({ judge: judgeWith() }),
        new Faithfulness({ judge }),
        new NoiseSensitivity({ judge }),
      ],
    }).run(engine, { name: "together", keepChunkText: true });
    for (const s of result.samples) {
      expect(s.status).toBe("incomplete");
      expect(s.error).toMatch(
        /faithfulness: .*step statements: .*; noise_sensitivity: .*step statements: /,
      );
    }
  });
});
