import { describe, expect, it } from "vitest";
import { BenchmarkResult } from "../benchmark-result.js";
import type { EvalSample } from "../types.js";

const _samples: EvalSample[] = Array.from({ length: 6 }, (_, i) => ({
  id: `q${i}`,
  question: `question ${i} "quoted" ünïcode`,
  expectedAnswers: [`a${i}`],
  relevantIds: [`d${i}`],
}));

describe("metric names that exist on Object.prototype", () => {
  it("summarizes and reads them as plain metrics", () => {
    const r = new BenchmarkResult({
      name: "proto-names",
      createdAt: new Date(0),
      durationS: 1,
      samples: [
        {
          question: "q",
          status: "incomplete",
          scores: { constructor: null, toString: 0.5 },
          answer: null,
          retrievedIds: [],
          retrievedUris: [],
          latencyMs: 1,
          error: null,
        },
      ],
      higherIsBetter: { constructor: true, toString: true },
    });
    expect(r.summary.constructor).toMatchObject({ count: 0, mean: null });
    expect(r.stat("toString")).toBe(0.5);
    expect(r.stat("valueOf")).toBeUndefined();
  });
});
