// A config whose engine logs each call to $CALLS (one line per call), over the dataset file
// $DATASET, with `cache: true` when $CONFIG_CACHE is set.
import { appendFileSync } from "node:fs";
import { defineConfig } from "@fastrag/bench-cli";
import { ExactMatch } from "@fastrag/bench-metrics/generation";
import { Latency } from "@fastrag/bench-metrics/operational";

export default defineConfig({
  dataset: process.env.DATASET,
  metrics: [new ExactMatch(), new Latency()],
  ...(process.env.CONFIG_CACHE ? { cache: true } : {}),
  targets: {
    echo: {
      query: async (question, { sample }) => {
        appendFileSync(process.env.CALLS, `${sample.id}\n`);
        await new Promise((r) => setTimeout(r, 1));
        return { answer: Number(sample.id.slice(1)) % 3 === 0 ? `answer ${sample.id}` : question };
      },
    },
  },
});
