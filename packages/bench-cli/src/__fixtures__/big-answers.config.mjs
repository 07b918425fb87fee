// FASTRAG_TEST_SAMPLES samples whose answers are FASTRAG_TEST_ANSWER characters long: a result
// and a journal of a chosen size, to fill a small disk or pass a file size limit.
import { defineConfig } from "@fastrag/bench-cli";
import { ExactMatch } from "@fastrag/bench-metrics/generation";
import { answerSamples } from "./answers.mjs";

const n = Number(process.env.FASTRAG_TEST_SAMPLES ?? 10);
const length = Number(process.env.FASTRAG_TEST_ANSWER ?? 10);

export default defineConfig({
  dataset: answerSamples(n, { question: (i) => `question ${i}` }),
  metrics: [new ExactMatch()],
  maxConcurrent: 1,
  targets: {
    big: { query: async (_q, { sample }) => ({ answer: `${sample.id} ${"w".repeat(length)}` }) },
  },
});
