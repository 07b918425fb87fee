import { describe, expect, it } from "vitest";
import { dataset, exact, hit, perfectEngine } from "../__fixtures__/run-fixtures.js";
import { Benchmark } from "../benchmark.js";
import type { QueryEngine } from "../types.js";

describe("Benchmark.run", () => {
  it("marks a throwing, rejecting, non-Error-throwing or garbage-returning target errored, never zero", async () => {
    const engine: QueryEngine = {
      query(question) {
        switch (question) {
          case "question 0":
            throw new Error("sync boom");
          case "question 1":
            return Promise.reject(new TypeError("async boom"));
          case "question 2":
            return Promise.reject({ code: 429 });
          case "question 3":
            return Promise.resolve(undefined as never);
          case "question 4":
            return Promise.resolve({ answer: 42 } as never);
          case "question 5":
            return Promise.resolve({ answer: "a", chunks: [{ id: 7 }] } as never);
          case "question 6":
            return Promise.resolve({ answer: "a", chunks: "doc-1" } as never);
          default:
            return perfectEngine.query(question, undefined as never);
        }
      },
    };
    const data = dataset(8);
    const result = await new Benchmark({ dataset: data, metrics: [hit, exact] }).run(
      { query: (q, o) => (q === "question 7" ? perfectEngine.query(q, o) : engine.query(q, o)) },
      { name: "faulty" },
    );
    expect(result.status).toEqual({ successful: 1, errored: 7, incomplete: 0 });
    const errors = result.samples.map((s) => s.error);
    expect(errors[0]).toBe("sync boom");
    expect(errors[1]).toBe("TypeError: async boom");
    expect(errors[2]).toBe('non-Error thrown: {"code":429}');
    expect(errors[3]).toMatch(/returned undefined/);
    expect(errors[4]).toMatch(/answer the number 42, expected a string/);
    expect(errors[5]).toMatch(/chunks\[0\]\.id is the number 7/);
    expect(errors[6]).toMatch(/chunks is the string ".*", expected an array/);
    for (const s of result.samples.slice(0, 7)) {
      expect(s.status).toBe("errored");
      expect(s.scores).toEqual({ hit: null, exact: null });
      expect(s.latencyMs).toBeNull();
    }
    // Errored samples are left out of the summary, not averaged in as zeros.
    expect(result.summary.hit).toMatchObject({ count: 1, mean: 1 });
  });
});
