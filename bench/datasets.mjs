// Dataset loading at scale (issue 3): load a generated 1,000,000-row JSONL and CSV eval set with
// QADataset.load and compare with the bare parse in the same process (JSON.parse per streamed
// line; papaparse alone). Target: ≤ 1.5×. Peak RSS is measured per loader in a child process.
//
// Run: pnpm --filter @fastrag/bench-core --filter @fastrag/bench-datasets build && node bench/datasets.mjs
// Options: node bench/datasets.mjs [rows=1000000] [--regenerate]
// BENCH_DATASETS_DIST=<dir> loads QADataset from another build's dist instead of this one's.
// --baseline=<dir> reads before and after in one process: the bare parse, the build in <dir> (a
// copy of the dist before a change, kept under packages/bench-datasets/node_modules/ so that its
// imports resolve) and this build, alternating for [--rounds=5] rounds (the two builds swap places
// each round); it prints the median CPU time of each (wall time swings with a shared host's load,
// CPU time less so).
// The files go to bench/.data/datasets/ (git-ignored) and are generated once, then reused.
import { spawnSync } from "node:child_process";
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const { QADataset } = await import(
  process.env.BENCH_DATASETS_DIST === undefined
    ? "../packages/bench-datasets/dist/index.js"
    : pathToFileURL(`${process.env.BENCH_DATASETS_DIST}/index.js`).href
);

const require = createRequire(new URL("../packages/bench-datasets/package.json", import.meta.url));
const Papa = require("papaparse");

const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const ROWS = Number(args[0] ?? 1_000_000);
const phase = process.argv.find((a) => a.startsWith("--phase="))?.slice(8);
const baseline = process.argv.find((a) => a.startsWith("--baseline="))?.slice(11);
const rounds = Number(process.argv.find((a) => a.startsWith("--rounds="))?.slice(9) ?? 5);
const dir = fileURLToPath(new URL(`./.data/datasets/${ROWS}/`, import.meta.url));
const files = {
  jsonl: `${dir}eval.jsonl`,
  csv: `${dir}eval.csv`,
  csvLists: `${dir}eval-lists.csv`,
};

async function write(path, lines) {
  const out = createWriteStream(path);
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
}

async function generate() {
  mkdirSync(dir, { recursive: true });
  await write(files.jsonl, function* () {
    for (let i = 0; i < ROWS; i++) {
      yield `${JSON.stringify({
        id: `q${i}`,
        question: `What is the capital of region number ${i}?`,
        answers: [`City ${i}`, `city-${i}`],
        relevant_ids: [`doc-${i}`, `doc-${i + 1}`],
        metadata: { source: "synthetic", difficulty: i % 5 },
      })}\n`;
    }
  });
  // Plain cells (one answer, one id) and, separately, cells holding JSON arrays.
  await write(files.csv, function* () {
    yield "id,question,answer,relevant_ids,source\n";
    for (let i = 0; i < ROWS; i++) {
      yield `q${i},"What is the capital of region number ${i}, really?",City ${i},doc-${i},synthetic\n`;
    }
  });
  await write(files.csvLists, function* () {
    yield "id,question,answers,relevant_ids\n";
    for (let i = 0; i < ROWS; i++) {
      yield `q${i},What is the capital of region number ${i}?,"[""City ${i}"",""city-${i}""]","[""doc-${i}"",""doc-${i + 1}""]"\n`;
    }
  });
}

/** The bare parse: the same streamed read, split on newlines, JSON.parse per line. */
async function bareJsonl(path) {
  const rows = [];
  let pending = "";
  for await (const chunk of createReadStream(path, { encoding: "utf8", highWaterMark: 1 << 20 })) {
    const text = pending + chunk;
    let start = 0;
    let nl = text.indexOf("\n");
    while (nl !== -1) {
      if (nl > start) rows.push(JSON.parse(text.slice(start, nl)));
      start = nl + 1;
      nl = text.indexOf("\n", start);
    }
    pending = text.slice(start);
  }
  if (pending.length > 0) rows.push(JSON.parse(pending));
  return rows.length;
}

/** papaparse alone on the whole file, as arrays (header: false), skipping empty lines. */
function barePapa(path) {
  const text = readFileSync(path, "utf8");
  return Papa.parse(text, { header: false, skipEmptyLines: true, delimiter: "," }).data.length - 1;
}

const loaders = {
  "jsonl bare": () => bareJsonl(files.jsonl),
  "jsonl QADataset.load": async () => (await QADataset.load(files.jsonl)).length,
  "csv bare (papaparse)": async () => barePapa(files.csv),
  "csv QADataset.load": async () => (await QADataset.load(files.csv)).length,
  "csv+lists bare (papaparse)": async () => barePapa(files.csvLists),
  "csv+lists QADataset.load": async () => (await QADataset.load(files.csvLists)).length,
};

async function time(fn) {
  globalThis.gc?.();
  const start = process.hrtime.bigint();
  const n = await fn();
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (n !== ROWS) throw new Error(`expected ${ROWS} rows, got ${n}`);
  return ms;
}

/** CPU milliseconds (user + system) of one call; checks the row count. */
async function cpu(fn) {
  globalThis.gc?.();
  const start = process.cpuUsage();
  const n = await fn();
  const used = process.cpuUsage(start);
  if (n !== ROWS) throw new Error(`expected ${ROWS} rows, got ${n}`);
  return (used.user + used.system) / 1000;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

if (baseline !== undefined) {
  // Before and after in one process, alternating: bare parse, baseline build, this build.
  if (!Object.values(files).every((f) => existsSync(f))) await generate();
  const before = (await import(pathToFileURL(`${baseline}/index.js`).href)).QADataset;
  const formats = [
    ["jsonl", () => bareJsonl(files.jsonl), files.jsonl],
    ["csv", async () => barePapa(files.csv), files.csv],
    ["csv+lists", async () => barePapa(files.csvLists), files.csvLists],
  ];
  console.log(
    `node ${process.version}, ${ROWS.toLocaleString()} rows; CPU time, median of ${rounds} alternating rounds; baseline ${baseline}`,
  );
  console.log(
    "| format | bare ms | before ms | after ms | before / bare | after / bare | after / before |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const [format, bare, path] of formats) {
    const times = { bare: [], before: [], after: [] };
    for (let round = 0; round < rounds; round++) {
      // The two builds swap places every round, so that neither always runs second.
      times.bare.push(await cpu(bare));
      for (const build of round % 2 === 0 ? ["before", "after"] : ["after", "before"]) {
        const loader = build === "before" ? before : QADataset;
        times[build].push(await cpu(async () => (await loader.load(path)).length));
      }
    }
    const [b, x, y] = [median(times.bare), median(times.before), median(times.after)];
    console.log(
      `| ${format} | ${b.toFixed(0)} | ${x.toFixed(0)} | ${y.toFixed(0)} | ${(x / b).toFixed(2)}× | ${(y / b).toFixed(2)}× | ${(y / x).toFixed(3)} |`,
    );
  }
} else if (phase !== undefined) {
  // Child: one loader, once, then report its peak RSS.
  const ms = await time(loaders[phase]);
  process.stdout.write(JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
} else {
  if (process.argv.includes("--regenerate") || !Object.values(files).every((f) => existsSync(f))) {
    console.log(`generating ${ROWS.toLocaleString()} rows into ${dir} …`);
    await generate();
  }
  console.log(
    `node ${process.version}, ${ROWS.toLocaleString()} rows; best of 3, same process, bare and loader alternating`,
  );
  const best = {};
  for (let round = 0; round < 3; round++) {
    for (const [name, fn] of Object.entries(loaders)) {
      const ms = await time(fn);
      best[name] = Math.min(best[name] ?? Infinity, ms);
    }
  }
  const rss = {};
  for (const name of Object.keys(loaders)) {
    const child = spawnSync(
      process.execPath,
      ["--expose-gc", fileURLToPath(import.meta.url), String(ROWS), `--phase=${name}`],
      {
        encoding: "utf8",
        maxBuffer: 1 << 20,
      },
    );
    if (child.status !== 0) throw new Error(child.stderr);
    rss[name] = JSON.parse(child.stdout).maxRssMb;
  }
  const rows = [];
  for (const format of ["jsonl", "csv", "csv+lists"]) {
    const bare = Object.keys(loaders).find((k) => k.startsWith(`${format} bare`));
    const load = `${format} QADataset.load`;
    rows.push([format, best[bare], best[load], best[load] / best[bare], rss[bare], rss[load]]);
  }
  console.log(
    "| format | bare parse ms | QADataset.load ms | ratio | bare peak RSS MB | load peak RSS MB |",
  );
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const [format, bare, load, ratio, rssBare, rssLoad] of rows) {
    console.log(
      `| ${format} | ${bare.toFixed(0)} | ${load.toFixed(0)} | ${ratio.toFixed(2)}× | ${rssBare.toFixed(0)} | ${rssLoad.toFixed(0)} |`,
    );
  }
}
