// `fastrag-bench eval` as a whole process on realistic TREC runs (issues 6 and 31). Run after
// `pnpm build`: node bench/eval.mjs [rounds=5]
//
// Data (bench/eval-data.mjs, generated into bench/.data/eval/ once): 10,000 queries × 100 docs
// and 100,000 queries × 10 docs, docnos drawn from a corpus of 8.8 million ids (nearly all
// distinct), ~15 graded judgments per query (grades 0–3, most retrieved documents unjudged),
// tied scores, 3 % of the queries without a relevant document, 1 % of the judged queries missing
// from the run, 2 % run-only queries.
//
// For each shape, `rounds` rounds alternate, in one run of this script, the processes compared:
// - bare: a Node process that reads both files and looks at every byte (bench/bare-read.mjs);
// - floor: the same parse as eval's, with no metric, no output, no CLI (bench/eval-floor.mjs);
// - eval: `fastrag-bench eval` with map, mrr, ndcg@10, recall@10, precision@10.
// It prints the medians of wall time and of CPU time (user + system), the ratios eval / bare and
// eval / floor (targets: ≤ 2× bare, or ≤ 1.25× the floor), and peak RSS. With TREC_EVAL=path
// (a trec_eval binary you built), it also runs trec_eval once per shape on the same files, for
// its time and peak RSS (target: eval's peak ≤ 1.5× trec_eval's). Wall times and CPU times come
// from /usr/bin/time when present (`%e %U %S %M`), else wall time only.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { realisticFiles } from "./eval-data.mjs";

const rounds = Number(process.argv[2] ?? 5);
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const bin = here("../packages/bench-cli/dist/bin.js");
const timeBin = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;
const trecEval = process.env.TREC_EVAL;
const METRICS = [
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
];

/** One process: wall s, cpu s (user + system; NaN without /usr/bin/time), peak RSS MB. */
function measure(command, args) {
  const out = here("./.data/eval/time.txt");
  const t = performance.now();
  const r = timeBin
    ? spawnSync(timeBin, ["-o", out, "-f", "%e %U %S %M", command, ...args], { stdio: "ignore" })
    : spawnSync(command, args, { stdio: "ignore" });
  const wall = (performance.now() - t) / 1000;
  if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${r.status}`);
  if (!timeBin) return { wall, cpu: Number.NaN, rss: Number.NaN };
  const last = readFileSync(out, "utf8").trim().split("\n").pop() ?? "";
  const [e, u, s, m] = last.split(" ").map(Number);
  return { wall: e, cpu: u + s, rss: m / 1024 };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 === 1 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const loadavg = () =>
  existsSync("/proc/loadavg")
    ? readFileSync("/proc/loadavg", "utf8").trim().split(" ").slice(0, 3).join(" ")
    : "n/a";

console.log(`host load (1, 5, 15 min) at start: ${loadavg()}; ${rounds} alternating rounds`);
for (const [queries, docs] of [
  [10_000, 100],
  [100_000, 10],
]) {
  const { run, qrels } = await realisticFiles(queries, docs);
  const kinds = {
    bare: [process.execPath, [here("./bare-read.mjs"), run, qrels]],
    floor: [process.execPath, [here("./eval-floor.mjs"), qrels, run]],
    eval: [process.execPath, [bin, "eval", "--qrels", qrels, "--run", run, ...METRICS]],
  };
  const samples = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [kind, [command, args]] of Object.entries(kinds)) {
      samples[kind].push(measure(command, args));
    }
  }
  const med = (kind, key) => median(samples[kind].map((s) => s[key]));
  const shape = `${queries.toLocaleString("en")} × ${docs}`;
  console.log(
    `\n${shape} (${(queries * docs).toLocaleString("en")} run lines), load now ${loadavg()}`,
  );
  for (const kind of Object.keys(kinds)) {
    console.log(
      `  ${kind.padEnd(17)} wall ${med(kind, "wall").toFixed(2)} s  cpu ${med(kind, "cpu").toFixed(2)} s  peak RSS ${med(kind, "rss").toFixed(0)} MB`,
    );
  }
  const ratio = (a, b, key) => (med(a, key) / med(b, key)).toFixed(2);
  console.log(
    `  eval / bare: ${ratio("eval", "bare", "wall")}× wall, ${ratio("eval", "bare", "cpu")}× cpu (target ≤ 2×)`,
  );
  console.log(
    `  eval / floor: ${ratio("eval", "floor", "wall")}× wall, ${ratio("eval", "floor", "cpu")}× cpu (target ≤ 1.25× where 2× bare is out of reach); floor / bare: ${ratio("floor", "bare", "wall")}× wall`,
  );
  if (trecEval) {
    const te = measure(trecEval, [
      "-c",
      "-m",
      "map",
      "-m",
      "recip_rank",
      "-m",
      "ndcg_cut.10",
      "-m",
      "recall.10",
      "-m",
      "P.10",
      qrels,
      run,
    ]);
    console.log(
      `  trec_eval: wall ${te.wall.toFixed(2)} s, peak RSS ${te.rss.toFixed(0)} MB; eval's peak / trec_eval's: ${(med("eval", "rss") / te.rss).toFixed(2)}× (target ≤ 1.5×)`,
    );
  }
}
