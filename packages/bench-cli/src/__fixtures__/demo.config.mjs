// A config as a user writes it (JavaScript): two retrievers over a tiny dataset.
import { defineConfig } from "@fastrag/bench-cli";
import { Latency } from "@fastrag/bench-metrics/operational";
import { MRR, Recall } from "@fastrag/bench-metrics/retrieval";

const samples = Array.from({ length: 40 }, (_, i) => ({
  id: `q${i}`,
  question: `question ${i}`,
  expectedAnswers: [`answer ${i}`],
  relevantIds: [`doc-${i}`],
}));

export default defineConfig({
  dataset: samples,
  metrics: [new Recall({ k: 3 }), new MRR(), new Latency()],
  targets: {
    // Finds the relevant document for every other question, at rank 2.
    weak: {
      retrieve: async (_q, { sample }) =>
        Number(sample.id.slice(1)) % 2
          ? [{ id: "x" }, { id: `doc-${sample.id.slice(1)}` }]
          : [{ id: "x" }],
    },
    // Always finds it first.
    strong: { retrieve: async (_q, { sample }) => [{ id: `doc-${sample.id.slice(1)}` }] },
  },
});
