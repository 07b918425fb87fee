// Two targets; the second interrupts the run (SIGINT to itself) when FASTRAG_TEST_INTERRUPT is
// set. Every call is logged to FASTRAG_TEST_CALLS, so a test can see which calls a resume makes.
import { appendFileSync } from "node:fs";
import { defineConfig } from "@fastrag/bench-cli";
import { ExactMatch } from "@fastrag/bench-metrics/generation";
import { answerSamples, rightAnswer } from "./answers.mjs";

const log = (line) => appendFileSync(process.env.FASTRAG_TEST_CALLS, `${line}\n`);

export default defineConfig({
  dataset: answerSamples(10),
  metrics: [new ExactMatch()],
  maxConcurrent: 1,
  targets: {
    first: {
      query: async (_q, { sample }) => {
        log(`first ${sample.id}`);
        return rightAnswer(sample);
      },
    },
    second: {
      query: async (_q, { sample }) => {
        log(`second ${sample.id}`);
        if (process.env.FASTRAG_TEST_INTERRUPT && sample.id === "q2") {
          process.kill(process.pid, "SIGINT");
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return { answer: sample.id === "q5" ? "wrong" : `a${sample.id.slice(1)}` };
      },
    },
  },
});
