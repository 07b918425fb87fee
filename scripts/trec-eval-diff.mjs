// Differential fuzz of `fastrag-bench eval` against a trec_eval binary you built yourself:
// random graded qrels and runs (ties, negative grades, -l levels, queries in one file only),
// every shared measure compared per query at 4 decimals. Not run by CI (no trec_eval there).
// usage: node scripts/trec-eval-diff.mjs PATH/TO/trec_eval [cases] [seed]
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [, , bin, casesArg = "200", seedArg = "1"] = process.argv;
let seed = Number(seedArg);
const rnd = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const ri = (a, b) => a + Math.floor(rnd() * (b - a + 1));
const pick = (xs) => xs[ri(0, xs.length - 1)];
const CLI = new URL("../packages/bench-cli/dist/bin.js", import.meta.url).pathname;
const dir = join(tmpdir(), "fastrag-trec-diff");
mkdirSync(dir, { recursive: true });
const ours = [
  ["map", "map"],
  ["mrr", "recip_rank"],
  ["r_precision", "Rprec"],
  ["ndcg@5", "ndcg_cut_5"],
  ["ndcg@10", "ndcg_cut_10"],
  ["precision@5", "P_5"],
  ["precision@10", "P_10"],
  ["recall@5", "recall_5"],
  ["recall@10", "recall_10"],
  ["hit_rate@1", "success_1"],
  ["hit_rate@5", "success_5"],
  ["map@5", "map_cut_5"],
  ["map@10", "map_cut_10"],
];
let bad = 0,
  compared = 0;
for (let c = 0; c < Number(casesArg); c++) {
  const nq = ri(1, 12),
    pool = ri(3, 25);
  const docs = Array.from(
    { length: pool },
    (_, _i) => pick(["D", "doc", "d-", "X"]) + ri(0, 40) + (rnd() < 0.2 ? "b" : ""),
  );
  const qrels = [],
    run = [];
  const grades = pick([[0, 1], [0, 1, 2, 3], [-1, 0, 1, 2], [1], [0]]);
  const scores = pick([[1, 2, 3], [0.5, 0.25, 1.5, -2], null]);
  const level = rnd() < 0.3 ? pick([1, 2, 3]) : undefined;
  for (let q = 0; q < nq; q++) {
    const qid = String(ri(1, 500)) + (rnd() < 0.1 ? "a" : "");
    const inQrels = rnd() < 0.9,
      inRun = rnd() < 0.85;
    const judged = new Set();
    if (inQrels)
      for (let j = ri(0, 15); j > 0; j--) {
        const d = pick(docs);
        if (judged.has(`${qid} ${d}`)) continue;
        judged.add(`${qid} ${d}`);
        qrels.push(`${qid} 0 ${d} ${pick(grades)}`);
      }
    const seen = new Set();
    if (inRun)
      for (let j = ri(0, 20); j > 0; j--) {
        const d = pick(docs);
        if (seen.has(d)) continue;
        seen.add(d);
        run.push(
          `${qid} Q0 ${d} ${ri(1, 99)} ${scores ? pick(scores) : (rnd() * 10).toFixed(ri(0, 3))} tag`,
        );
      }
  }
  // trec_eval refuses duplicate qid/docno pairs; dedupe across repeated qids
  const uq = [
    ...new Map(
      qrels.map((l) => [
        l
          .split(" ")
          .slice(0, 3)
          .filter((_, i) => i !== 1)
          .join(" "),
        l,
      ]),
    ).values(),
  ];
  const ur = [...new Map(run.map((l) => [`${l.split(" ")[0]} ${l.split(" ")[2]}`, l])).values()];
  if (uq.length === 0 || ur.length === 0) continue;
  // sort run lines by qid so every query's lines are contiguous in both tools
  if (rnd() < 0.5) ur.sort((a, b) => (a.split(" ")[0] < b.split(" ")[0] ? -1 : 1));
  writeFileSync(`${dir}/q`, `${uq.join("\n")}\n`);
  writeFileSync(`${dir}/r`, `${ur.join("\n")}\n`);
  const tArgs = [
    "-q",
    "-c",
    ...(level ? ["-l", String(level)] : []),
    "-m",
    "map",
    "-m",
    "recip_rank",
    "-m",
    "Rprec",
    "-m",
    "ndcg_cut.5,10",
    "-m",
    "P.5,10",
    "-m",
    "recall.5,10",
    "-m",
    "success.1,5",
    "-m",
    "map_cut.5,10",
    "-m",
    "num_rel",
    "-m",
    "num_ret",
    `${dir}/q`,
    `${dir}/r`,
  ];
  let tOut;
  try {
    tOut = execFileSync(bin, tArgs, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    console.log("trec_eval failed", c, e.stderr);
    continue;
  }
  const t = new Map();
  const numRel = new Map();
  for (const line of tOut.trim().split("\n")) {
    const [m, q, v] = line.trim().split(/\s+/);
    if (m === "num_rel") numRel.set(q, Number(v));
    else t.set(`${m} ${q}`, v);
  }
  let oOut;
  try {
    oOut = JSON.parse(
      execFileSync(
        "node",
        [
          CLI,
          "eval",
          "--qrels",
          `${dir}/q`,
          "--run",
          `${dir}/r`,
          "--per-query",
          "--json",
          ...(level ? ["-l", String(level)] : []),
          ...ours.flatMap(([o]) => ["-m", o]),
        ],
        { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
      ),
    );
  } catch (e) {
    const anyRel = [...numRel.entries()].some(([q, n]) => q !== "all" && n > 0);
    if (anyRel) {
      console.log("ours failed but trec has relevant", c, e.stderr);
      bad++;
      writeFileSync(`${dir}/fail-${c}.q`, `${uq.join("\n")}\n`);
      writeFileSync(`${dir}/fail-${c}.r`, `${ur.join("\n")}\n`);
    }
    continue;
  }
  let allHaveRel = true;
  for (const [q, n] of numRel) if (q !== "all" && n === 0) allHaveRel = false;
  for (const [o, te] of ours) {
    const per = oOut.metrics[o].per_query;
    for (const [q, n] of numRel) {
      if (q === "all") continue;
      const tv = t.get(`${te} ${q}`);
      const ov = per[q];
      if (n === 0) {
        if (ov !== null && ov !== undefined) {
          if (ov.toFixed(4) !== tv) {
            console.log("R=0 MISMATCH", c, o, q, ov, tv);
            bad++;
          } else compared++;
        }
        continue;
      }
      compared++;
      if (ov === null || ov === undefined || ov.toFixed(4) !== tv) {
        console.log("MISMATCH case", c, o, q, "ours", ov, "trec", tv, "level", level);
        bad++;
        writeFileSync(`${dir}/fail-${c}.q`, `${uq.join("\n")}\n`);
        writeFileSync(`${dir}/fail-${c}.r`, `${ur.join("\n")}\n`);
      }
    }
    if (allHaveRel) {
      compared++;
      const tv = t.get(`${te} all`);
      const ov = oOut.metrics[o].all;
      if (ov === null || ov.toFixed(4) !== tv) {
        console.log("ALL MISMATCH", c, o, ov, tv);
        bad++;
      }
    }
  }
}
console.log(`compared ${compared} values, ${bad} mismatches`);
