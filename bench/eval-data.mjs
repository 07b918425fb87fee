// Realistic TREC runs and qrels for `bench/eval.mjs` (issue 31), generated into bench/.data/eval/
// (git-ignored) once and reused.
//
// What real runs over BEIR or MS MARCO look like, and what the generator does about it:
// - docnos are drawn from a corpus of 8.8 million ids (MS MARCO passage's size), so nearly every
//   docno of a run is distinct (a run of 10^6 lines has ~94 % distinct docnos);
// - scores descend down the ranking, with ties (BM25 scores printed to 4 decimals, and a quarter
//   of the ranks tie with the one above), and the run lists tied documents in no particular order,
//   so they must be ordered by docno as trec_eval orders them;
// - ~15 graded judgments per query (grades 0–3, many of them 0: judged non-relevant), about half
//   of them on documents the run retrieved, the others outside it; most retrieved documents are
//   unjudged;
// - 3 % of the queries have no relevant document (every grade 0), 1 % of the judged queries are
//   missing from the run, and 2 % of the run's queries are not in the qrels (run-only).
// The files are written query by query, qrels in random docno order within a query.
import { createWriteStream, existsSync, mkdirSync, renameSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const dataDir = fileURLToPath(new URL("./.data/eval/", import.meta.url));

const CORPUS = 8_841_823;

/** mulberry32: small, seeded, good enough for test data. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function write(path, lines) {
  const tmp = `${path}.tmp`;
  const out = createWriteStream(tmp);
  let buffer = "";
  for (const line of lines()) {
    buffer += line;
    if (buffer.length > 1 << 20) {
      if (!out.write(buffer)) await new Promise((r) => out.once("drain", r));
      buffer = "";
    }
  }
  out.write(buffer);
  await new Promise((r) => out.end(r));
  renameSync(tmp, path);
}

/**
 * The run and qrels of `queries` queries × `docs` documents (paths), generated if absent.
 * Deterministic for given sizes.
 */
export async function realisticFiles(queries, docs) {
  mkdirSync(dataDir, { recursive: true });
  const run = `${dataDir}run-${queries}x${docs}.txt`;
  const qrels = `${dataDir}qrels-${queries}x${docs}.txt`;
  if (existsSync(run) && existsSync(qrels)) return { run, qrels };
  const rand = rng(queries * 31 + docs);
  const runLines = [];
  const qrelLines = [];
  const int = (n) => Math.floor(rand() * n);
  for (let q = 0; q < queries; q++) {
    const qid = String(100_000 + q * 3);
    const inRun = rand() >= 0.01;
    // The ranking: distinct docnos from the corpus, descending scores with ties.
    const seen = new Set();
    const ranked = [];
    let score = 18 + rand() * 12;
    for (let d = 0; d < docs; d++) {
      let doc;
      do doc = int(CORPUS);
      while (seen.has(doc));
      seen.add(doc);
      if (rand() >= 0.25) score -= rand() * (6 / docs);
      ranked.push([String(doc), score.toFixed(4)]);
    }
    // Tied documents in file order, not docno order (a run is not required to break ties).
    if (inRun) {
      for (let d = 0; d < docs; d++) {
        const [doc, s] = ranked[d];
        runLines.push(`${qid} Q0 ${doc} ${d + 1} ${s} bm25\n`);
      }
    }
    // Judgments: ~15, about half on retrieved documents (more on the top ranks).
    {
      const none = rand() < 0.03;
      const judged = new Map();
      const count = 5 + int(21);
      for (let j = 0; j < count; j++) {
        const fromRun = rand() < 0.5;
        const doc = fromRun ? ranked[Math.floor(rand() * rand() * docs)][0] : String(int(CORPUS));
        if (judged.has(doc)) continue;
        const u = rand();
        const grade = none ? 0 : u < 0.45 ? 0 : u < 0.75 ? 1 : u < 0.92 ? 2 : 3;
        judged.set(doc, grade);
      }
      const entries = [...judged].sort(() => rand() - 0.5);
      for (const [doc, grade] of entries) qrelLines.push(`${qid} 0 ${doc} ${grade}\n`);
    }
    // Run-only queries: 2 % more, between the judged ones.
    if (rand() < 0.02) {
      const rid = String(100_000 + q * 3 + 1);
      const own = new Set();
      for (let d = 0; d < docs; d++) {
        let doc;
        do doc = int(CORPUS);
        while (own.has(doc));
        own.add(doc);
        runLines.push(`${rid} Q0 ${doc} ${d + 1} ${(10 - d / docs).toFixed(4)} bm25\n`);
      }
    }
  }
  await write(run, function* () {
    yield* runLines;
  });
  await write(qrels, function* () {
    yield* qrelLines;
  });
  return { run, qrels };
}
