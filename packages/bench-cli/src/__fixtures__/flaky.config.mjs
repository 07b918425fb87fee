// A target that errors on some samples, for status output.
import { defineConfig } from "@fastrag/bench-cli";
import { ExactMatch } from "@fastrag/bench-metrics/generation";
import { answerSamples, rightAnswer } from "./answers.mjs";

export default defineConfig({
  dataset: answerSamples(10),
  metrics: [new ExactMatch()],
  targets: {
    flaky: {
      query: async (_q, { sample }) => {
        if (sample.id === "q3") throw new Error("upstream 500");
        return rightAnswer(sample);
      },
    },
  },
});
