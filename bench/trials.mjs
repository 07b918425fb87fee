// Trials benchmark (issue 28). Run: node bench/trials.mjs (after `pnpm build`).
// 10,000 samples × 5 trials against an instant target (a query engine returning an answer and
// 5 chunks, two cheap metrics, maxConcurrent 16), against the same 10,000 samples with trials 1,
// alternating, 3 rounds each after a warm-up. Prints the time per target call (a trial is one
// call) of each, their ratio (the runner's overhead per trial relative to a plain sample), the
// time of the whole run relative to 5 plain runs, and the size of each saved result.
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Benchmark } from "../packages/bench-core/dist/index.js";
import { counter, engine, exact, hit, N, samples, TRIALS } from "./trials-fixture.mjs";

const bench = new Benchmark({ dataset: samples, metrics: [exact, hit], maxConcurrent: 16 });

async function time(trials) {
  counter.calls = 0;
  const t = performance.now();
  const result = await bench.run(engine, { name: `t${trials}`, trials });
  const ms = performance.now() - t;
  if (counter.calls !== N * trials)
    throw new Error(`expected ${N * trials} calls, made ${counter.calls}`);
  return { ms, result };
}

await time(1);
await time(TRIALS);
const ones = [];
const fives = [];
let last1;
let last5;
for (let r = 0; r < 3; r++) {
  global.gc?.();
  const a = await time(1);
  ones.push(a.ms);
  last1 = a.result;
  global.gc?.();
  const b = await time(TRIALS);
  fives.push(b.ms);
  last5 = b.result;
}
const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const one = med(ones);
const five = med(fives);
const perCall1 = (one / N) * 1000;
const perCall5 = (five / (N * TRIALS)) * 1000;
console.log(
  `trials 1: ${N.toLocaleString("en-US")} samples in ${one.toFixed(0)} ms (${perCall1.toFixed(2)} µs per call)`,
);
console.log(
  `trials ${TRIALS}: ${N.toLocaleString("en-US")} samples × ${TRIALS} in ${five.toFixed(0)} ms (${perCall5.toFixed(2)} µs per call)`,
);
console.log(
  `overhead per trial vs per plain sample: ${(perCall5 / perCall1).toFixed(2)}× (target ≤ 1.5×)`,
);
console.log(`whole run vs ${TRIALS} plain runs: ${(five / (TRIALS * one)).toFixed(2)}×`);

const dir = await mkdtemp(join(tmpdir(), "fastrag-trials-bench-"));
try {
  const f1 = join(dir, "one.json");
  const f5 = join(dir, "five.json");
  await last1.save(f1);
  await last5.save(f5);
  const s1 = (await stat(f1)).size;
  const s5 = (await stat(f5)).size;
  const mb = (b) => `${(b / 1e6).toFixed(1)} MB`;
  console.log(
    `result file: trials 1 ${mb(s1)}, trials ${TRIALS} ${mb(s5)} (${(s5 / s1).toFixed(2)}×; ${(s5 / s1 / TRIALS).toFixed(2)}× per trial)`,
  );
  console.log(
    `trial_std: exact ${last5.summary.exact.trial_std?.toFixed(4)}, hit@5 ${last5.summary["hit@5"].trial_std?.toFixed(4)}`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
