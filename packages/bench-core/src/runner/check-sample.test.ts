import { describe, expect, it } from "vitest";
import { dataset, exact, hit } from "../__fixtures__/run-fixtures.js";
import { Benchmark } from "../benchmark.js";
import type { EvalSample } from "../types.js";

describe("new Benchmark", () => {
  it("accepts a dataset object with samples and rejects malformed samples", () => {
    expect(
      new Benchmark({ dataset: { samples: dataset(2) }, metrics: [hit] }).samples,
    ).toHaveLength(2);
    const bad = [{ question: 42, expectedAnswers: [], relevantIds: [] }] as unknown as EvalSample[];
    expect(() => new Benchmark({ dataset: bad, metrics: [exact] })).toThrow(
      /sample 0: question must be a string/,
    );
    const entry = [{ question: "q", expectedAnswers: ["a", 7], relevantIds: [] }];
    expect(
      () => new Benchmark({ dataset: entry as unknown as EvalSample[], metrics: [exact] }),
    ).toThrow(/sample 0: expectedAnswers\[1\] must be a string, found the number 7/);
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    const sparse = [{ question: "q", expectedAnswers: [], relevantIds: ["d1", , "d3"] }];
    expect(
      () => new Benchmark({ dataset: sparse as unknown as EvalSample[], metrics: [exact] }),
    ).toThrow(/sample 0: relevantIds\[1\] must be a string, found an empty slot/);
  });
});

describe("review fixes", () => {
  it("refuses non-string and duplicate ids, and malformed relevance, before running", () => {
    const base = dataset(3);
    const numeric = [{ ...base[0], id: 5 }, ...base.slice(1)] as unknown as EvalSample[];
    expect(() => new Benchmark({ dataset: numeric, metrics: [hit] })).toThrow(
      /sample 0: id must be a string, found the number 5/,
    );
    const dup = [base[0], { ...base[1], id: "q0" }] as EvalSample[];
    expect(() => new Benchmark({ dataset: dup, metrics: [hit] })).toThrow(
      /samples 0 and 1 share the id "q0"/,
    );
    const badRel = [{ ...base[0], relevance: null }] as unknown as EvalSample[];
    expect(() => new Benchmark({ dataset: badRel, metrics: [hit] })).toThrow(
      /relevance must be an object/,
    );
    const strGrade = [{ ...base[0], relevance: { "doc-0": "2" } }] as unknown as EvalSample[];
    expect(() => new Benchmark({ dataset: strGrade, metrics: [hit] })).toThrow(
      /relevance\["doc-0"\] must be a finite number/,
    );
  });
});
