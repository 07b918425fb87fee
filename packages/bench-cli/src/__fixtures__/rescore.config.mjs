// A query engine over a tiny dataset; the metric set and chunk text chosen by environment
// variables, and every target call appended to FASTRAG_TEST_CALLS (so tests count them).
import { appendFileSync } from "node:fs";
import { defineConfig } from "@fastrag/bench-cli";
import { ExactMatch, Faithfulness, TokenF1 } from "@fastrag/bench-metrics/generation";
import { Tokens } from "@fastrag/bench-metrics/operational";
import { NDCG, Recall } from "@fastrag/bench-metrics/retrieval";

const samples = Array.from({ length: 20 }, (_, i) => ({
  id: `q${i}`,
  question: `question ${i}`,
  expectedAnswers: [`answer ${i}`],
  relevantIds: [`doc-${i}`, `doc-${i + 1}`],
}));
const set = process.env.FASTRAG_TEST_METRICS ?? "first";
const metrics =
  set === "first"
    ? [new Recall({ k: 2 }), new ExactMatch()]
    : set === "second"
      ? [new Recall({ k: 2 }), new NDCG({ k: 3 }), new TokenF1(), new Tokens()]
      : [
          new Faithfulness({
            judge: (prompt) => `{"claims":[{"claim":"c","supported":${prompt.length % 2 === 0}}]}`,
          }),
        ];

export default defineConfig({
  dataset: samples,
  metrics,
  keepChunkText: process.env.FASTRAG_TEST_KEEP === "1",
  targets: {
    engine: {
      query: async (question, { sample }) => {
        if (process.env.FASTRAG_TEST_CALLS)
          appendFileSync(process.env.FASTRAG_TEST_CALLS, `${sample.id}\n`);
        const i = Number(sample.id.slice(1));
        return {
          answer: i % 3 === 0 ? `answer ${i}` : `answer ${i} perhaps`,
          chunks: [`doc-${i + 2}`, `doc-${i}`, `doc-${i + 1}`].map((id) => ({
            id,
            text: `${id}: ${question}`,
          })),
          usage: { totalTokens: 10 + i },
        };
      },
    },
  },
});
