// A config whose retries lack retryOn.
import { MRR } from "@fastrag/bench-metrics/retrieval";

export default {
  dataset: [{ id: "q1", question: "q1", expectedAnswers: [], relevantIds: ["d1"] }],
  metrics: [new MRR()],
  targets: { only: { retrieve: async () => [{ id: "d1" }] } },
  retries: { attempts: 3 },
};
