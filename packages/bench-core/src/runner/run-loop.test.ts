import { describe, expect, it } from "vitest";
import { dataset, exact, perfectEngine, sleep } from "../__fixtures__/run-fixtures.js";
import { Benchmark } from "../benchmark.js";
import { RunAbortedError } from "../run-errors.js";
import type { QueryEngine } from "../types.js";

describe("Benchmark.run", () => {
  it("returns results in dataset order under random latencies and never exceeds maxConcurrent", async () => {
    let inFlight = 0;
    let peak = 0;
    const engine: QueryEngine = {
      async query(question, options) {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await sleep(Math.random() * 8);
        inFlight--;
        return perfectEngine.query(question, options);
      },
    };
    const progress: number[] = [];
    const result = await new Benchmark({
      dataset: dataset(60),
      metrics: [exact],
      maxConcurrent: 7,
    }).run(engine, {
      name: "order",
      onProgress: (p) => {
        progress.push(p.done);
        expect(p.total).toBe(60);
      },
    });
    expect(result.samples.map((s) => s.sampleId)).toEqual(dataset(60).map((s) => s.id));
    expect(peak).toBe(7);
    expect(progress).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
  });

  it("stops scheduling on external abort, settles in-flight samples and keeps the finished ones", async () => {
    const controller = new AbortController();
    let started = 0;
    const engine: QueryEngine = {
      async query(q, o) {
        started++;
        if (q === "question 5") controller.abort(new Error("user pressed ^C"));
        await sleep(5);
        return perfectEngine.query(q, o);
      },
    };
    const b = new Benchmark({ dataset: dataset(50), metrics: [exact], maxConcurrent: 2 });
    const error = await b
      .run(engine, { name: "a", signal: controller.signal })
      .catch((e: unknown) => e);
    expect(RunAbortedError.isInstance(error)).toBe(true);
    const partial = (error as RunAbortedError<{ samples: { sampleId?: string; status: string }[] }>)
      .partial;
    expect(started).toBeLessThan(10);
    // Samples cut short by the abort are not recorded as finished; every recorded one succeeded.
    expect(partial.samples.length).toBeGreaterThanOrEqual(4);
    expect(partial.samples.every((s) => s.status === "successful")).toBe(true);
  });

  it("on abort, lets an in-flight call that ignores its signal settle, and keeps it", async () => {
    const controller = new AbortController();
    const engine: QueryEngine = {
      async query(q, o) {
        if (q === "question 1") {
          setTimeout(() => controller.abort(new Error("user pressed ^C")), 20);
          await sleep(150); // ignores o.signal, as many SDK calls do
        } else {
          await sleep(5);
        }
        return perfectEngine.query(q, o);
      },
    };
    const b = new Benchmark({ dataset: dataset(20), metrics: [exact], maxConcurrent: 2 });
    const started = performance.now();
    const error = await b
      .run(engine, { name: "a", signal: controller.signal })
      .catch((e: unknown) => e);
    expect(RunAbortedError.isInstance(error)).toBe(true);
    // run settled only after the slow call did.
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    const partial = (error as RunAbortedError<{ samples: { sampleId?: string; status: string }[] }>)
      .partial;
    const ids = partial.samples.map((s) => s.sampleId);
    expect(ids).toContain("q1");
    expect(partial.samples.every((s) => s.status === "successful")).toBe(true);
    expect(ids.length).toBeLessThan(20);
  });
});
