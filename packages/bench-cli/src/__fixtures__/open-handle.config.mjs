// A config that leaves handles open, as a database client's pool or a keep-alive HTTP agent does,
// and a call that ignores its timeout's signal: `run` still ends once its results are saved.
import { defineConfig } from "@fastrag/bench-cli";
import { HitRate } from "@fastrag/bench-metrics/retrieval";

setInterval(() => {}, 1_000);

export default defineConfig({
  dataset: [
    { id: "a", question: "fast?", expectedAnswers: [], relevantIds: ["d1"] },
    { id: "b", question: "slow?", expectedAnswers: [], relevantIds: ["d1"] },
  ],
  metrics: [new HitRate({ k: 1 })],
  targets: {
    pooled: {
      retrieve: (_q, { sample }) =>
        new Promise((resolve) =>
          setTimeout(() => resolve([{ id: "d1" }]), sample.id === "b" ? 600_000 : 1),
        ),
    },
  },
  timeoutMs: 200,
});
