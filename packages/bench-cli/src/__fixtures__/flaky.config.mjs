// A target that errors on some samples, for status output.
import { defineConfig } from "@fastrag/bench-cli";
import { ExactMatch } from "@fastrag/bench-metrics/generation";

export default defineConfig({
  dataset: Array.from({ length: 10 }, (_, i) => ({
    id: `q${i}`,
    question: `q ${i}`,
    expectedAnswers: [`a${i}`],
    relevantIds: [],
  })),
  metrics: [new ExactMatch()],
  targets: {
    flaky: {
      query: async (_q, { sample }) => {
        if (sample.id === "q3") throw new Error("upstream 500");
        return { answer: `a${sample.id.slice(1)}` };
      },
    },
  },
});
