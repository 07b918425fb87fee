import { describe, expect, it } from "vitest";
import { dataset, exact, perfectEngine } from "../__fixtures__/run-fixtures.js";
import { Benchmark } from "../benchmark.js";
import { RunAbortedError } from "../run-errors.js";
import type { QueryEngine } from "../types.js";

describe("Benchmark.run", () => {
  it("retries only transient errors, with backoff, and records attempts", async () => {
    const calls = new Map<string, number>();
    const engine: QueryEngine = {
      async query(q, o) {
        const n = (calls.get(q) ?? 0) + 1;
        calls.set(q, n);
        if (q === "question 0" && n < 3)
          throw Object.assign(new Error("429 rate limited"), { status: 429 });
        if (q === "question 1") throw Object.assign(new Error("400 bad request"), { status: 400 });
        if (q === "question 2") throw Object.assign(new Error("503"), { status: 503 });
        return perfectEngine.query(q, o);
      },
    };
    const result = await new Benchmark({ dataset: dataset(3), metrics: [exact] }).run(engine, {
      name: "retry",
      retries: {
        attempts: 3,
        backoffMs: 1,
        retryOn: (e) => [429, 503].includes((e as { status: number }).status),
      },
    });
    expect(result.samples.map((s) => [s.status, s.attempts])).toEqual([
      ["successful", 3],
      ["errored", 1],
      ["errored", 3],
    ]);
    expect(result.samples[2]?.error).toBe("503");
  });

  it("stops waiting in a backoff when the run is aborted", async () => {
    const controller = new AbortController();
    const engine: QueryEngine = {
      async query() {
        setTimeout(() => controller.abort(), 10);
        throw new Error("transient");
      },
    };
    const t0 = Date.now();
    const error = await new Benchmark({ dataset: dataset(1), metrics: [exact] })
      .run(engine, {
        name: "b",
        signal: controller.signal,
        retries: { attempts: 5, backoffMs: 60_000, retryOn: () => true },
      })
      .catch((e: unknown) => e);
    expect(RunAbortedError.isInstance(error)).toBe(true);
    expect(Date.now() - t0).toBeLessThan(20_000);
  });
});
