// A misspelled config key.
import { defineConfig } from "@fastrag/bench-cli";
import { Recall } from "@fastrag/bench-metrics/retrieval";

export default defineConfig({
  dataset: [{ id: "q0", question: "q", expectedAnswers: [], relevantIds: ["d"] }],
  metrics: [new Recall({ k: 1 })],
  targets: { r: { retrieve: async () => [{ id: "d" }] } },
  maxConcurent: 4,
});
