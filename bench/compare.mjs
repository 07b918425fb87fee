// Comparison at scale (issue 5): load 100 result files of 10,000 samples each, render the mean
// table, and run the randomization test (10,000 permutations) for 5 metrics of every run against
// a baseline. Target: < 5 s. Reports time per phase and peak RSS.
//
// Run: pnpm --filter @fastrag/bench-core --filter @fastrag/bench-compare build && node bench/compare.mjs
// Options: node bench/compare.mjs [runs=100] [samples=10000] [--regenerate]
// The files go to bench/.data/compare/ (git-ignored) and are generated once, then reused.
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Comparison } from "../packages/bench-compare/dist/index.js";
import { BenchmarkResult } from "../packages/bench-core/dist/index.js";

const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const RUNS = Number(args[0] ?? 100);
const SAMPLES = Number(args[1] ?? 10_000);
const PERMUTATIONS = 10_000;
const TESTED = ["recall@5", "precision@5", "hit_rate@5", "mrr", "ndcg@5"];
const dir = fileURLToPath(new URL(`./.data/compare/${RUNS}x${SAMPLES}/`, import.meta.url));

/** mulberry32: the generator's own seeded randomness (the library uses xoshiro128**). */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Simulated retrieval runs over one dataset: each sample has 1–3 relevant documents and a
 * difficulty shared by every run; each run has its own quality. A relevant document lands in the
 * top 10 with a probability set by quality and difficulty, at a random rank. Metrics are computed
 * from the simulated ranking, so they take the discrete values real ones take.
 */
async function generate() {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const shared = rng(1);
  const difficulty = Float64Array.from({ length: SAMPLES }, () => shared());
  const log2 = (k) => Math.log(k) / Math.LN2;
  for (let r = 0; r < RUNS; r++) {
    const rand = rng(1000 + r);
    const quality = 0.55 + 0.25 * (r / Math.max(1, RUNS - 1));
    const samples = new Array(SAMPLES);
    for (let i = 0; i < SAMPLES; i++) {
      const R = 1 + (i % 3);
      const ranks = [];
      for (let j = 0; j < R; j++) {
        const p = Math.min(0.98, Math.max(0.02, quality + 0.4 * (0.5 - difficulty[i])));
        if (rand() < p) {
          let rank;
          do rank = 1 + Math.floor(rand() * rand() * 10);
          while (ranks.includes(rank));
          ranks.push(rank);
        }
      }
      ranks.sort((x, y) => x - y);
      const in5 = ranks.filter((k) => k <= 5).length;
      let dcg = 0;
      for (const k of ranks) if (k <= 5) dcg += 1 / log2(k + 1);
      let idcg = 0;
      for (let k = 1; k <= Math.min(R, 5); k++) idcg += 1 / log2(k + 1);
      const errored = rand() < 0.002;
      const latency =
        Math.round((80 + 40 * -Math.log(1 - rand()) + 20 * difficulty[i]) * 1000) / 1000;
      const scores = errored
        ? {
            "recall@5": null,
            "precision@5": null,
            "hit_rate@5": null,
            mrr: null,
            "ndcg@5": null,
            latency_ms: null,
          }
        : {
            "recall@5": in5 / R,
            "precision@5": in5 / 5,
            "hit_rate@5": in5 > 0 ? 1 : 0,
            mrr: ranks.length > 0 ? 1 / ranks[0] : 0,
            "ndcg@5": dcg / idcg,
            latency_ms: latency,
          };
      const ids = [];
      for (let k = 1; k <= 5; k++)
        ids.push(ranks.includes(k) ? `rel-${i}-${k}` : `doc-${(i * 7 + k * 13 + r) % 50000}`);
      samples[i] = {
        sampleId: `q${i}`,
        question: `What is the answer to benchmark question number ${i}?`,
        status: errored ? "errored" : "successful",
        scores,
        answer: errored ? null : `Answer ${i}`,
        retrievedIds: errored ? [] : ids,
        retrievedUris: errored ? [] : ids.map(() => null),
        latencyMs: errored ? null : latency,
        error: errored ? "timeout after 30000 ms" : null,
      };
    }
    const result = new BenchmarkResult({
      name: `run-${String(r).padStart(3, "0")}`,
      createdAt: new Date("2025-01-01T00:00:00Z"),
      durationS: 60,
      samples,
      higherIsBetter: {
        "recall@5": true,
        "precision@5": true,
        "hit_rate@5": true,
        mrr: true,
        "ndcg@5": true,
        latency_ms: false,
      },
    });
    await result.save(`${dir}run-${String(r).padStart(3, "0")}.json`);
  }
}

if (process.argv.includes("--regenerate") || !existsSync(dir) || readdirSync(dir).length !== RUNS) {
  const t = performance.now();
  await generate();
  console.log(
    `generated ${RUNS} files × ${SAMPLES} samples in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
}

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const t0 = performance.now();
const comparison = await Comparison.load(`${dir}*.json`);
const t1 = performance.now();
const table = comparison.toMarkdown();
const t2 = performance.now();
const tests = comparison.significance({
  baseline: 0,
  test: "randomization",
  permutations: PERMUTATIONS,
  metrics: TESTED,
});
const t3 = performance.now();
const marked = comparison.toMarkdown({
  baseline: 0,
  test: "randomization",
  permutations: PERMUTATIONS,
});
const t4 = performance.now();
const latency = comparison.significance({
  baseline: 0,
  metrics: ["latency_ms"],
  permutations: PERMUTATIONS,
});
const t5 = performance.now();
const rss = process.resourceUsage().maxRSS * 1024;
// The records of two runs, read on first use (a diff needs them).
const t6 = performance.now();
const records = comparison.results[0].samples.length + comparison.results[1].samples.length;
const t7 = performance.now();
// Baseline in the same process: the full (eager) load of 10 of the files, as before `lazy`.
const files = comparison.paths.slice(0, 10);
const t8 = performance.now();
for (const f of files) await BenchmarkResult.load(f);
const t9 = performance.now();

const significant = tests.filter((t) => t.significant).length;
console.log(
  `runs ${comparison.results.length} × samples ${SAMPLES}, ${tests.length} randomization tests (${TESTED.join(", ")}), ${PERMUTATIONS} permutations`,
);
console.log(
  `load                      ${(t1 - t0).toFixed(0).padStart(6)} ms  (Comparison.load: lazy, ids and scores)`,
);
console.log(
  `mean table                ${(t2 - t1).toFixed(0).padStart(6)} ms  (${table.split("\n").length} lines)`,
);
console.log(
  `randomization, 5 metrics  ${(t3 - t2).toFixed(0).padStart(6)} ms  (${((t3 - t2) / tests.length).toFixed(2)} ms/test, ${significant} significant)`,
);
console.log(`TOTAL (target < 5000 ms)  ${(t3 - t0).toFixed(0).padStart(6)} ms`);
console.log(`peak RSS                  ${mb(rss).padStart(9)}`);
console.log("extra, outside the target:");
console.log(
  `  marked table, 6 metrics ${(t4 - t3).toFixed(0).padStart(6)} ms  (${marked.split("\n").length} lines; tests every metric, latency included)`,
);
console.log(
  `  latency_ms alone        ${(t5 - t4).toFixed(0).padStart(6)} ms  (${((t5 - t4) / latency.length).toFixed(2)} ms/test: continuous values, no shared differences)`,
);
console.log(
  `  records of 2 runs       ${(t7 - t6).toFixed(0).padStart(6)} ms  (${records} samples, read from the files on first use)`,
);
console.log(
  `  full load of 10 files   ${(t9 - t8).toFixed(0).padStart(6)} ms  (BenchmarkResult.load without lazy: ×${(((t9 - t8) * (comparison.results.length / files.length)) / (t1 - t0)).toFixed(1)} the lazy load, scaled to ${comparison.results.length} files)`,
);
