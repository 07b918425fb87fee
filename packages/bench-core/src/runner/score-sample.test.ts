import { describe, expect, it } from "vitest";
import { dataset, exact, hit, latency, perfectEngine } from "../__fixtures__/run-fixtures.js";
import { Benchmark } from "../benchmark.js";
import { RunAbortedError } from "../run-errors.js";
import type { Metric, MetricInput } from "../types.js";

describe("Benchmark.run", () => {
  it("marks a sample incomplete when a metric throws or returns NaN; a null is not applicable", async () => {
    const flaky: Metric = {
      name: "flaky",
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: false,
      score: ({ sample }) => {
        if (sample.id === "q0") return null;
        if (sample.id === "q1") throw new Error("judge unreachable");
        if (sample.id === "q2") return Number.NaN;
        if (sample.id === "q3") return Promise.resolve(Number.POSITIVE_INFINITY);
        return Promise.resolve(0.5);
      },
    };
    const result = await new Benchmark({ dataset: dataset(5), metrics: [exact, flaky] }).run(
      perfectEngine,
      {
        name: "m",
      },
    );
    expect(result.samples.map((s) => s.status)).toEqual([
      // A plain null: the metric does not apply to q0; every metric that applies scored.
      "successful",
      "incomplete",
      "incomplete",
      "incomplete",
      "successful",
    ]);
    expect(result.samples[0]?.scores.flaky).toBeNull();
    expect(result.samples[0]?.error).toBeNull();
    expect(result.samples[1]?.error).toBe("flaky: judge unreachable");
    expect(result.samples[2]?.error).toMatch(/flaky: returned NaN/);
    expect(result.samples[3]?.error).toMatch(/flaky: returned Infinity/);
    for (const s of result.samples.slice(0, 4)) {
      expect(s.scores.flaky).toBeNull();
      expect(s.scores.exact).toBe(1);
    }
    expect(result.status).toEqual({ successful: 2, errored: 0, incomplete: 3 });
    expect(result.summary.flaky).toMatchObject({ count: 1, mean: 0.5 });
  });

  it("hands metrics the usage an engine reports", async () => {
    const seen: MetricInput[] = [];
    const spy: Metric = {
      name: "spy",
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: true,
      score: (input) => {
        seen.push(input);
        return 1;
      },
    };
    await new Benchmark({ dataset: dataset(1), metrics: [spy] }).run(
      { query: async () => ({ answer: "a", usage: { totalTokens: 12, cost: 0.5 } }) },
      { name: "u" },
    );
    expect(seen[0]?.usage).toEqual({ totalTokens: 12, cost: 0.5 });
    expect(seen[0]?.retrieved).toEqual([]);
  });
});

describe("metric reasons", () => {
  it("keeps a MetricUnavailableError's reason as is, and the latency metric equals the recorded latency", async () => {
    const { MetricUnavailableError } = await import("../errors.js");
    const judge: Metric = {
      name: "judge",
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: true,
      score: () => {
        throw new MetricUnavailableError('unparsable judge reply: "maybe"');
      },
    };
    const r = await new Benchmark({ dataset: dataset(2), metrics: [judge, latency] }).run(
      perfectEngine,
      { name: "j" },
    );
    expect(r.samples[0]?.error).toBe('judge: unparsable judge reply: "maybe"');
    for (const s of r.samples) expect(s.scores.latency_ms).toBe(s.latencyMs);
  });
});

describe("review fixes", () => {
  it("scores retrieval as null, with the reason, when an engine reports no chunks", async () => {
    const r = await new Benchmark({ dataset: dataset(2), metrics: [hit, exact] }).run(
      { query: async (_q, { sample }) => ({ answer: sample.expectedAnswers[0] as string }) },
      { name: "no-chunks" },
    );
    for (const s of r.samples) {
      expect(s.scores).toEqual({ hit: null, exact: 1 });
      expect(s.status).toBe("incomplete");
      expect(s.error).toMatch(/hit: the query engine returned no chunks/);
    }
    // An engine that reports an empty list retrieved nothing: that is a real 0.
    const empty = await new Benchmark({ dataset: dataset(1), metrics: [hit] }).run(
      { query: async () => ({ answer: "a", chunks: [] }) },
      { name: "empty" },
    );
    expect(empty.samples[0]?.scores.hit).toBe(0);
  });

  it("does not keep a sample whose scoring was cut short by an abort", async () => {
    const controller = new AbortController();
    const judge: Metric = {
      name: "judge",
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: true,
      score: ({ sample, signal }) =>
        new Promise((resolve, reject) => {
          if (sample.id === "q0") return resolve(1);
          signal?.addEventListener("abort", () => reject(new Error("interrupted")));
          if (sample.id === "q1") setTimeout(() => controller.abort(), 5);
        }),
    };
    const error = await new Benchmark({ dataset: dataset(3), metrics: [judge], maxConcurrent: 1 })
      .run(perfectEngine, { name: "abort-scoring", signal: controller.signal })
      .catch((e: unknown) => e);
    expect(RunAbortedError.isInstance(error)).toBe(true);
    const partial = (error as RunAbortedError<{ samples: { sampleId?: string }[] }>).partial;
    expect(partial.samples.map((s) => s.sampleId)).toEqual(["q0"]);
  });
  it("scores metrics in order around promise-returning ones, with or without timeout and retries", async () => {
    const calls: string[] = [];
    const metric = (name: string, score: () => unknown): Metric => ({
      name,
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: false,
      score: () => {
        calls.push(name);
        return score() as number | null;
      },
    });
    const metrics = [
      metric("nan", () => Number.NaN),
      metric("rejects", () => Promise.reject(new RangeError("no judge"))),
      metric("sync", () => 0.25),
      // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a Promise is the point
      metric("thenable", () => ({ then: (resolve: (v: number) => void) => resolve(0.5) })),
      metric("throws", () => {
        throw new Error("boom");
      }),
      metric("async", async () => 1),
      metric("undefined", () => undefined),
    ];
    const options = [
      {},
      { timeoutMs: 60_000 },
      { retries: { attempts: 2, retryOn: () => false } },
      { signal: new AbortController().signal },
    ];
    const noId = { question: "question x", expectedAnswers: ["answer x"], relevantIds: [] };
    for (const extra of options) {
      calls.length = 0;
      const result = await new Benchmark({
        dataset: [...dataset(1), noId],
        metrics,
        maxConcurrent: 1,
      }).run(perfectEngine, { name: "order", ...extra });
      expect(calls).toEqual([...metrics.map((m) => m.name), ...metrics.map((m) => m.name)]);
      const [withId, without] = result.samples;
      expect(withId?.status).toBe("incomplete");
      expect(withId?.scores).toEqual({
        nan: null,
        rejects: null,
        sync: 0.25,
        thenable: 0.5,
        throws: null,
        async: 1,
        undefined: null,
      });
      expect(Object.keys(withId?.scores ?? {})).toEqual(metrics.map((m) => m.name));
      expect(withId?.error).toBe(
        "nan: returned NaN, expected a finite number or null; rejects: RangeError: no judge; throws: boom",
      );
      // Record fields in one order: the sample id, then the attempts (only with retries), last.
      const fields = [
        "question",
        "status",
        "scores",
        "answer",
        "retrievedIds",
        "retrievedUris",
        "latencyMs",
        "error",
      ];
      // Then format 2's fields: the kept chunks and the dataset sample's gold data.
      const kept = ["retrieved", "expectedAnswers", "relevantIds"];
      const attempts = "retries" in extra ? ["attempts"] : [];
      expect(Object.keys(withId ?? {})).toEqual([...fields, "sampleId", ...attempts, ...kept]);
      expect(Object.keys(without ?? {})).toEqual([...fields, ...attempts, ...kept]);
    }
  });
});
