// A config built by an async factory: the default export is a promise of the config.
import { MRR } from "@fastrag/bench-metrics/retrieval";

async function makeConfig() {
  return {
    dataset: [{ id: "q1", question: "q1", expectedAnswers: [], relevantIds: ["d1"] }],
    metrics: [new MRR()],
    targets: { only: { retrieve: async () => [{ id: "d1" }] } },
  };
}

export default makeConfig();
