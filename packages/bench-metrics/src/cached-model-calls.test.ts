// core's cached() around the judge and embed functions of these metrics, in real runs: a second
// run over the same answers calls no model and scores the same; a changed answer calls once.
import {
  Benchmark,
  cached,
  type EvalSample,
  MemoryCache,
  type QueryEngine,
} from "@fastrag/bench-core";
import { scriptedJudge } from "@fastrag/bench-core/testing";
import { describe, expect, it } from "vitest";
import { AnswerCorrectness, type EmbedFunction, SemanticSimilarity } from "./generation.js";

const samples: EvalSample[] = [
  { id: "q1", question: "Capital of France?", expectedAnswers: ["Paris"], relevantIds: [] },
  { id: "q2", question: "Capital of Italy?", expectedAnswers: ["Rome"], relevantIds: [] },
  { id: "q3", question: "Capital of Spain?", expectedAnswers: ["Madrid"], relevantIds: [] },
];
const answers: Record<string, string> = { q1: "Paris", q2: "Milan", q3: "Madrid" };
const engine: QueryEngine = {
  query: async (_question, { sample }) => ({ answer: answers[sample.id as string] as string }),
};

describe("cached() with the judge and embed metrics", () => {
  it("a second run calls the judge 0 times and gives the same scores; one changed answer, 1 call", async () => {
    // One statement per text; TP when the answer's statement is the reference's.
    const judge = scriptedJudge({
      statements: ({ answer }: { answer: string }) => ({ statements: [answer] }),
      classification: ({ answer, ground_truth }: { answer: string[]; ground_truth: string[] }) => {
        const right = answer[0] === ground_truth[0];
        const entry = (statement: string) => [{ statement, reason: "fake" }];
        return right
          ? { TP: entry(answer[0] as string), FP: [], FN: [] }
          : { TP: [], FP: entry(answer[0] as string), FN: entry(ground_truth[0] as string) };
      },
    });
    const cache = new MemoryCache();
    const metric = new AnswerCorrectness({
      judge: cached(judge, { cache, key: "fake:judge" }),
      weights: [1, 0],
    });
    const benchmark = new Benchmark({ dataset: samples, metrics: [metric] });

    const first = await benchmark.run(engine, { name: "a" });
    expect(first.samples.map((s) => s.scores.answer_correctness)).toEqual([1, 0, 1]);
    // q1 and q3: the answer is the reference, so their statements are one step (asked once),
    // then the classification: 2 calls each; q2: two statements and the classification, 3.
    expect(judge.count()).toBe(7);
    const second = await benchmark.run(engine, { name: "b" });
    expect(judge.count()).toBe(7);
    expect(second.samples.map((s) => s.scores)).toEqual(first.samples.map((s) => s.scores));

    answers.q2 = "Rome";
    const third = await benchmark.run(engine, { name: "c" });
    answers.q2 = "Milan";
    // "Rome"'s statements are stored (the reference's, in the first run): only the new
    // classification is asked.
    expect(judge.count()).toBe(8);
    expect(judge.calls[7]?.step).toBe("classification");
    expect(third.samples.map((s) => s.scores.answer_correctness)).toEqual([
      first.samples[0]?.scores.answer_correctness,
      1,
      first.samples[2]?.scores.answer_correctness,
    ]);
  });

  it("SemanticSimilarity scores the same from stored vectors, with no embed call", async () => {
    let calls = 0;
    // A 2-d "embedding" from the text's letters: known cosines, float32 like real clients.
    const embed: EmbedFunction = (texts) => {
      calls++;
      return texts.map((t) => Float32Array.of(t.length, t.charCodeAt(0) - 64));
    };
    const cache = new MemoryCache();
    const metric = new SemanticSimilarity({ embed: cached(embed, { cache, key: "fake:embed" }) });
    const benchmark = new Benchmark({ dataset: samples, metrics: [metric] });
    const uncached = await new Benchmark({
      dataset: samples,
      metrics: [new SemanticSimilarity({ embed })],
    }).run(engine, { name: "plain" });
    const callsUncached = calls;
    const first = await benchmark.run(engine, { name: "a" });
    expect(calls).toBe(2 * callsUncached);
    const second = await benchmark.run(engine, { name: "b" });
    expect(calls).toBe(2 * callsUncached);
    // Bit for bit: float32 vectors stored as JSON numbers come back as the same doubles.
    expect(second.samples.map((s) => s.scores)).toEqual(uncached.samples.map((s) => s.scores));
    expect(first.samples.map((s) => s.scores)).toEqual(uncached.samples.map((s) => s.scores));
  });
});
