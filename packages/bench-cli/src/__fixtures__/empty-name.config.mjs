// The second target has an empty name; the first one must not run before it is refused.
import { appendFileSync } from "node:fs";
import { defineConfig } from "@fastrag/bench-cli";
import { ExactMatch } from "@fastrag/bench-metrics/generation";

const answer = {
  query: async (_q, { sample }) => {
    if (process.env.FASTRAG_TEST_CALLS) appendFileSync(process.env.FASTRAG_TEST_CALLS, "call\n");
    return { answer: sample.expectedAnswers[0] };
  },
};

export default defineConfig({
  dataset: [{ id: "q0", question: "q", expectedAnswers: ["a"], relevantIds: [] }],
  metrics: [new ExactMatch()],
  targets: { ok: answer, " ": answer },
});
