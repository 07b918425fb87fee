// Long inputs (issue 33): readers must be linear in their input.
// 1. A JSONL dataset with one line of 25, 50, 100 and 200 MB: ms per MB at each size. Linear means
//    the per-MB cost stays flat (the quadratic reader took 17.7 s at 100 MB and 75 s at 200 MB).
// 2. Resuming a finished checkpoint journal of 20,000 samples with 11 KB answers (about 220 MB):
//    the time of a resume that runs nothing, against reading the same file bare (readFile +
//    JSON.parse per line) in the same process. Target ≤ 3×.
//
// Run: pnpm --filter @fastrag/bench-core --filter @fastrag/bench-datasets build && node bench/long-inputs.mjs
// The files go to bench/.data/long-inputs/ (git-ignored) and are removed afterwards.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Benchmark } from "../packages/bench-core/dist/index.js";
import { QADataset } from "../packages/bench-datasets/dist/index.js";

const dir = fileURLToPath(new URL("./.data/long-inputs/", import.meta.url));
mkdirSync(dir, { recursive: true });
const MB = 1_000_000;

console.log("JSONL dataset, one long line:");
const perMb = [];
for (const size of [25, 50, 100, 200]) {
  const path = `${dir}long-${size}.jsonl`;
  writeFileSync(
    path,
    `${JSON.stringify({ id: "long", question: "q", answer: "a".repeat(size * MB) })}\n{"id":"next","question":"q2","answer":"b"}\n`,
  );
  globalThis.gc?.();
  const t = performance.now();
  const dataset = await QADataset.load(path);
  const ms = performance.now() - t;
  rmSync(path);
  if (dataset.samples.length !== 2) throw new Error("wrong sample count");
  perMb.push(ms / size);
  console.log(
    `  ${String(size).padStart(3)} MB line: ${ms.toFixed(0).padStart(6)} ms (${(ms / size).toFixed(1)} ms/MB)`,
  );
}
console.log(
  `  ms/MB at 200 MB ÷ at 25 MB: ${(perMb[3] / perMb[0]).toFixed(2)} (linear ≈ 1; quadratic ≈ 8)`,
);

console.log("Checkpoint journal resume, 20,000 samples × 11 KB answers:");
const n = 20_000;
const samples = Array.from({ length: n }, (_, i) => ({
  id: `q${i}`,
  question: `question ${i}`,
  expectedAnswers: [`answer ${i}`],
  relevantIds: [],
}));
const exact = {
  name: "exact",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: true,
  score: () => 1,
};
const answer = "x".repeat(11_000);
const engine = { query: async () => ({ answer }) };
const journal = `${dir}resume.jsonl`;
rmSync(journal, { force: true });
const b = new Benchmark({ dataset: samples, metrics: [exact], maxConcurrent: 8 });
await b.run(engine, { name: "long", checkpoint: journal });
const bytes = readFileSync(journal).length;
globalThis.gc?.();
let t = performance.now();
let calls = 0;
const resumed = await b.run(
  {
    query: async () => {
      calls++;
      return { answer };
    },
  },
  { name: "long", checkpoint: journal },
);
const resumeMs = performance.now() - t;
if (calls !== 0 || resumed.samples.length !== n) throw new Error("the resume ran samples");
globalThis.gc?.();
t = performance.now();
let parsed = 0;
for (const line of readFileSync(journal, "utf8").split("\n"))
  if (line) parsed += JSON.parse(line) ? 1 : 0;
const bareMs = performance.now() - t;
rmSync(journal);
console.log(
  `  ${(bytes / MB).toFixed(0)} MB: resume ${resumeMs.toFixed(0)} ms (${((bytes / MB / resumeMs) * 1000).toFixed(0)} MB/s), bare readFile + JSON.parse ${bareMs.toFixed(0)} ms: ${(resumeMs / bareMs).toFixed(2)}× (target ≤ 3×; ${parsed} lines)`,
);
rmSync(dir, { recursive: true, force: true });
