// `fastrag-bench eval` as a whole process on large TREC runs (issue 6).
// Generates (into bench/.data/, git-ignored) a run of 10,000 queries × 100 docs (1,000,000 lines)
// and one of 100,000 queries × 10 docs, with graded qrels of ~15 judgments per query and tied
// scores, then times the CLI on each with map, mrr, ndcg@10, recall@10 and precision@10.
// Linearity: also times 2,500 and 5,000 queries × 100 docs. Then, in this process, the phases of
// the two large runs (qrels, run, Benchmark constructor, run + metrics, and the dataset fingerprint
// a saved result would hash), to show
// where the time goes. Run after `pnpm build`.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL("./.data/", import.meta.url));
const bin = fileURLToPath(new URL("../packages/bench-cli/dist/bin.js", import.meta.url));
mkdirSync(dir, { recursive: true });

let seed = 42;
const rand = () => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32;
};

function generate(queries, docs) {
  const run = `${dir}run-${queries}x${docs}.txt`;
  const qrels = `${dir}qrels-${queries}x${docs}.txt`;
  if (existsSync(run) && existsSync(qrels)) return { run, qrels };
  const runLines = [];
  const qrelLines = [];
  for (let q = 0; q < queries; q++) {
    for (let d = 0; d < docs; d++) {
      // Scores with ties: rounded to 1 decimal.
      const score = Math.round(rand() * 100) / 10;
      runLines.push(`${q} Q0 D${q % 997}-${d} ${d + 1} ${score.toFixed(1)} gen`);
    }
    for (let j = 0; j < 15; j++) {
      const d = Math.floor(rand() * docs * 1.5);
      qrelLines.push(`${q} 0 D${q % 997}-${d} ${Math.floor(rand() * 4) - (j === 0 ? 0 : 1)}`);
    }
  }
  writeFileSync(run, `${runLines.join("\n")}\n`);
  // One judgment per (query, docno): trec_eval and the loader both refuse a docno judged twice.
  writeFileSync(qrels, `${dedupe(qrelLines).join("\n")}\n`);
  return { run, qrels };
}

function dedupe(lines) {
  const seen = new Set();
  return lines.filter((l) => {
    const key = l.split(" ").slice(0, 3).join(" ");
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function time({ run, qrels }, ...extra) {
  const args = [
    bin,
    "eval",
    "--qrels",
    qrels,
    "--run",
    run,
    "-m",
    "map",
    "-m",
    "mrr",
    "-m",
    "ndcg@10",
    "-m",
    "recall@10",
    "-m",
    "precision@10",
    ...extra,
  ];
  const samples = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    execFileSync(process.execPath, args, { stdio: ["ignore", "ignore", "ignore"] });
    samples.push(performance.now() - t);
  }
  return samples.sort((a, b) => a - b)[1];
}

const cases = [
  [2_500, 100],
  [5_000, 100],
  [10_000, 100],
  [100_000, 10],
];
const times = new Map();
for (const [q, d] of cases) {
  const files = generate(q, d);
  // The default: one thread on a machine with fewer than four cores (this one has two).
  const ms = time(files);
  times.set(`${q}x${d}`, ms);
  // Two threads, for comparison (each thread reads past the other's lines: see the CLI README).
  const two = time(files, "--threads", "2");
  console.log(
    `eval ${q.toLocaleString("en")} queries × ${d} docs (${(q * d).toLocaleString("en")} lines): ${ms.toFixed(0)} ms wall (median of 3; target < 1500 ms for the two large runs); --threads 2: ${two.toFixed(0)} ms (${(ms / two).toFixed(2)}× the speed)`,
  );
}
// The generated runs above repeat their docnos across queries (about 100,000 distinct in the
// 10,000 × 100 run), as runs over a small corpus do. A run over a large corpus, like MS MARCO's
// BM25 top 1,000, has nearly every docno distinct, and each distinct docno costs more (it is
// interned once). So: 1,000 queries × 1,000 docs, numeric docnos all but distinct, 1–2 relevant
// documents per query, with MS MARCO's measures.
{
  const run = `${dir}run-1000x1000-distinct.txt`;
  const qrels = `${dir}qrels-1000x1000-distinct.txt`;
  if (!(existsSync(run) && existsSync(qrels))) {
    const runLines = [];
    const qrelLines = [];
    for (let q = 0; q < 1000; q++) {
      const base = Math.floor(rand() * 8_000_000);
      for (let d = 0; d < 1000; d++) {
        runLines.push(
          `${1_000_000 + q} Q0 ${base + d * 7} ${d + 1} ${(30 - d * 0.01).toFixed(4)} bm25`,
        );
      }
      qrelLines.push(`${1_000_000 + q} 0 ${base + 7 * Math.floor(rand() * 1500)} 1`);
      if (rand() < 0.5) qrelLines.push(`${1_000_000 + q} 0 ${base + 3} 1`);
    }
    writeFileSync(run, `${runLines.join("\n")}\n`);
    writeFileSync(qrels, `${qrelLines.join("\n")}\n`);
  }
  const samples = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    execFileSync(
      process.execPath,
      [
        bin,
        "eval",
        "--qrels",
        qrels,
        "--run",
        run,
        "-m",
        "mrr@10",
        "-m",
        "recall@1000",
        "-m",
        "map",
      ],
      { stdio: ["ignore", "ignore", "ignore"] },
    );
    samples.push(performance.now() - t);
  }
  const ms = samples.sort((a, b) => a - b)[1];
  console.log(
    `eval 1,000 queries × 1,000 docs, docnos all but distinct (1,000,000 lines; no target): ${ms.toFixed(0)} ms wall (median of 3), ${(ms / times.get("10000x100")).toFixed(2)}× the 10,000 × 100 run`,
  );
}

const per = (k, q) => times.get(k) / q;
console.log(
  `linearity (ms per 1,000 queries × 100 docs): 2,500 → ${(per("2500x100", 2.5)).toFixed(0)}, 5,000 → ${(per("5000x100", 5)).toFixed(0)}, 10,000 → ${(per("10000x100", 10)).toFixed(0)} (flat = linear)`,
);

// Phases, in-process (one pass each; a fresh process per case so one case's heap does not slow
// the next): the calls `fastrag-bench eval --threads 1` makes (with two threads, each does them
// for the queries whose id hashes to it).
const phases = `
const [qrels, run] = process.argv.slice(1);
const dist = (p) => new URL("../packages/" + p, ${JSON.stringify(import.meta.url)}).href;
const { Benchmark } = await import(dist("bench-core/dist/index.js"));
const { QADataset, TrecRun } = await import(dist("bench-datasets/dist/index.js"));
const { MAP, MRR, NDCG, Precision, Recall } = await import(dist("bench-metrics/dist/retrieval.js"));
const out = [];
let t = performance.now();
const lap = (name) => { const now = performance.now(); out.push(name + " " + (now - t).toFixed(0)); t = now; };
const dataset = await QADataset.fromTrec({ qrels }); lap("qrels");
const target = await TrecRun.load(run); lap("run");
const metrics = [new MAP(), new MRR(), new NDCG({ k: 10 }), new Recall({ k: 10 }), new Precision({ k: 10 })];
const benchmark = new Benchmark({ dataset, metrics, maxConcurrent: 64 }); lap("constructor");
await benchmark.run(target, { name: "run" }); lap("run+metrics");
// Not part of eval: a result hashes its dataset only when saved or paired.
benchmark.fingerprint; lap("(fingerprint, on save only)");
console.log(out.join(" ms, ") + " ms");
`;
for (const [q, d] of cases.slice(2)) {
  const { run, qrels } = generate(q, d);
  const line = execFileSync(process.execPath, ["--input-type=module", "-e", phases, qrels, run], {
    encoding: "utf8",
  });
  console.log(`phases ${q.toLocaleString("en")} × ${d}: ${line.trim()}`);
}
