// A TypeScript config exporting `config` and no default (jiti hands it over as { config }).
import { type BenchConfig, defineConfig } from "@fastrag/bench-cli";
import { Recall } from "@fastrag/bench-metrics/retrieval";

export const config: BenchConfig = defineConfig({
  dataset: [{ id: "q0", question: "q", expectedAnswers: [], relevantIds: ["d"] }],
  metrics: [new Recall({ k: 1 })],
  targets: { named: { retrieve: async () => [{ id: "d" }] } },
});
