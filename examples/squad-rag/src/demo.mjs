// The fastrag bench demo: a realistic RAG benchmark in seconds, with no API key.
//  1. Retrieval: BM25 over three chunkings of SQuAD 2.0's paragraphs, scored at document level.
//  2. Answers: two real SQuAD 2.0 leaderboard models' predictions, replayed and scored with the
//     official SQuAD metrics (the numbers equal evaluate-v2.0.py's).
import { fileURLToPath } from "node:url";
import { Comparison } from "@fastrag/bench-compare";
import { Benchmark } from "@fastrag/bench-core";
import { Predictions, QADataset } from "@fastrag/bench-datasets";
import { AnswerContains, ExactMatch, TokenF1 } from "@fastrag/bench-metrics/generation";
import { Latency } from "@fastrag/bench-metrics/operational";
import { MRR, NDCG, Recall } from "@fastrag/bench-metrics/retrieval";
import { bm25Retriever } from "./bm25.mjs";
import { fixedChunks, loadParagraphs, paragraphChunks, sentenceWindowChunks } from "./corpus.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const DATA = here("../data/dev-v2.0.sample.json");
const RESULTS = here("../results/");

/** One line saying which run won a metric, and whether it beat every other run significantly. */
export function verdict(comparison, metric) {
  const winner = comparison.best(metric);
  const others = comparison.results.filter((r) => r !== winner);
  const tests = comparison.significance({
    baseline: winner.name,
    metrics: [metric],
    test: "randomization",
  });
  const beaten = tests.filter((t) => t.better === "baseline").map((t) => t.run);
  const mean = winner.summary[metric].mean.toFixed(4);
  if (beaten.length === others.length) {
    return `${winner.name} wins on ${metric} (${mean}), significantly better than ${beaten.join(" and ")} (randomization test, p < 0.05).`;
  }
  const tied = others.map((r) => r.name).filter((n) => !beaten.includes(n));
  return `${winner.name} has the best ${metric} (${mean}), but not significantly better than ${tied.join(" and ")} (randomization test, p ≥ 0.05).`;
}

export async function main({ log = console.log, saveReport = true } = {}) {
  const t0 = performance.now();
  const dataset = await QADataset.load(DATA);
  const paragraphs = await loadParagraphs(DATA);
  log(`# fastrag bench demo\n`);
  log(
    `SQuAD 2.0 dev sample: ${dataset.samples.length} questions over ${paragraphs.length} paragraphs.\n`,
  );

  // 1. Retrieval: which chunking should this RAG system use?
  const chunkings = {
    paragraphs: paragraphChunks(paragraphs),
    "two-sentence": sentenceWindowChunks(paragraphs),
    "fixed-300": fixedChunks(paragraphs, 300),
  };
  const retrieval = new Benchmark({
    dataset,
    metrics: [
      new Recall({ k: 1, level: "document" }),
      new Recall({ k: 5, level: "document" }),
      new NDCG({ k: 5, level: "document" }),
      new MRR({ level: "document" }),
      new Latency(),
    ],
    maxConcurrent: 8,
  });
  const retrievalResults = [];
  for (const [name, chunks] of Object.entries(chunkings)) {
    const result = await retrieval.run(bm25Retriever(chunks, { topK: 20 }), {
      name: `bm25/${name}`,
    });
    await result.save(`${RESULTS}retrieval/${name}.json`);
    retrievalResults.push(result);
  }
  const retrievalComparison = Comparison.of(retrievalResults);
  log(
    `## Retrieval: BM25 over three chunkings (document-level, ${Object.values(chunkings)
      .map((c) => c.length)
      .join(" / ")} chunks)\n`,
  );
  log(retrievalComparison.toMarkdown({ baseline: 0, test: "randomization" }));
  log(`\n→ ${verdict(retrievalComparison, "ndcg@5")}\n`);

  // 2. Answers: two real models' predictions, replayed.
  const answers = new Benchmark({
    dataset,
    metrics: [new ExactMatch(), new TokenF1(), new AnswerContains()],
  });
  const answerResults = [];
  for (const model of ["bidaf_selfattn_elmo", "nlnet"]) {
    const engine = await Predictions.load(here(`../data/predictions/${model}.json`));
    const result = await answers.run(engine, { name: model });
    await result.save(`${RESULTS}answers/${model}.json`);
    answerResults.push(result);
  }
  const answerComparison = Comparison.of(answerResults);
  log(`## Answers: SQuAD 2.0 leaderboard predictions (official metrics, scores in [0, 1])\n`);
  log(answerComparison.toMarkdown({ baseline: 0, test: "randomization" }));
  log(`\n→ ${verdict(answerComparison, "f1")}\n`);

  if (saveReport && typeof retrievalComparison.toHtml === "function") {
    const { writeFile, mkdir } = await import("node:fs/promises");
    await mkdir(RESULTS, { recursive: true });
    await writeFile(
      `${RESULTS}retrieval-report.html`,
      retrievalComparison.toHtml({ baseline: 0, diffMetric: "ndcg@5" }),
    );
    await writeFile(
      `${RESULTS}answers-report.html`,
      answerComparison.toHtml({ baseline: 0, diffMetric: "f1" }),
    );
    log(`HTML reports: ${RESULTS}retrieval-report.html, ${RESULTS}answers-report.html`);
  }
  log(`Results saved under ${RESULTS} in ${((performance.now() - t0) / 1000).toFixed(1)} s.`);
  return { retrievalResults, answerResults, retrievalComparison, answerComparison };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
