// What a snippet without imports of its own (a fragment continuing the README's earlier example)
// has in scope: the package exports those READMEs introduce before or around it. A fragment is
// given an import of each of these names it mentions; a snippet that has imports must import
// everything it uses itself, as a user copying it would need.

export { Comparison } from "@fastrag/bench-compare";
export { Benchmark, BenchmarkResult } from "@fastrag/bench-core";
export { Predictions, QADataset, TrecRun } from "@fastrag/bench-datasets";
export {
  AnswerCorrectness,
  AnswerRelevancy,
  ContextPrecision,
  ContextRecall,
  FactualCorrectness,
  Faithfulness,
  type JudgeFunction,
  NoiseSensitivity,
} from "@fastrag/bench-metrics/generation";
export { NDCG } from "@fastrag/bench-metrics/retrieval";
