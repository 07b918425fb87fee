// A config with trials: an engine whose answer alternates from call to call for even samples
// (their trials disagree) and is fixed for odd ones.
import { ExactMatch } from "@fastrag/bench-metrics/generation";

const calls = new Map();
export default {
  dataset: Array.from({ length: 10 }, (_, i) => ({
    id: `q${i}`,
    question: `question ${i}`,
    expectedAnswers: ["right"],
    relevantIds: [],
  })),
  metrics: [new ExactMatch()],
  maxConcurrent: 2,
  trials: 3,
  targets: {
    flaky: {
      async query(question) {
        const k = calls.get(question) ?? 0;
        calls.set(question, k + 1);
        const i = Number(question.split(" ")[1]);
        return { answer: i % 2 === 0 && k % 2 === 1 ? "wrong" : "right" };
      },
    },
  },
};
