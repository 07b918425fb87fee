// A config whose engine answers 429 (with retryAfterMs) to each sample's first call, and a run
// with a rate limit, retries from the config, and adaptive concurrency.
import { Latency } from "@fastrag/bench-metrics/operational";

const refused = new Set();
export default {
  dataset: Array.from({ length: 20 }, (_, i) => ({
    id: `q${i}`,
    question: `q${i}`,
    expectedAnswers: [],
    relevantIds: [],
  })),
  metrics: [new Latency()],
  maxConcurrent: 8,
  retries: { attempts: 2, backoffMs: 1, retryOn: () => false },
  rateLimit: { maxWaits: 3 },
  targets: {
    limited: {
      async query(question) {
        if (!refused.has(question)) {
          refused.add(question);
          throw Object.assign(new Error("429"), { status: 429, retryAfterMs: 5 });
        }
        return { answer: "a" };
      },
    },
  },
};
