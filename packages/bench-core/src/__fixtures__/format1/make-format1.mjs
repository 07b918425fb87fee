// Writes the format-1 fixtures with the build of `main` at 0fbd671 (before result format 2).
// Kept for the record; re-running it with a newer build would write format 2.
// Run from the repo root: node packages/bench-core/src/__fixtures__/format1/make-format1.mjs
import { Benchmark } from "../../../dist/index.js";
import { ExactMatch, TokenF1 } from "../../../../bench-metrics/dist/generation.js";
import { Recall, NDCG } from "../../../../bench-metrics/dist/retrieval.js";

const here = new URL(".", import.meta.url);
const samples = [
  { id: "q1", question: "Who wrote Hamlet?", expectedAnswers: ["William Shakespeare", "Shakespeare"], relevantIds: ["d1#0"], metadata: { topic: "lit" } },
  { id: "q2", question: "Capital of France?", expectedAnswers: ["Paris"], relevantIds: ["d2#0", "d2#1"], relevance: { "d2#0": 2, "d2#1": 1 }, metadata: { topic: "geo" } },
  { id: "q3", question: "Boiling point of water in C?", expectedAnswers: ["100"], relevantIds: ["d3#0"], metadata: { topic: "sci" } },
  { id: "q4", question: "Largest planet?", expectedAnswers: ["Jupiter"], relevantIds: [], metadata: { topic: "sci" } },
];
const dataset = { samples };
const chunks = {
  q1: [{ id: "d1#0", documentId: "d1", uri: "https://ex.org/d1", text: "Hamlet is by Shakespeare.", score: 0.9 }, { id: "d9#0", documentId: "d9", score: 0.1 }],
  q2: [{ id: "d2#1", documentId: "d2", uri: "https://ex.org/d2", score: 0.8 }, { id: "d2#0", documentId: "d2", uri: "https://ex.org/d2", score: 0.7 }],
  q3: [],
  q4: [{ id: "d4#0", documentId: "d4", uri: "https://ex.org/d4", score: 0.5 }],
};
const answers = { q1: "Shakespeare", q2: "Paris, France", q4: "Jupiter" };
const engine = {
  async query(question, { sample }) {
    if (sample.id === "q3") throw new Error("upstream 500: boom");
    return { answer: answers[sample.id], chunks: chunks[sample.id], usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12, cost: 0.001 } };
  },
};
const retriever = { async retrieve(question, { sample }) { return chunks[sample.id]; } };
const b = new Benchmark({ dataset, metrics: [new Recall({ k: 2 }), new NDCG({ k: 2 }), new ExactMatch(), new TokenF1()], maxConcurrent: 1 });
const r1 = await b.run(engine, { name: "engine-f1" });
await r1.save(new URL("engine.json", here).pathname);
const b2 = new Benchmark({ dataset, metrics: [new Recall({ k: 2 }), new NDCG({ k: 2 })], maxConcurrent: 1 });
const r2 = await b2.run(retriever, { name: "retriever-f1" });
await r2.save(new URL("retriever.json", here).pathname);
const s0 = await b2.run(retriever, { name: "retriever-f1", shard: { index: 0, count: 2 } });
await s0.save(new URL("retriever.shard0.json", here).pathname);
const s1 = await b2.run(retriever, { name: "retriever-f1", shard: { index: 1, count: 2 } });
await s1.save(new URL("retriever.shard1.json", here).pathname);
