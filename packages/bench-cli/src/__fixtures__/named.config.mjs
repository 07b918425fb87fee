// Targets named by the test (FASTRAG_TEST_TARGETS, a JSON array of names), all one retriever.
import { defineConfig } from "@fastrag/bench-cli";
import { HitRate } from "@fastrag/bench-metrics/retrieval";

const retriever = { retrieve: async () => [{ id: "d" }] };
const names = JSON.parse(process.env.FASTRAG_TEST_TARGETS ?? "[]");
export default defineConfig({
  dataset: [{ id: "a", question: "q", expectedAnswers: [], relevantIds: ["d"] }],
  metrics: [new HitRate({ k: 1 })],
  targets: Object.fromEntries(names.map((name) => [name, retriever])),
});
