import type { BenchmarkResult } from "@fastrag/bench-core";
import { makeResult } from "./make-result.js";

// Means worked by hand: bm25 recall (1 + 0 + 0.5 + 1)/4 = 0.625, dense 0.875, hybrid 0.125;
// latency means 250 and 300; p95 of [100, 200, 300, 400] = 300 + 0.85·100 = 385 (numpy linear).
export const bm25: BenchmarkResult = makeResult({
  name: "bm25",
  scores: { "recall@5": [1, 0, 0.5, 1], latency_ms: [100, 200, 300, 400] },
});
export const dense: BenchmarkResult = makeResult({
  name: "dense",
  scores: { "recall@5": [1, 1, 0.5, 1], latency_ms: [150, 250, 350, 450] },
});
export const hybrid: BenchmarkResult = makeResult({
  name: "hybrid",
  scores: { "recall@5": [0, 0, 0.5, 0], "ndcg@5": [0.5, 0.5, 0.5, 0.5] },
});

/** 40 samples: "good" wins 30 recall pairs by 0.5, "bad" loses 30 and is 100 ms slower on all. */
export function sigRuns(): BenchmarkResult[] {
  const fill = (n: number, v: number | "error" | null) => new Array(n).fill(v);
  return [
    makeResult({ name: "base", scores: { "recall@5": fill(40, 0.5), latency_ms: fill(40, 100) } }),
    makeResult({
      name: "good",
      scores: { "recall@5": [...fill(30, 1), ...fill(10, 0.5)], latency_ms: fill(40, 100) },
    }),
    makeResult({
      name: "bad",
      scores: { "recall@5": [...fill(30, 0), ...fill(10, 0.5)], latency_ms: fill(40, 200) },
    }),
  ];
}
