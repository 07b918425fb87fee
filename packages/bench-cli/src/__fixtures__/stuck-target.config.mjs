// Five samples, one at a time; the fourth's call returns a promise nothing ever settles.
import { defineConfig } from "@fastrag/bench-cli";
import { ExactMatch } from "@fastrag/bench-metrics/generation";

export default defineConfig({
  dataset: Array.from({ length: 5 }, (_, i) => ({
    id: `q${i}`,
    question: `q ${i}`,
    expectedAnswers: [`a${i}`],
    relevantIds: [],
  })),
  metrics: [new ExactMatch()],
  maxConcurrent: 1,
  targets: {
    stuck: {
      query: (_q, { sample }) =>
        sample.id === "q3"
          ? new Promise(() => {})
          : Promise.resolve({ answer: `a${sample.id.slice(1)}` }),
    },
  },
});
