// A config whose async dataset loader forgot its `return`: the dataset is a promise of undefined.
import { MRR } from "@fastrag/bench-metrics/retrieval";

async function loadEval() {
  [{ id: "q1", question: "q1", expectedAnswers: [], relevantIds: ["d1"] }];
}

export default {
  dataset: loadEval(),
  metrics: [new MRR()],
  targets: { only: { retrieve: async () => [{ id: "d1" }] } },
};
