// A config whose rateLimit has a field Benchmark refuses (a rate of 0 requests per minute).
import { MRR } from "@fastrag/bench-metrics/retrieval";

export default {
  dataset: [{ id: "q1", question: "q1", expectedAnswers: [], relevantIds: ["d1"] }],
  metrics: [new MRR()],
  targets: { only: { retrieve: async () => [{ id: "d1" }] } },
  rateLimit: { requestsPerMinute: 0 },
};
