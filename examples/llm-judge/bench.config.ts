// A RAG pipeline judged by an LLM: `fastrag-bench run bench.config.ts`.
// With OPENAI_API_KEY set, gpt-4o-mini answers and judges; without it, an offline fixture server
// on 127.0.0.1 does (see README.md: its verdicts are fixed, not a model's).
import { aiJudge } from "@fastrag/bench-ai";
import { defineConfig } from "@fastrag/bench-cli";
import { QADataset } from "@fastrag/bench-datasets";
import { AnswerCorrectness, Faithfulness } from "@fastrag/bench-metrics/generation";
import { Cost, Latency, Tokens } from "@fastrag/bench-metrics/operational";
import { models } from "./src/models.js";
import { ragEngine } from "./src/rag.js";

const { generator, judge: judgeModel, pricing } = await models();
const judge = aiJudge(judgeModel, { pricing });

export default defineConfig({
  dataset: QADataset.load(new URL("./data/questions.json", import.meta.url).pathname),
  metrics: [
    new Faithfulness({ judge, timeoutMs: 60_000 }),
    new AnswerCorrectness({ judge, timeoutMs: 60_000 }),
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
  // When the CLI's response cache and shared rate limiter are released, two keys go here:
  //   cache: true,  (or `fastrag-bench run --cache`: replies reused on re-runs)
  //   rateLimit: { requestsPerMinute: 500, adaptive: true },
  // The judge then gets the run's limiter and reports its usage per sample (judge_usage).
});
