import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dataset, exact, perfectEngine, sleep } from "../__fixtures__/run-fixtures.js";
import { Benchmark } from "../benchmark.js";
import { RunAbortedError } from "../run-errors.js";
import type { Metric, MetricInput, QueryEngine } from "../types.js";
import { ABORT_GRACE } from "./metric-cutter.js";

describe("a metric still pending when the run is aborted", () => {
  // A hung judge is given up ABORT_GRACE after the abort: lowered here so the tests stay quick.
  const grace = ABORT_GRACE.ms;
  beforeEach(() => {
    ABORT_GRACE.ms = 20;
  });
  afterEach(() => {
    ABORT_GRACE.ms = grace;
  });

  /**
   * Resolves with `promise`'s outcome, or with "still pending" after `ms` (instead of a test
   * timeout). The runs settle in tens of ms; `ms` leaves room for a loaded machine.
   */
  const within = (promise: Promise<unknown>, ms: number) =>
    Promise.race([promise.catch((e: unknown) => e), sleep(ms).then(() => "still pending")]);

  const judge = (
    score: (input: MetricInput) => number | null | Promise<number | null>,
  ): Metric => ({
    name: "judge",
    higherIsBetter: true,
    needsRelevantIds: false,
    needsAnswer: true,
    score,
  });

  it("does not hang the run, and leaves that sample for a resume", async () => {
    const controller = new AbortController();
    // q1's judge hangs and ignores its signal: only the run's abort can end the wait.
    const hanging = judge(({ sample }) => {
      if (sample.id === "q0") return Promise.resolve(1);
      setTimeout(() => controller.abort(new Error("user pressed ^C")), 5);
      return new Promise<number>(() => {});
    });
    const error = await within(
      new Benchmark({ dataset: dataset(3), metrics: [exact, hanging], maxConcurrent: 1 }).run(
        perfectEngine,
        { name: "hang", signal: controller.signal },
      ),
      20_000,
    );
    expect(RunAbortedError.isInstance(error)).toBe(true);
    const partial = (error as RunAbortedError<{ samples: { sampleId?: string }[] }>).partial;
    expect(partial.samples.map((s) => s.sampleId)).toEqual(["q0"]);
  });

  it("does not hang when the abort came during the target call, with or without timeout and retries", async () => {
    const hanging = judge(({ sample }) =>
      sample.id === "q0" ? Promise.resolve(1) : new Promise<number>(() => {}),
    );
    const options = [{}, { timeoutMs: 60_000 }, { retries: { attempts: 2, retryOn: () => true } }];
    for (const extra of options) {
      const controller = new AbortController();
      const engine: QueryEngine = {
        async query(q, o) {
          if (o.sample.id === "q1") controller.abort();
          return perfectEngine.query(q, o);
        },
      };
      const error = await within(
        new Benchmark({ dataset: dataset(3), metrics: [hanging], maxConcurrent: 1 }).run(engine, {
          name: "hang",
          signal: controller.signal,
          ...extra,
        }),
        20_000,
      );
      expect(RunAbortedError.isInstance(error), JSON.stringify(extra)).toBe(true);
      const partial = (error as RunAbortedError<{ samples: { sampleId?: string }[] }>).partial;
      expect(partial.samples.map((s) => s.sampleId)).toEqual(["q0"]);
    }
  });

  it("keeps the samples whose judge finishes within the grace after the abort", async () => {
    // Ctrl-C while 4 samples are in their 50 ms pipeline call: each call succeeds, then a 20 ms
    // judge scores it. Both were paid for: all 4 are kept, none left to run again.
    ABORT_GRACE.ms = 5_000;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);
    const engine: QueryEngine = {
      async query(q, o) {
        await sleep(50);
        return perfectEngine.query(q, o);
      },
    };
    const slowJudge = judge(async ({ sample, answer }) => {
      await sleep(20);
      return answer === sample.expectedAnswers[0] ? 1 : 0;
    });
    const error = await within(
      new Benchmark({ dataset: dataset(8), metrics: [slowJudge], maxConcurrent: 4 }).run(engine, {
        name: "ctrl-c",
        signal: controller.signal,
      }),
      20_000,
    );
    expect(RunAbortedError.isInstance(error)).toBe(true);
    const partial = (error as RunAbortedError<{ samples: { sampleId?: string }[] }>).partial;
    expect(partial.samples.map((s) => s.sampleId)).toEqual(["q0", "q1", "q2", "q3"]);
  });

  it("adds two abort listeners per run, however many samples and metrics are pending (no leak warning)", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      const controller = new AbortController();
      let most = 0;
      const counting = judge(async () => {
        most = Math.max(most, getEventListeners(controller.signal, "abort").length);
        await sleep(2);
        return 1;
      });
      const result = await new Benchmark({
        dataset: dataset(60),
        metrics: [counting],
        maxConcurrent: 20,
      }).run(perfectEngine, { name: "many", signal: controller.signal });
      expect(result.status.successful).toBe(60);
      // One for the metric cutter, one for the samples' own signals (the judged sample's is live
      // while it is scored): a constant, not one per sample in flight.
      expect(most).toBe(2);
      await sleep(10);
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("keeps a sample whose async metrics settle without waiting on anything", async () => {
    // The abort arrives during q1's target call, which succeeds; its metric is async but already
    // settled, so q1 finished as before: only a metric still pending is cut short.
    const controller = new AbortController();
    const engine: QueryEngine = {
      async query(q, o) {
        if (o.sample.id === "q1") controller.abort();
        return perfectEngine.query(q, o);
      },
    };
    const asyncExact = judge(async ({ sample, answer }) => {
      await null;
      return answer === sample.expectedAnswers[0] ? 1 : 0;
    });
    const error = await within(
      new Benchmark({ dataset: dataset(4), metrics: [asyncExact], maxConcurrent: 1 }).run(engine, {
        name: "quick",
        signal: controller.signal,
      }),
      20_000,
    );
    expect(RunAbortedError.isInstance(error)).toBe(true);
    const partial = (
      error as RunAbortedError<{
        samples: { sampleId?: string; scores: Record<string, unknown> }[];
      }>
    ).partial;
    expect(partial.samples.map((s) => [s.sampleId, s.scores.judge])).toEqual([
      ["q0", 1],
      ["q1", 1],
    ]);
  });

  it("leaves no abort listener behind and no unhandled rejection from a metric cut short", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      // A run that is never aborted: every listener added for a pending metric is removed.
      const idle = new AbortController();
      const slow = judge(async () => {
        await sleep(1);
        return 1;
      });
      const result = await new Benchmark({
        dataset: dataset(30),
        metrics: [slow, exact, { ...slow, name: "judge2" }],
        maxConcurrent: 4,
      }).run(perfectEngine, { name: "idle", signal: idle.signal });
      expect(result.status.successful).toBe(30);
      expect(getEventListeners(idle.signal, "abort")).toHaveLength(0);

      // A judge that rejects after the abort cut it short (it ignores its signal).
      const controller = new AbortController();
      const late = judge(({ sample }) =>
        sample.id === "q0"
          ? 1
          : new Promise<number>((_, reject) => {
              setTimeout(() => controller.abort(), 5);
              setTimeout(() => reject(new Error("judge failed late")), 30);
            }),
      );
      const error = await within(
        new Benchmark({ dataset: dataset(3), metrics: [late], maxConcurrent: 1 }).run(
          perfectEngine,
          {
            name: "late",
            signal: controller.signal,
          },
        ),
        20_000,
      );
      expect(RunAbortedError.isInstance(error)).toBe(true);
      await sleep(60);
      expect(unhandled).toEqual([]);
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
