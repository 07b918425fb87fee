import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { bm25, dense, hybrid } from "./__fixtures__/comparison-runs.js";
import { makeResult } from "./__fixtures__/make-result.js";
import { Comparison } from "./comparison.js";

describe("best", () => {
  const c = Comparison.of([bm25, dense, hybrid]);
  it("follows each metric's own direction", () => {
    expect(c.best("recall@5").name).toBe("dense");
    expect(c.best("latency_ms").name).toBe("bm25");
    expect(c.best("latency_ms", "p95").name).toBe("bm25");
    expect(c.best("ndcg@5").name).toBe("hybrid");
  });

  it("gives a tie up to floating-point rounding to the earlier run, as an exact tie", () => {
    // Means 0.3 and 0.1 + 0.2 = 0.30000000000000004: the same score, computed in another order.
    const first = makeResult({ name: "first", scores: { f1: [0.3], latency_ms: [5e-17] } });
    const later = makeResult({ name: "later", scores: { f1: [0.1 + 0.2], latency_ms: [0] } });
    const tied = Comparison.of([first, later]);
    expect(tied.best("f1").name).toBe("first");
    expect(Comparison.of([later, first]).best("f1").name).toBe("later");
    // A real difference still wins, however small against the values: 1e-9 of them.
    const ahead = makeResult({ name: "ahead", scores: { f1: [0.3 + 3e-10], latency_ms: [0] } });
    expect(Comparison.of([first, ahead]).best("f1").name).toBe("ahead");
    // Lower is better: 5e-17 against 0 is no rounding remainder of anything here (no other
    // value to be one of), so 0 wins.
    expect(tied.best("latency_ms").name).toBe("later");
  });

  it("refuses an unknown metric or statistic", () => {
    expect(() => c.best("mrr")).toThrow(
      /best: expected a metric of the runs \("recall@5", "latency_ms", "ndcg@5"\), found the string "mrr"/,
    );
    expect(() => c.best("recall@5", "p42" as never)).toThrow(ConfigurationError);
  });
});
