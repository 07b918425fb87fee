// A retriever that returns ids as strings instead of chunks, and an engine without answers for
// the dataset's questions: every sample errors, or one metric scores nothing.
import { defineConfig } from "@fastrag/bench-cli";
import { ExactMatch } from "@fastrag/bench-metrics/generation";
import { Recall } from "@fastrag/bench-metrics/retrieval";

export default defineConfig({
  dataset: Array.from({ length: 3 }, (_, i) => ({
    id: `q${i}`,
    question: `q ${i}`,
    expectedAnswers: [],
    relevantIds: [`d${i}`],
  })),
  metrics: [new Recall({ k: 1 }), new ExactMatch()],
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
  },
});
