// Result-file I/O at scale (issue 7): save and load a result of 1,000,000 small samples.
// Run: node bench/results-io.mjs (after `pnpm build`). Reports time, file size and peak RSS.
import { mkdirSync, rmSync, statSync } from "node:fs";
import { BenchmarkResult } from "../packages/bench-core/dist/index.js";

const N = Number(process.argv[2] ?? 1_000_000);
mkdirSync(new URL("./.data/", import.meta.url), { recursive: true });
const path = new URL("./.data/big-result.json", import.meta.url).pathname;
const samples = new Array(N);
for (let i = 0; i < N; i++) {
  samples[i] = {
    sampleId: `q${i}`,
    question: `question ${i}`,
    status: i % 10 === 0 ? "errored" : "successful",
    scores:
      i % 10 === 0
        ? { "recall@5": null, latency_ms: null }
        : { "recall@5": (i % 5) / 4, latency_ms: i % 100 },
    answer: null,
    retrievedIds: [`d${i % 7}`, `d${i % 11}`],
    retrievedUris: [null, null],
    latencyMs: i % 10 === 0 ? null : i % 100,
    error: i % 10 === 0 ? "boom" : null,
  };
}
const result = new BenchmarkResult({
  name: "big",
  createdAt: new Date(),
  durationS: 1,
  samples,
  higherIsBetter: { "recall@5": true, latency_ms: false },
});
const rssBefore = process.memoryUsage().rss;
let t = performance.now();
await result.save(path);
const saveMs = performance.now() - t;
const size = statSync(path).size;
t = performance.now();
const back = await BenchmarkResult.load(path);
const loadMs = performance.now() - t;
if (back.samples.length !== N || back.status.errored !== N / 10)
  throw new Error("round trip lost samples");
console.log(
  `results-io: ${N} samples, file ${(size / 1e6).toFixed(0)} MB; save ${saveMs.toFixed(0)} ms, load ${loadMs.toFixed(0)} ms`,
);
console.log(
  `RSS before save ${(rssBefore / 1e6).toFixed(0)} MB (the in-memory result), peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
);
if (!process.env.KEEP) rmSync(path);
