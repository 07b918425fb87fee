// The same retrieval benchmark as a config for the CLI: `fastrag-bench run bench.config.ts`.
import { defineConfig } from "@fastrag/bench-cli";
import { QADataset } from "@fastrag/bench-datasets";
import { Latency } from "@fastrag/bench-metrics/operational";
import { MRR, NDCG, Recall } from "@fastrag/bench-metrics/retrieval";
import { bm25Retriever } from "./src/bm25.mjs";
import {
  fixedChunks,
  loadParagraphs,
  paragraphChunks,
  sentenceWindowChunks,
} from "./src/corpus.mjs";

const data = new URL("./data/dev-v2.0.sample.json", import.meta.url).pathname;
const paragraphs = await loadParagraphs(data);

export default defineConfig({
  dataset: QADataset.load(data),
  metrics: [
    new Recall({ k: 5, level: "document" }),
    new NDCG({ k: 5, level: "document" }),
    new MRR({ level: "document" }),
    new Latency(),
  ],
  targets: {
    paragraphs: bm25Retriever(paragraphChunks(paragraphs), { topK: 20 }),
    "two-sentence": bm25Retriever(sentenceWindowChunks(paragraphs), { topK: 20 }),
    "fixed-300": bm25Retriever(fixedChunks(paragraphs, 300), { topK: 20 }),
  },
  outDir: "results/cli",
  maxConcurrent: 8,
});
