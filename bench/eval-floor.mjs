// The measured floor `bench/eval.mjs` compares `fastrag-bench eval` with (issue 31): the same parse
// of both files that eval's columnar path does (qrels into columns grouped by query, the run
// streamed one query at a time, ordered as trec_eval orders it and joined with its judgments),
// with no metric, no output and no CLI. Run after `pnpm build`: node bench/eval-floor.mjs QRELS RUN
const dist = (p) => new URL(`../packages/bench-cli/dist/internal/${p}`, import.meta.url).href;
const { QrelsColumns, RunReader } = await import(dist("eval-columns.js"));
const { readLines } = await import(dist("eval-read.js"));

const [qrelsPath, runPath] = process.argv.slice(2);
const qrels = new QrelsColumns();
await readLines(qrelsPath, qrels);
qrels.group(undefined);
let queries = 0;
const reader = new RunReader(qrels, undefined, () => {
  queries++;
});
await readLines(runPath, reader);
reader.finish();
process.stdout.write(`${queries}\n`);
