import { describe, expect, it } from "vitest";
import { dataset, exact, hit } from "../__fixtures__/run-fixtures.js";
import { Benchmark } from "../benchmark.js";
import { ConfigurationError } from "../errors.js";
import type { EvalSample, Retriever } from "../types.js";

const samples: EvalSample[] = [
  { id: "small", question: "q0", expectedAnswers: [], relevantIds: ["d1"] },
  { id: "huge", question: "q1", expectedAnswers: [], relevantIds: ["d1"] },
];

describe("chunks per sample", () => {
  it("errors a sample that returns more than 10,000 chunks, and keeps one that returns 10,000", async () => {
    const sizes: Record<string, number> = { small: 10_000, huge: 1_000_000 };
    const retriever: Retriever = {
      retrieve: async (_q, { sample }) =>
        Array.from({ length: sizes[sample.id as string] as number }, (_, i) => ({ id: `d${i}` })),
    };
    const result = await new Benchmark({ dataset: samples, metrics: [hit] }).run(retriever, {
      name: "cap",
    });
    const [small, huge] = result.samples;
    expect(small?.status).toBe("successful");
    expect(small?.retrievedIds).toHaveLength(10_000);
    expect(huge?.status).toBe("errored");
    expect(huge?.retrievedIds).toEqual([]);
    expect(huge?.error).toBe(
      "MalformedOutputError: retrieve() result holds 1,000,000 chunks, more than the 10,000 a sample may return (each is kept in the result and the journal: a million would make one sample's record 150 MB); return the top k",
    );
  });
});

describe("the target", () => {
  it("refuses an unusable target before any sample runs", async () => {
    const b = new Benchmark({ dataset: dataset(2), metrics: [hit] });
    for (const bad of [null, {}, { query: "no" }, () => []]) {
      await expect(b.run(bad as unknown as Retriever, { name: "x" })).rejects.toThrow(
        ConfigurationError,
      );
    }
  });

  it("refuses a query or retrieve that is not a function, never taking it for the other kind", async () => {
    let calls = 0;
    const retrieve = async () => {
      calls++;
      return [];
    };
    const b = new Benchmark({ dataset: dataset(2), metrics: [hit] });
    for (const [target, message] of [
      [
        { query: 5, retrieve },
        "Benchmark.run: the target's query is the number 5; a QueryEngine's query must be a function, query(question, { signal, sample }) → Promise<{ answer, chunks? }> (a target with query is an engine even when it has retrieve(): remove query to use it as a Retriever)",
      ],
      [
        { query: "gpt-4o" },
        `Benchmark.run: the target's query is the string "gpt-4o"; a QueryEngine's query must be a function, query(question, { signal, sample }) → Promise<{ answer, chunks? }>`,
      ],
      [
        { retrieve: "bm25" },
        `Benchmark.run: the target's retrieve is the string "bm25"; a Retriever's retrieve must be a function, retrieve(query, { signal, sample }) → Promise<RetrievedChunk[]>`,
      ],
    ] as const) {
      const error = await b.run(target as unknown as Retriever, { name: "x" }).catch((e) => e);
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toBe(message);
    }
    expect(calls).toBe(0);
    // A query left undefined (an optional property unset) is absent: a Retriever.
    const result = await b.run({ query: undefined, retrieve } as unknown as Retriever, {
      name: "r",
    });
    expect(calls).toBe(2);
    expect(result.status).toEqual({ successful: 2, errored: 0, incomplete: 0 });
    // So is a query set to null (a class field left unset): it used to run as a Retriever.
    const nulled = await b.run({ query: null, retrieve } as unknown as Retriever, { name: "n" });
    expect(calls).toBe(4);
    expect(nulled.status).toEqual({ successful: 2, errored: 0, incomplete: 0 });
  });

  it("refuses a bare Retriever when a metric needs an answer, before calling it", async () => {
    let calls = 0;
    const retriever: Retriever = {
      async retrieve() {
        calls++;
        return [];
      },
    };
    const b = new Benchmark({ dataset: dataset(2), metrics: [hit, exact] });
    await expect(b.run(retriever, { name: "r" })).rejects.toThrow(
      /Retriever.*, and exact needs an answer\. Pass a QueryEngine or drop that metric$/,
    );
    const exact2 = { ...exact, name: "exact2" };
    const two = new Benchmark({ dataset: dataset(2), metrics: [exact, hit, exact2] });
    await expect(two.run(retriever, { name: "r" })).rejects.toThrow(
      /, and exact, exact2 need an answer\. Pass a QueryEngine or drop those metrics$/,
    );
    expect(calls).toBe(0);
  });
});
