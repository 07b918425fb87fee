import { describe, expect, it } from "vitest";
import { dataset, exact, hit, perfectEngine } from "../__fixtures__/run-fixtures.js";
import { Benchmark } from "../benchmark.js";
import type { QueryEngine, Retriever } from "../types.js";

describe("Benchmark.run", () => {
  it("calls the target with the question, a signal and the sample", async () => {
    const seen: unknown[] = [];
    const retriever: Retriever = {
      async retrieve(query, options) {
        seen.push([query, options.sample.id, options.signal instanceof AbortSignal]);
        return [];
      },
    };
    await new Benchmark({ dataset: dataset(2), metrics: [hit], maxConcurrent: 1 }).run(retriever, {
      name: "r",
    });
    expect(seen).toEqual([
      ["question 0", "q0", true],
      ["question 1", "q1", true],
    ]);
  });

  it("times out a hanging target, aborts its signal and frees the slot", async () => {
    let abortedSignals = 0;
    const engine: QueryEngine = {
      query(question, { signal, sample }) {
        if (question === "question 0") {
          signal.addEventListener("abort", () => abortedSignals++);
          return new Promise(() => {}); // hangs forever, ignoring the signal
        }
        return perfectEngine.query(question, { signal, sample });
      },
    };
    const result = await new Benchmark({
      dataset: dataset(3),
      metrics: [exact],
      maxConcurrent: 1,
    }).run(engine, {
      name: "t",
      timeoutMs: 30,
    });
    expect(result.samples[0]).toMatchObject({
      status: "errored",
      error: "TimeoutError: timed out after 30 ms",
    });
    expect(abortedSignals).toBe(1);
    expect(result.status).toEqual({ successful: 2, errored: 1, incomplete: 0 });
  });

  it("still cuts a hung call short at its timeout, signal or not", async () => {
    const controller = new AbortController();
    const engine: QueryEngine = {
      async query(q, o) {
        if (q === "question 0") await new Promise(() => {}); // never settles
        return perfectEngine.query(q, o);
      },
    };
    const result = await new Benchmark({ dataset: dataset(3), metrics: [exact] }).run(engine, {
      name: "t",
      timeoutMs: 50,
      signal: controller.signal,
    });
    expect(result.samples.map((s) => s.status)).toEqual(["errored", "successful", "successful"]);
    expect(result.samples[0]?.error).toMatch(/timed out|timeout/i);
  });
});
