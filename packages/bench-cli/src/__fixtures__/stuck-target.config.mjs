// Five samples, one at a time; the fourth's call returns a promise nothing ever settles.
import { defineConfig } from "@fastrag/bench-cli";
import { ExactMatch } from "@fastrag/bench-metrics/generation";
import { answerSamples, rightAnswer } from "./answers.mjs";

export default defineConfig({
  dataset: answerSamples(5),
  metrics: [new ExactMatch()],
  maxConcurrent: 1,
  targets: {
    stuck: {
      query: (_q, { sample }) =>
        sample.id === "q3" ? new Promise(() => {}) : Promise.resolve(rightAnswer(sample)),
    },
  },
});
