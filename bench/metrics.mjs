#!/usr/bin/env node
// Benchmark of the retrieval metric kernels of @fastrag/bench-metrics.
//
// 10,000 queries × 100 ranked ids with graded qrels, scored for ndcg@10, recall@10,
// precision@10, mrr and map. Reports the time of the kernels alone (the flat ones the Metric
// classes use, over a relevant flag and a gain per rank, and the Set-based reference ones), the
// ratio to a pass that only walks the same arrays, and the time through the public Metric classes
// (which also de-duplicate the ranking and join it with the judgments once per sample, shared by
// the five). Target: the kernels < 300 ms.
//
// Run: npx -y pnpm@10 --filter @fastrag/bench-metrics build && node bench/metrics.mjs
import { performance } from "node:perf_hooks";

const dist = new URL("../packages/bench-metrics/dist/", import.meta.url);
const kernels = await import(new URL("internal/kernels.js", dist).href);
const { buildJudgments } = await import(new URL("internal/reference-gains.js", dist).href);
const { MAP, MRR, NDCG, Precision, Recall } = await import(new URL("retrieval.js", dist).href);

const QUERIES = Number(process.env.QUERIES ?? 10_000);
const DEPTH = 100;
const JUDGED = 30; // judged documents per query, grades 0..3
const REPS = 15;

// Deterministic data: a small LCG, so every run measures the same arrays.
let seed = 42;
const rand = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32;
};

const rankings = new Array(QUERIES);
const judgments = new Array(QUERIES);
const samples = new Array(QUERIES);
// Per query: a relevant flag and a gain per rank, R, and the ideal gains, as the classes prepare them.
const flat = new Array(QUERIES);
for (let q = 0; q < QUERIES; q++) {
  const ranked = new Array(DEPTH);
  for (let i = 0; i < DEPTH; i++) ranked[i] = `q${q}-d${i * 7 + Math.floor(rand() * 7)}`;
  // Judge some retrieved ids (more of them near the top) and some never retrieved.
  const relevance = {};
  for (let j = 0; j < JUDGED; j++) {
    const id = rand() < 0.7 ? ranked[Math.floor(rand() * rand() * DEPTH)] : `q${q}-x${j}`;
    relevance[id] = Math.floor(rand() * 4);
  }
  const relevantIds = Object.keys(relevance).filter((id) => relevance[id] > 0);
  rankings[q] = ranked;
  judgments[q] = buildJudgments(relevantIds, relevance);
  samples[q] = { question: `q${q}`, expectedAnswers: [], relevantIds, relevance };
  const j = judgments[q];
  flat[q] = {
    relevant: Uint8Array.from(ranked, (id) => (j.relevant.has(id) ? 1 : 0)),
    gains: Float64Array.from(ranked, (id) => j.gains.get(id) ?? 0),
    r: j.relevant.size,
    ideal: Float64Array.from(j.idealGains),
  };
}

function baseline() {
  let acc = 0;
  for (let q = 0; q < QUERIES; q++) {
    const ranked = rankings[q];
    for (let i = 0; i < ranked.length; i++) acc += ranked[i].length;
  }
  return acc;
}

function baselineLookup() {
  let acc = 0;
  for (let q = 0; q < QUERIES; q++) {
    const ranked = rankings[q];
    const relevant = judgments[q].relevant;
    for (let i = 0; i < ranked.length; i++) if (relevant.has(ranked[i])) acc++;
  }
  return acc;
}

function flatKernels() {
  let acc = 0;
  for (let q = 0; q < QUERIES; q++) {
    const f = flat[q];
    if (f.r === 0) continue;
    const n = f.relevant.length;
    acc += kernels.ndcgOfGains(f.gains, n, f.ideal, f.ideal.length, 10);
    acc += kernels.recallOfFlags(f.relevant, n, f.r, 10);
    acc += kernels.precisionOfFlags(f.relevant, n, 10);
    acc += kernels.reciprocalRankOfFlags(f.relevant, n, Number.POSITIVE_INFINITY);
    acc += kernels.averagePrecisionOfFlags(f.relevant, n, f.r, Number.POSITIVE_INFINITY);
  }
  return acc;
}

function allKernels() {
  let acc = 0;
  for (let q = 0; q < QUERIES; q++) {
    const ranked = rankings[q];
    const j = judgments[q];
    if (j.relevant.size === 0) continue;
    acc += kernels.ndcgAt(ranked, j.gains, j.idealGains, 10);
    acc += kernels.recallAt(ranked, j.relevant, 10);
    acc += kernels.precisionAt(ranked, j.relevant, 10);
    acc += kernels.reciprocalRank(ranked, j.relevant, Number.POSITIVE_INFINITY);
    acc += kernels.averagePrecision(ranked, j.relevant, Number.POSITIVE_INFINITY);
  }
  return acc;
}

const metrics = [
  new NDCG({ k: 10 }),
  new Recall({ k: 10 }),
  new Precision({ k: 10 }),
  new MRR(),
  new MAP(),
];
// Fresh input objects for every pass (built outside the timed region): the per-sample preparation
// (de-duplicating the ranking, building the judgments) is paid every pass, once per sample and
// shared by the five metrics, as in a real run.
function freshInputs() {
  const inputs = new Array(QUERIES);
  for (let q = 0; q < QUERIES; q++) {
    const retrieved = rankings[q].map((id) => ({ id }));
    inputs[q] = { sample: { ...samples[q] }, answer: null, retrieved, latencyMs: 0 };
  }
  return inputs;
}
function throughClasses(inputs) {
  let acc = 0;
  for (let q = 0; q < QUERIES; q++) {
    const input = inputs[q];
    for (let m = 0; m < metrics.length; m++) acc += metrics[m].score(input) ?? 0;
  }
  return acc;
}

function measure(fn, setup = () => undefined) {
  for (let i = 0; i < 3; i++) fn(setup()); // warm up the JIT
  const times = [];
  let sink = 0;
  for (let i = 0; i < REPS; i++) {
    const data = setup();
    const t0 = performance.now();
    sink += fn(data);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], min: times[0], sink };
}

const base = measure(baseline);
const lookup = measure(baselineLookup);
const kern = measure(flatKernels);
const setKern = measure(allKernels);
const classes = measure(throughClasses, freshInputs);

const fmt = (ms) => `${ms.toFixed(2).padStart(8)} ms`;
console.log(
  `retrieval kernels: ${QUERIES} queries × ${DEPTH} ids, graded qrels (${JUDGED} judged/query)`,
);
console.log(`node ${process.version}, median (min) of ${REPS} passes after 3 warm-ups\n`);
console.log(`walk the arrays (baseline)         ${fmt(base.median)} (${fmt(base.min)})`);
console.log(`walk + one Set.has per id          ${fmt(lookup.median)} (${fmt(lookup.min)})`);
console.log(`5 kernels: ndcg@10 recall@10 p@10 mrr map`);
console.log(
  `  flat, as the classes use them    ${fmt(kern.median)} (${fmt(kern.min)})  ${(kern.median / base.median).toFixed(1)}× baseline`,
);
console.log(
  `  Set-based reference              ${fmt(setKern.median)} (${fmt(setKern.min)})  ${(setKern.median / base.median).toFixed(1)}× baseline`,
);
if (Math.abs(kern.sink - setKern.sink) > 1e-6 * Math.abs(setKern.sink)) {
  throw new Error(`flat and Set-based kernels disagree: ${kern.sink} vs ${setKern.sink}`);
}
console.log(
  `5 Metric classes incl. preparation ${fmt(classes.median)} (${fmt(classes.min)})  ${(classes.median / base.median).toFixed(1)}× baseline`,
);
console.log(`\ntarget: kernels < 300 ms → ${kern.median < 300 ? "met" : "MISSED"}`);
