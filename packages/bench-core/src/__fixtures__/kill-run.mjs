// Child process for the SIGKILL acceptance test: runs N samples with a checkpoint journal against a
// target that records every call in a file, then writes the result. Imports the built package.
// argv: <journal or -> <calls file> <result file> <n> [hangAfter] [gateAfter gateFile]
// - hangAfter (0 = never): this process's calls after that many record themselves and never
//   answer, so the run cannot finish before the parent kills it, however slow the machine.
// - gateAfter, gateFile: calls after that many wait until gateFile exists before they record
//   themselves and go on (so the parent can start another process while this one is mid-run).
import { appendFileSync, existsSync } from "node:fs";
import { Benchmark } from "../../dist/index.js";

const [journal, callsFile, outFile, n, hangAfterText, gateAfterText, gateFile] =
  process.argv.slice(2);
const hangAfter = Number(hangAfterText ?? 0);
const gateAfter = Number(gateAfterText ?? 0);
let calls = 0;
const samples = Array.from({ length: Number(n) }, (_, i) => ({
  id: `q${i}`,
  question: `question ${i}`,
  expectedAnswers: [`answer ${i}`],
  relevantIds: [`doc-${i}`],
}));
const exact = {
  name: "exact",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: true,
  score: ({ sample, answer }) => (answer === sample.expectedAnswers[0] ? 1 : 0),
};
const hit = {
  name: "hit",
  higherIsBetter: true,
  needsRelevantIds: true,
  needsAnswer: false,
  score: ({ sample, retrieved }) =>
    retrieved.some((c) => sample.relevantIds.includes(c.id)) ? 1 : 0,
};
const engine = {
  async query(_question, { sample }) {
    calls++;
    if (gateFile !== undefined && calls > gateAfter) {
      while (!existsSync(gateFile)) await new Promise((r) => setTimeout(r, 5));
    }
    appendFileSync(callsFile, `${sample.id}\n`);
    // A timer keeps the process alive while its calls hang, until the kill.
    if (hangAfter > 0 && calls > hangAfter) await new Promise(() => setInterval(() => {}, 60_000));
    await new Promise((r) => setTimeout(r, Math.random() * 2));
    const i = Number(sample.id.slice(1));
    if (i % 97 === 0) throw new Error(`deterministic failure ${i}`);
    return {
      answer: i % 3 === 0 ? "wrong" : `answer ${i}`,
      chunks: [{ id: i % 2 ? `doc-${i}` : "other" }],
    };
  },
};
const result = await new Benchmark({
  dataset: samples,
  metrics: [exact, hit],
  maxConcurrent: 8,
}).run(engine, {
  name: "killed",
  ...(journal === "-" ? {} : { checkpoint: journal }),
});
await result.save(outFile);
