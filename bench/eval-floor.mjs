// The measured floor `bench/eval.mjs` compares `fastrag-bench eval` with (issue 31): the same parse
// of both files that eval's columnar path does, through the same functions (the qrels into columns
// grouped by query, the run streamed one query at a time, ordered as trec_eval orders it and
// joined with its judgments), with no metric, no output and no CLI.
// Run after `pnpm build`: node bench/eval-floor.mjs QRELS RUN
const dist = (p) => new URL(`../packages/bench-cli/dist/internal/${p}`, import.meta.url).href;
const { readQrels, readRun } = await import(dist("eval-columns.js"));

const [qrelsPath, runPath] = process.argv.slice(2);
const { qrels } = await readQrels(qrelsPath, runPath, undefined);
let queries = 0;
await readRun(runPath, qrels, undefined, () => {
  queries++;
});
process.stdout.write(`${queries}\n`);
