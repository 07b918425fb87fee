// Child process for the SIGKILL acceptance test: runs N samples with a checkpoint journal against a
// target that records every call in a file, then writes the result. Imports the built package.
import { appendFileSync } from "node:fs";
import { Benchmark } from "../../dist/index.js";

const [journal, callsFile, outFile, n] = process.argv.slice(2);
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
    appendFileSync(callsFile, `${sample.id}\n`);
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
