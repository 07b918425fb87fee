import { Benchmark } from "@fastrag/bench-core";
import { MAP, MRR, NDCG, Recall, Precision } from "@fastrag/bench-metrics";
const N = 100000;
const samples = [];
for (let i = 0; i < N; i++) samples.push({ id: String(i), question: String(i), expectedAnswers: [], relevantIds: ["d1", "d3"], metadata: {} });
const chunks = Array.from({ length: 10 }, (_, i) => ({ id: "d" + i, text: "", score: 10 - i }));
const trivial = { name: "t", higherIsBetter: true, needsAnswer: false, needsRelevantIds: true, score: () => 0 };
for (const [label, metrics] of [["trivial", [trivial]], ["five", [new MAP(), new MRR(), new NDCG({k:10}), new Recall({k:10}), new Precision({k:10})]]]) {
  for (let rep = 0; rep < 2; rep++) {
    let t = performance.now();
    const b = new Benchmark({ dataset: samples, metrics, maxConcurrent: 64 });
    const t1 = performance.now();
    await b.run({ retrieve: () => chunks }, { name: "x" });
    console.log(label, "ctor", (t1 - t).toFixed(0), "run", (performance.now() - t1).toFixed(0));
  }
}
