// A config whose trials is not a positive integer.
import { ExactMatch } from "@fastrag/bench-metrics/generation";

export default {
  dataset: [{ id: "q0", question: "q0", expectedAnswers: ["a"], relevantIds: [] }],
  metrics: [new ExactMatch()],
  trials: 2.5,
  targets: { t: { query: async () => ({ answer: "a" }) } },
};
