// Child process for the trials SIGKILL test: runs N samples × 5 trials with a checkpoint journal,
// one call at a time, against a target that records every call in a file and, at call number
// `hangAt` (1-based; 0 = never), never answers (so the parent can kill it mid-sample).
import { appendFileSync } from "node:fs";
import { Benchmark } from "../../dist/index.js";

const [journal, callsFile, outFile, n, hangAt] = process.argv.slice(2);
const samples = Array.from({ length: Number(n) }, (_, i) => ({
  id: `q${i}`,
  question: `question ${i}`,
  expectedAnswers: ["right"],
  relevantIds: [],
}));
const exact = {
  name: "exact",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: true,
  score: ({ answer }) => (answer === "right" ? 1 : 0),
};
let calls = 0;
const engine = {
  async query(_question, { sample }) {
    calls++;
    appendFileSync(callsFile, `${sample.id}\n`);
    if (calls === Number(hangAt)) await new Promise(() => {});
    return { answer: calls % 2 ? "right" : "wrong", chunks: [] };
  },
};
const result = await new Benchmark({ dataset: samples, metrics: [exact], maxConcurrent: 1 }).run(
  engine,
  { name: "killed-trials", trials: 5, checkpoint: journal },
);
await result.save(outFile);
