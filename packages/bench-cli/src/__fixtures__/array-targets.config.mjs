// Targets as an array instead of an object of name → target.
import { defineConfig } from "@fastrag/bench-cli";
import { Recall } from "@fastrag/bench-metrics/retrieval";

export default defineConfig({
  dataset: [{ id: "q0", question: "q", expectedAnswers: [], relevantIds: ["d"] }],
  metrics: [new Recall({ k: 1 })],
  targets: [{ retrieve: async () => [{ id: "d" }] }],
});
