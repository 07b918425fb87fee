import { describe, expect, it } from "vitest";
import { dataset, exact, hit } from "../__fixtures__/run-fixtures.js";
import { Benchmark } from "../benchmark.js";
import { ConfigurationError } from "../errors.js";
import { fakeDataset, fakeEngine } from "../testing.js";
import type { EvalSample, Metric } from "../types.js";

describe("new Benchmark", () => {
  it("rejects duplicate metric names", () => {
    expect(() => new Benchmark({ dataset: dataset(2), metrics: [hit, { ...hit }] })).toThrow(
      /two metrics are named "hit"/,
    );
  });

  it("rejects a metric without a boolean direction, which its saved result would need", () => {
    for (const [bad, found] of [
      [undefined, "undefined"],
      ["false", 'the string "false"'],
      [0, "the number 0"],
      [null, "null"],
    ]) {
      const metric = { ...hit, higherIsBetter: bad } as unknown as Metric;
      expect(() => new Benchmark({ dataset: dataset(2), metrics: [metric] }), String(bad)).toThrow(
        `metric "hit": higherIsBetter must be true or false (the direction is saved with every result), found ${found}`,
      );
    }
  });

  it("rejects metrics the dataset cannot satisfy", () => {
    expect(() => new Benchmark({ dataset: dataset(3, false), metrics: [hit] })).toThrow(
      /needs relevant ids and no sample has any/,
    );
    // One generation metric makes the dataset scorable.
    expect(
      () => new Benchmark({ dataset: dataset(3, false), metrics: [hit, exact] }),
    ).not.toThrow();
    // A positive grade judges a sample too: a graded metric (nDCG) scores it even when a
    // threshold (trec_eval -l) left its relevant ids empty. Grades of 0 or less judge nothing.
    const graded = (grade: number): EvalSample[] =>
      dataset(2, false).map((s, i) => ({ ...s, relevance: { [`doc-${i}`]: i === 1 ? grade : 0 } }));
    expect(() => new Benchmark({ dataset: graded(2), metrics: [hit] })).not.toThrow();
    expect(() => new Benchmark({ dataset: graded(-1), metrics: [hit] })).toThrow(
      /needs relevant ids and no sample has any \(nor a positive grade in `relevance`\)/,
    );
  });
});

const constant: Metric = {
  name: "one",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: false,
  score: () => 1,
};

async function thrown(run: () => unknown): Promise<ConfigurationError> {
  try {
    await run();
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a ConfigurationError");
}

describe("Metric.specificationVersion", () => {
  it("runs an unversioned or v1 metric, and refuses a later version up front", async () => {
    const v1: Metric = { ...constant, name: "v1", specificationVersion: "v1" };
    const result = await new Benchmark({ dataset: fakeDataset(1), metrics: [constant, v1] }).run(
      fakeEngine(),
      { name: "r" },
    );
    expect(result.samples[0]?.scores).toEqual({ one: 1, v1: 1 });
    const later = { ...constant, name: "later", specificationVersion: "v2" } as unknown as Metric;
    const error = await thrown(() => new Benchmark({ dataset: fakeDataset(1), metrics: [later] }));
    expect(error.message).toBe(
      'Benchmark: metric "later": specificationVersion is the string "v2"; this version of @fastrag/bench-core runs "v1" metrics (or unversioned ones): upgrade @fastrag/bench-core',
    );
    expect(error.field).toBe("specificationVersion");
  });
});
