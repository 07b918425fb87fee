// What the runner's tests share: a dataset of n samples, three plain metrics, an engine that
// answers every sample right, and a sleep.
import type { EvalSample, Metric, QueryEngine } from "../types.js";

/** Samples q0 … q(n-1), each with one expected answer and (unless not) one relevant id. */
export function dataset(n: number, withRelevant = true): EvalSample[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `q${i}`,
    question: `question ${i}`,
    expectedAnswers: [`answer ${i}`],
    relevantIds: withRelevant ? [`doc-${i}`] : [],
  }));
}

/** Hit if the sample's first relevant id is among the retrieved ids. */
export const hit: Metric = {
  name: "hit",
  higherIsBetter: true,
  needsRelevantIds: true,
  needsAnswer: false,
  score: ({ sample, retrieved }) =>
    sample.relevantIds.length === 0
      ? null
      : retrieved.some((c) => c.id === sample.relevantIds[0])
        ? 1
        : 0,
};

/** 1 when the answer is the sample's first expected answer, else 0. */
export const exact: Metric = {
  name: "exact",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: true,
  score: ({ sample, answer }) => (answer === sample.expectedAnswers[0] ? 1 : 0),
};

/** The recorded latency. */
export const latency: Metric = {
  name: "latency_ms",
  higherIsBetter: false,
  needsRelevantIds: false,
  needsAnswer: false,
  score: ({ latencyMs }) => latencyMs,
};

/** Answers every sample with its expected answer and its first relevant id as the one chunk. */
export const perfectEngine: QueryEngine = {
  async query(question, { sample }) {
    return {
      answer: sample.expectedAnswers[0] as string,
      chunks: [{ id: sample.relevantIds[0] ?? "x", uri: `u:${question}` }],
    };
  },
};

export const sleep = (ms: number): Promise<unknown> => new Promise((r) => setTimeout(r, ms));
