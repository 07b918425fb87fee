// Two target names that map to one result file: refused before anything runs.
import { defineConfig } from "@fastrag/bench-cli";
import { HitRate } from "@fastrag/bench-metrics/retrieval";

const retriever = { retrieve: async () => [] };
export default defineConfig({
  dataset: [{ id: "a", question: "q", expectedAnswers: [], relevantIds: ["d"] }],
  metrics: [new HitRate({ k: 1 })],
  targets: { "a/b": retriever, a_b: retriever },
});
