// A TypeScript config, loaded through jiti.

import { type BenchConfig, defineConfig } from "@fastrag/bench-cli";
import type { Retriever } from "@fastrag/bench-core";
import { HitRate } from "@fastrag/bench-metrics/retrieval";

const retriever: Retriever = {
  retrieve: async (_question: string, { sample }) => [{ id: sample.relevantIds[0] ?? "none" }],
};

const config: BenchConfig = defineConfig({
  dataset: [{ id: "a", question: "what?", expectedAnswers: [], relevantIds: ["d1"] }],
  metrics: [new HitRate({ k: 1 })],
  targets: { "typed/run": retriever },
});

export default config;
