// Loading a result with trials (issue 28 follow-up): a 10,000 samples × 5 trials file, read
// whole (`load`) and lazily (`load(path, { lazy: true })`, the fast reader that `Comparison.load`
// uses), alternating, 5 rounds after a warm-up, medians. With BASELINE=<dir of another build of
// bench-core's dist>, that build's loads run alternately in the same process, for a before/after
// reading in one run. Run: node bench/trials-load.mjs (after `pnpm build`).
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Benchmark, BenchmarkResult } from "../packages/bench-core/dist/index.js";
import { engine, exact, hit, N, samples, TRIALS } from "./trials-fixture.mjs";

const ROUNDS = 5;
const bench = new Benchmark({ dataset: samples, metrics: [exact, hit], maxConcurrent: 16 });
const result = await bench.run(engine, { name: "five", trials: TRIALS });

const readers = [["this build", BenchmarkResult]];
if (process.env.BASELINE) {
  const url = pathToFileURL(resolve(process.env.BASELINE, "index.js")).href;
  readers.push(["baseline", (await import(url)).BenchmarkResult]);
}

const dir = await mkdtemp(join(tmpdir(), "fastrag-trials-load-"));
try {
  const path = join(dir, "five.json");
  await result.save(path);
  const size = (await stat(path)).size;
  console.log(
    `file: ${N.toLocaleString("en-US")} samples × ${TRIALS} trials, ${(size / 1e6).toFixed(1)} MB`,
  );
  const times = new Map();
  const time = async (label, fn) => {
    global.gc?.();
    const t = performance.now();
    const r = await fn();
    const ms = performance.now() - t;
    if (r.summary.exact.mean !== result.summary.exact.mean) throw new Error(`${label}: wrong mean`);
    if (!times.has(label)) times.set(label, []);
    times.get(label).push(ms);
  };
  for (let round = -1; round < ROUNDS; round++) {
    for (const [name, R] of readers) {
      await time(`${name}: lazy`, () => R.load(path, { lazy: true }));
      await time(`${name}: whole`, () => R.load(path));
    }
    if (round === -1) times.clear();
  }
  const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  const base = med(times.get("this build: whole"));
  for (const [label, ms] of times) {
    const m = med(ms);
    console.log(
      `${label.padEnd(22)} ${m.toFixed(1).padStart(7)} ms  (${(m / base).toFixed(2)}× this build's whole load)`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
