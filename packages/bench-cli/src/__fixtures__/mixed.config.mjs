// A QueryEngine, then a bare Retriever, with a metric that needs an answer: the second target is
// unusable, which must be reported before the first one runs.
import { defineConfig } from "@fastrag/bench-cli";
import { ExactMatch } from "@fastrag/bench-metrics/generation";

const samples = Array.from({ length: 6 }, (_, i) => ({
  id: `q${i}`,
  question: `question ${i}`,
  expectedAnswers: [`answer ${i}`],
  relevantIds: [],
}));

export default defineConfig({
  dataset: samples,
  metrics: [new ExactMatch()],
  targets: {
    eng: { query: async (q) => ({ answer: q.replace("question", "answer") }) },
    ret: { retrieve: async () => [] },
  },
});
