/**
 * The metric used the way its users would: next to the built-in metrics, in a real `Benchmark`
 * run against a query engine that cites its sources.
 */
import { Benchmark, type EvalSample, type RetrievedChunk } from "@fastrag/bench-core";
import { Recall } from "@fastrag/bench-metrics/retrieval";
import { describe, expect, it } from "vitest";
import { CitedChunkPrecision } from "./index.js";

const dataset: EvalSample[] = [
  {
    id: "q1",
    question: "When was the Eiffel Tower built?",
    expectedAnswers: ["1889"],
    relevantIds: ["eiffel-2"],
  },
  { id: "q2", question: "How tall is it?", expectedAnswers: ["330 m"], relevantIds: ["eiffel-3"] },
  {
    id: "q3",
    question: "Who designed it?",
    expectedAnswers: ["Gustave Eiffel"],
    relevantIds: ["eiffel-1"],
  },
];

// A toy engine: it retrieves two chunks and writes an answer that cites some of them, and in q2
// a chunk it never retrieved (a hallucinated source).
const engine = {
  async query(_question: string, { sample }: { sample: EvalSample }) {
    const table: Record<string, { answer: string; chunks: RetrievedChunk[] }> = {
      q1: { answer: "In 1889 [eiffel-2].", chunks: [{ id: "eiffel-2" }, { id: "eiffel-1" }] },
      q2: {
        answer: "About 330 m [eiffel-3], repainted in 2019 [paint-7].",
        chunks: [{ id: "eiffel-3" }, { id: "eiffel-4" }],
      },
      q3: { answer: "Gustave Eiffel's company.", chunks: [{ id: "eiffel-5" }, { id: "eiffel-1" }] },
    };
    const row = table[sample.id as string];
    if (row === undefined) throw new Error(`no answer for ${sample.id}`);
    return row;
  },
};

describe("an example benchmark with the custom metric", () => {
  it("scores every sample, with null where an answer cites nothing", async () => {
    const result = await new Benchmark({
      dataset,
      metrics: [new Recall({ k: 2 }), new CitedChunkPrecision()],
    }).run(engine, { name: "toy-engine" });

    expect(result.samples.map((s) => s.scores.cited_chunk_precision)).toEqual([1, 0.5, null]);
    expect(result.samples.map((s) => s.scores["recall@2"])).toEqual([1, 1, 1]);
    expect(result.summary.cited_chunk_precision?.count).toBe(2);
    expect(result.summary.cited_chunk_precision?.mean).toBe(0.75);
    expect(result.higherIsBetter.cited_chunk_precision).toBe(true);
    // q3's null means "does not apply" (nothing cited), not a failure: every sample is successful.
    expect(result.status).toEqual({ successful: 3, errored: 0, incomplete: 0 });
  });
});
