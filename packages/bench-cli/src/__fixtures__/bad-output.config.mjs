// A target that returns ids as strings instead of chunks (every sample errors), an engine whose
// dataset has no expected answers (exact_match scores nothing), and one whose answer makes a
// metric throw, with a two-line message, on every sample.
import { defineConfig } from "@fastrag/bench-cli";
import { ExactMatch } from "@fastrag/bench-metrics/generation";
import { Recall } from "@fastrag/bench-metrics/retrieval";

const boom = {
  name: "boom",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: true,
  score: ({ answer }) => {
    if (answer === "boom") throw new Error("exploded\n  on a second line");
    return 1;
  },
};

export default defineConfig({
  dataset: Array.from({ length: 3 }, (_, i) => ({
    id: `q${i}`,
    question: `q ${i}`,
    expectedAnswers: [],
    relevantIds: [`d${i}`],
  })),
  metrics: [new Recall({ k: 1 }), new ExactMatch(), boom],
  targets: {
    engine: {
      query: async (_q, { sample }) => ({
        answer: "x",
        chunks: [{ id: `d${sample.id.slice(1)}` }],
      }),
    },
    strings: {
      query: async (_q, { sample }) => ({ answer: "x", chunks: [`d${sample.id.slice(1)}`] }),
    },
    booming: { query: async () => ({ answer: "boom", chunks: [] }) },
  },
});
