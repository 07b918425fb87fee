import { describe, expect, it } from "vitest";
import { Benchmark } from "../benchmark.js";
import { RunAbortedError } from "../run-errors.js";
import type { EvalSample, Metric, QueryEngine } from "../types.js";

// Issue 34, item 3: the first Ctrl-C must let paid calls in flight finish, not cancel them.
const samples: EvalSample[] = Array.from({ length: 20 }, (_, i) => ({
  id: `q${i}`,
  question: `question ${i}`,
  expectedAnswers: [`answer ${i}`],
  relevantIds: [],
}));
const exact: Metric = {
  name: "exact",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: true,
  score: ({ sample, answer }) => (answer === sample.expectedAnswers[0] ? 1 : 0),
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("RunOptions.stop", () => {
  it("starts no new sample, never aborts the signal of calls in flight, and keeps them", async () => {
    const stop = new AbortController();
    const signal = new AbortController();
    const abortedCalls: string[] = [];
    let started = 0;
    const engine: QueryEngine = {
      async query(q, o) {
        started++;
        if (q === "question 2") stop.abort(new Error("first Ctrl-C"));
        await sleep(30);
        if (o.signal.aborted) abortedCalls.push(q);
        return { answer: q.replace("question", "answer") };
      },
    };
    const b = new Benchmark({ dataset: samples, metrics: [exact], maxConcurrent: 3 });
    const error = await b
      .run(engine, { name: "r", signal: signal.signal, stop: stop.signal })
      .catch((e: unknown) => e);
    expect(RunAbortedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/was stopped after 3 of 20 samples/);
    // Samples 0, 1 and 2 were in flight when the stop came: none was told to abort, all are kept.
    expect(abortedCalls).toEqual([]);
    expect(started).toBe(3);
    const partial = (error as RunAbortedError<{ samples: { sampleId?: string; status: string }[] }>)
      .partial;
    expect(partial.samples.map((s) => [s.sampleId, s.status])).toEqual([
      ["q0", "successful"],
      ["q1", "successful"],
      ["q2", "successful"],
    ]);
  });

  it("a later abort of the signal reaches the calls still in flight", async () => {
    const stop = new AbortController();
    const signal = new AbortController();
    const seen: boolean[] = [];
    const engine: QueryEngine = {
      query(q, o) {
        // Samples 0 and 1 are in flight when the stop comes.
        if (q === "question 1") {
          stop.abort();
          setTimeout(() => signal.abort(new Error("second Ctrl-C")), 10);
        }
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => resolve({ answer: "late" }), 2000);
          o.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            seen.push(true);
            reject(o.signal.reason);
          });
        });
      },
    };
    const b = new Benchmark({ dataset: samples, metrics: [exact], maxConcurrent: 2 });
    const error = await b
      .run(engine, { name: "r", signal: signal.signal, stop: stop.signal })
      .catch((e: unknown) => e);
    expect(RunAbortedError.isInstance(error)).toBe(true);
    expect(seen).toEqual([true, true]);
    expect((error as RunAbortedError<{ samples: unknown[] }>).partial.samples).toEqual([]);
  });

  it("a stop after the last sample started lets the run finish normally", async () => {
    const stop = new AbortController();
    const engine: QueryEngine = {
      async query(q) {
        if (q === "question 19") stop.abort();
        return { answer: q.replace("question", "answer") };
      },
    };
    const b = new Benchmark({ dataset: samples, metrics: [exact], maxConcurrent: 1 });
    const result = await b.run(engine, { name: "r", stop: stop.signal });
    expect(result.status).toEqual({ successful: 20, errored: 0, incomplete: 0 });
  });

  it("refuses a stop that is not an AbortSignal", async () => {
    const b = new Benchmark({ dataset: samples, metrics: [exact] });
    await expect(
      b.run({ query: async () => ({ answer: "" }) }, { name: "r", stop: {} as AbortSignal }),
    ).rejects.toThrow(/stop must be an AbortSignal/);
  });
});
