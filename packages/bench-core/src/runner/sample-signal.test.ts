import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { Benchmark } from "../benchmark.js";
import { RunAbortedError } from "../run-errors.js";
import type { EvalSample, Metric, QueryEngine } from "../types.js";

// Issue 34, item 9: one abort signal per sample. Each sample's target calls, retry waits and
// metrics listen on a signal of the sample's own, which follows the run's through one listener per
// run; with a timeout, each attempt gets a fresh signal chained to the sample's.

const dataset = (n: number): EvalSample[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `q${i}`,
    question: `question ${i}`,
    expectedAnswers: [`a${i}`],
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

describe("one abort signal per sample", () => {
  it("keeps listeners a target leaves behind off the run's signal (no leak, no warning)", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      for (const timeoutMs of [undefined, 5_000]) {
        const run = new AbortController();
        const signals = new Set<AbortSignal>();
        let most = 0;
        // Adds a listener on every call and never removes it, as careless clients do.
        const leaky: QueryEngine = {
          async query(_q, { signal, sample }) {
            signals.add(signal);
            signal.addEventListener("abort", () => {});
            most = Math.max(most, getEventListeners(run.signal, "abort").length);
            await sleep(1);
            return { answer: sample.expectedAnswers[0] as string };
          },
        };
        const result = await new Benchmark({
          dataset: dataset(120),
          metrics: [exact],
          maxConcurrent: 20,
        }).run(leaky, { name: "leaky", signal: run.signal, ...(timeoutMs ? { timeoutMs } : {}) });
        expect(result.status.successful).toBe(120);
        expect(signals.size).toBe(120);
        // The samples' listener and the metric cutter's: two, not one per sample or call.
        expect(most).toBeLessThanOrEqual(2);
        expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
      }
      await sleep(10);
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("gives a sample's retries its one signal, and its metrics the same", async () => {
    const run = new AbortController();
    const calls = new Map<string, AbortSignal[]>();
    const judged = new Map<string, AbortSignal | undefined>();
    const flaky: QueryEngine = {
      async query(_q, { signal, sample }) {
        const seen = calls.get(sample.id as string) ?? [];
        seen.push(signal);
        calls.set(sample.id as string, seen);
        if (seen.length < 3) throw Object.assign(new Error("503"), { transient: true });
        return { answer: sample.expectedAnswers[0] as string };
      },
    };
    const judge: Metric = {
      ...exact,
      name: "judge",
      score: (input) => {
        judged.set(input.sample.id as string, input.signal);
        return 1;
      },
    };
    const result = await new Benchmark({
      dataset: dataset(4),
      metrics: [judge],
      maxConcurrent: 2,
    }).run(flaky, {
      name: "retries",
      signal: run.signal,
      retries: {
        attempts: 3,
        backoffMs: 1,
        retryOn: (e) => (e as { transient?: boolean }).transient === true,
      },
    });
    expect(result.status.successful).toBe(4);
    const perSample = [...calls.values()].map((seen) => new Set(seen));
    for (const [id, seen] of calls) {
      expect(seen).toHaveLength(3);
      expect(new Set(seen).size).toBe(1);
      expect(judged.get(id)).toBe(seen[0]);
    }
    expect(new Set(perSample.map((s) => [...s][0])).size).toBe(4);
    expect(run.signal).not.toBe(perSample[0]);
  });

  it("gives each attempt under a timeout a fresh signal: a timed-out one does not start the next aborted", async () => {
    const run = new AbortController();
    const seen: AbortSignal[] = [];
    const slowOnce: QueryEngine = {
      query(_q, { signal, sample }) {
        seen.push(signal);
        if (seen.length === 1) return new Promise(() => {}); // hangs: the timeout cuts it
        return Promise.resolve({
          answer: signal.aborted ? "started aborted" : (sample.expectedAnswers[0] as string),
        });
      },
    };
    const result = await new Benchmark({ dataset: dataset(1), metrics: [exact] }).run(slowOnce, {
      name: "timeout",
      signal: run.signal,
      timeoutMs: 20,
      retries: { attempts: 2, backoffMs: 1, retryOn: () => true },
    });
    expect(seen).toHaveLength(2);
    expect(seen[0]?.aborted).toBe(true);
    expect(((seen[0] as AbortSignal).reason as Error).name).toBe("TimeoutError");
    expect(seen[1]).not.toBe(seen[0]);
    expect(result.samples[0]?.answer).toBe("a0");
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
  });

  it("aborts every in-flight sample's signal with the run's reason", async () => {
    const run = new AbortController();
    const inFlight: AbortSignal[] = [];
    const waiting: QueryEngine = {
      query(_q, { signal }) {
        inFlight.push(signal);
        if (inFlight.length === 3) run.abort(new Error("ctrl-c"));
        return new Promise((_resolve, reject) => {
          if (signal.aborted) reject(signal.reason);
          signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        });
      },
    };
    const error = await new Benchmark({ dataset: dataset(6), metrics: [exact], maxConcurrent: 3 })
      .run(waiting, { name: "abort", signal: run.signal })
      .catch((e: unknown) => e);
    expect(RunAbortedError.isInstance(error)).toBe(true);
    expect(inFlight).toHaveLength(3);
    for (const signal of inFlight) {
      expect(signal.aborted).toBe(true);
      expect((signal.reason as Error).message).toBe("ctrl-c");
    }
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
  });
});
