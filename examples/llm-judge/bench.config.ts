// A RAG pipeline judged by an LLM: `fastrag-bench run bench.config.ts`.
// With OPENAI_API_KEY set, gpt-4o-mini answers and judges (text-embedding-3-small embeds);
// without it, an offline fixture server on 127.0.0.1 does (see README.md: its replies follow
// fixed facts by one rule, they are not a model's).
import { aiEmbed, aiJudge } from "@fastrag/bench-ai";
import { defineConfig } from "@fastrag/bench-cli";
import { QADataset } from "@fastrag/bench-datasets";
import {
  AnswerCorrectness,
  AnswerRelevancy,
  ContextPrecision,
  ContextRecall,
  FactualCorrectness,
  Faithfulness,
  NoiseSensitivity,
} from "@fastrag/bench-metrics/generation";
import { Cost, Latency, Tokens } from "@fastrag/bench-metrics/operational";
import { models } from "./src/models.js";
import { ragEngine } from "./src/rag.js";

const { generator, judge: judgeModel, embedder, pricing, embeddingPricing } = await models();
// One judge and one embedder for every metric: a step two metrics ask alike is asked once.
const judge = aiJudge(judgeModel, { pricing });
const embed = aiEmbed(embedder, { pricing: embeddingPricing });
const timeoutMs = 60_000;

export default defineConfig({
  dataset: QADataset.load(new URL("./data/questions.json", import.meta.url).pathname),
  metrics: [
    new Faithfulness({ judge, timeoutMs }),
    new ContextPrecision({ judge, timeoutMs }),
    new ContextRecall({ judge, timeoutMs }),
    new AnswerRelevancy({ judge, embed, timeoutMs }),
    new AnswerCorrectness({ judge, embed, timeoutMs }),
    new FactualCorrectness({ judge, timeoutMs }),
    new NoiseSensitivity({ judge, timeoutMs }),
    new Latency(),
    new Tokens(),
    new Cost(),
  ],
  targets: {
    "top-3": ragEngine(generator, { k: 3, pricing }),
    "top-1": ragEngine(generator, { k: 1, pricing }),
  },
  outDir: "results",
  maxConcurrent: 2,
  // Replies kept in <outDir>/.cache/: the pipeline's, and every judge step's and embedding's, so
  // a re-run calls no model for what it has answered before.
  cache: true,
  // The retrieved passages' text kept in the results, so `fastrag-bench rescore` can judge them.
  keepChunkText: true,
  // One limiter for the pipeline and the judge; adaptive: it halves on a 429 and climbs back.
  rateLimit: { requestsPerMinute: 500, adaptive: true },
});
