// One abort signal per sample (issue 34): what it costs a run that has a signal (every CLI run),
// against the same run without one (nothing can abort: the runner's direct path) and a bare loop.
// Run: node bench/signal.mjs (after `pnpm build`). 100,000 samples, an instant retriever, one
// cheap metric, maxConcurrent 16; medians of 3.
import { Benchmark } from "../packages/bench-core/dist/index.js";

const N = 100_000;
const samples = Array.from({ length: N }, (_, i) => ({
  id: `q${i}`,
  question: `question ${i}`,
  expectedAnswers: [],
  relevantIds: [`d${i % 10}`],
}));
const chunks = Array.from({ length: 10 }, (_, j) => ({ id: `d${j}` }));
const retriever = { retrieve: async () => chunks };
const hit = {
  name: "hit@10",
  higherIsBetter: true,
  needsRelevantIds: true,
  needsAnswer: false,
  score: ({ sample, retrieved }) => (retrieved.some((c) => c.id === sample.relevantIds[0]) ? 1 : 0),
};
const bench = new Benchmark({ dataset: samples, metrics: [hit], maxConcurrent: 16 });

async function bare() {
  const signal = new AbortController().signal;
  for (let i = 0; i < N; i++) {
    const retrieved = await retriever.retrieve(samples[i].question, { signal, sample: samples[i] });
    hit.score({ sample: samples[i], retrieved });
  }
}
const time = async (fn) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};
const med = (a) => [...a].sort((x, y) => x - y)[1];
const withSignal = () => bench.run(retriever, { name: "s", signal: new AbortController().signal });
const without = () => bench.run(retriever, { name: "d" });
const timeout = () =>
  bench.run(retriever, { name: "t", signal: new AbortController().signal, timeoutMs: 60_000 });
await withSignal();
await without();
await bare();
const r = { bare: [], without: [], signal: [], timeout: [] };
for (let k = 0; k < 3; k++) {
  r.bare.push(await time(bare));
  r.without.push(await time(without));
  r.signal.push(await time(withSignal));
  r.timeout.push(await time(timeout));
}
const b = med(r.bare);
for (const [name, runs] of Object.entries(r)) {
  const m = med(runs);
  console.log(
    `${name.padEnd(8)} ${m.toFixed(0).padStart(6)} ms  ${(m / b).toFixed(2)}× the bare loop  (${((m * 1000) / N).toFixed(2)} µs/sample)`,
  );
}
