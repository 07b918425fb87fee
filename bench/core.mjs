// Runner benchmarks (issue 2). Run: node bench/core.mjs (after `pnpm build`).
// 1. Overhead: 100,000 samples against an instant target returning 10 chunks, two cheap metrics,
//    maxConcurrent 16, against a bare loop doing the same calls and scoring in this process.
// 2. Concurrency efficiency: 1,000 samples of 20 ms each at maxConcurrent 50 (ideal 400 ms).
import { Benchmark } from "../packages/bench-core/dist/index.js";

const N = 100_000;
const samples = Array.from({ length: N }, (_, i) => ({
  id: `q${i}`,
  question: `question ${i}`,
  expectedAnswers: [`answer ${i}`],
  relevantIds: [`d${i % 10}`],
}));
const chunks = Array.from({ length: 10 }, (_, j) => ({ id: `d${j}`, uri: `doc://${j}` }));
const retriever = { retrieve: async () => chunks };
const hit = {
  name: "hit@10",
  higherIsBetter: true,
  needsRelevantIds: true,
  needsAnswer: false,
  score: ({ sample, retrieved }) => {
    const want = sample.relevantIds[0];
    for (let i = 0; i < retrieved.length; i++) if (retrieved[i].id === want) return 1;
    return 0;
  },
};
const latency = {
  name: "latency_ms",
  higherIsBetter: false,
  needsRelevantIds: false,
  needsAnswer: false,
  score: ({ latencyMs }) => latencyMs,
};
const metrics = [hit, latency];

async function bareLoop() {
  const out = new Array(N);
  const signal = new AbortController().signal;
  for (let i = 0; i < N; i++) {
    const sample = samples[i];
    const t = performance.now();
    const retrieved = await retriever.retrieve(sample.question, { signal, sample });
    const latencyMs = performance.now() - t;
    const input = { sample, answer: null, retrieved, latencyMs };
    // Keep what any harness must keep: the scores and the retrieved ids and uris.
    const ids = new Array(retrieved.length);
    const uris = new Array(retrieved.length);
    for (let j = 0; j < retrieved.length; j++) {
      ids[j] = retrieved[j].id;
      uris[j] = retrieved[j].uri ?? null;
    }
    out[i] = {
      scores: { [hit.name]: hit.score(input), [latency.name]: latency.score(input) },
      ids,
      uris,
    };
  }
  return out;
}

/**
 * The bare loop plus what result format 2 keeps that format 1 did not: a copy of each chunk's
 * fields a metric can read (id, uri here), made before the metrics run. Printed beside the
 * target's ratio to show how much of the runner's time is that copy (issue 27's format 2).
 */
async function bareLoopFormat2() {
  const out = new Array(N);
  const signal = new AbortController().signal;
  for (let i = 0; i < N; i++) {
    const sample = samples[i];
    const t = performance.now();
    const retrieved = await retriever.retrieve(sample.question, { signal, sample });
    const latencyMs = performance.now() - t;
    const input = { sample, answer: null, retrieved, latencyMs };
    const ids = new Array(retrieved.length);
    const uris = new Array(retrieved.length);
    const kept = new Array(retrieved.length);
    for (let j = 0; j < retrieved.length; j++) {
      const c = retrieved[j];
      ids[j] = c.id;
      uris[j] = c.uri ?? null;
      kept[j] = c.uri === undefined ? { id: c.id } : { id: c.id, uri: c.uri };
    }
    out[i] = {
      scores: { [hit.name]: hit.score(input), [latency.name]: latency.score(input) },
      ids,
      uris,
      kept,
    };
  }
  return out;
}

async function time(fn) {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

const bench = new Benchmark({ dataset: samples, metrics, maxConcurrent: 16 });
// Warm up both paths (JIT, and the dataset fingerprint, computed once per Benchmark).
await bench.run(retriever, { name: "warm" });
await bareLoop();
await bareLoopFormat2();
const runs = [];
const bares = [];
const bares2 = [];
for (let r = 0; r < 3; r++) {
  bares.push(await time(bareLoop));
  runs.push(await time(() => bench.run(retriever, { name: "overhead" })));
  bares2.push(await time(bareLoopFormat2));
}
const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const runner = med(runs);
const bare = med(bares);
console.log(
  `runner overhead: ${N} samples, runner ${runner.toFixed(0)} ms vs bare loop ${bare.toFixed(0)} ms → ratio ${(runner / bare).toFixed(2)}× (target ≤ 3×)`,
);
const bare2 = med(bares2);
console.log(
  `  of which format 2's chunk copies: a bare loop that also keeps them ${bare2.toFixed(0)} ms → runner ${(runner / bare2).toFixed(2)}× that loop (the copies alone: ${(bare2 / bare).toFixed(2)}× the bare loop)`,
);
console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);

const slow = samples.slice(0, 1000);
const sleepy = { retrieve: () => new Promise((r) => setTimeout(() => r(chunks), 20)) };
const cb = new Benchmark({ dataset: slow, metrics, maxConcurrent: 50 });
await cb.run(sleepy, { name: "warm" });
const took = med([
  await time(() => cb.run(sleepy, { name: "c" })),
  await time(() => cb.run(sleepy, { name: "c" })),
  await time(() => cb.run(sleepy, { name: "c" })),
]);
console.log(
  `concurrency: 1000 × 20 ms at 50 → ${took.toFixed(0)} ms (ideal 400 ms) → efficiency ${((400 / took) * 100).toFixed(1)}% (target ≥ 90%)`,
);
