// One target whose first call creates FASTRAG_TEST_STARTED, then waits until FASTRAG_TEST_RELEASE
// exists: a test can start a second command while this one is in the middle of its run.
import { existsSync, writeFileSync } from "node:fs";
import { defineConfig } from "@fastrag/bench-cli";
import { ExactMatch } from "@fastrag/bench-metrics/generation";
import { answerSamples, rightAnswer } from "./answers.mjs";

export default defineConfig({
  dataset: answerSamples(3),
  metrics: [new ExactMatch()],
  maxConcurrent: 1,
  targets: {
    held: {
      query: async (_q, { sample }) => {
        if (sample.id === "q0") {
          writeFileSync(process.env.FASTRAG_TEST_STARTED, "");
          while (!existsSync(process.env.FASTRAG_TEST_RELEASE)) {
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
        return rightAnswer(sample);
      },
    },
  },
});
