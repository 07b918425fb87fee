import { describe, expect, it } from "vitest";
import { Benchmark } from "../benchmark.js";
import { MemoryCache, type ResponseCache } from "../cache.js";
import { cached } from "../cached.js";
import { ConfigurationError } from "../errors.js";
import { fakeDataset, fakeEngine, fakeRetriever } from "../testing.js";
import type { JudgeFunction, Metric, QueryEngine, Retriever } from "../types.js";
import { expectSpecificationVersion } from "./specification-version.js";

const one: Metric = {
  name: "one",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: false,
  score: () => 1,
};

async function thrown(f: () => unknown): Promise<ConfigurationError> {
  try {
    await f();
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a ConfigurationError");
}

describe("expectSpecificationVersion", () => {
  it("passes no version and v1, and refuses any other with its kind and field", async () => {
    const contract = { where: "x", contract: "things", kind: "invalid-option" as const };
    expect(() => expectSpecificationVersion(undefined, contract)).not.toThrow();
    expect(() => expectSpecificationVersion("v1", contract)).not.toThrow();
    const error = await thrown(() => expectSpecificationVersion(2, { ...contract, option: "o" }));
    expect(error.message).toBe(
      'x: specificationVersion is the number 2; this version of @fastrag/bench-core runs "v1" things (or unversioned ones): upgrade @fastrag/bench-core',
    );
    expect(error).toMatchObject({
      kind: "invalid-option",
      option: "o",
      field: "specificationVersion",
    });
  });
});

describe("the versioned contracts a run receives", () => {
  const benchmark = new Benchmark({ dataset: fakeDataset(2), metrics: [one] });

  it("runs v1 and unversioned targets alike", async () => {
    const v1: Retriever = { ...fakeRetriever(), specificationVersion: "v1" };
    const a = await benchmark.run(v1, { name: "a" });
    const b = await benchmark.run(fakeRetriever(), { name: "b" });
    expect(a.samples.map((s) => s.scores)).toEqual(b.samples.map((s) => s.scores));
  });

  it("refuses a target of a later contract before calling it", async () => {
    let calls = 0;
    const engine = {
      specificationVersion: "v2",
      async query() {
        calls++;
        return { answer: "a" };
      },
    } as unknown as QueryEngine;
    const error = await thrown(() => benchmark.run(engine, { name: "r" }));
    expect(error.message).toMatch(
      /^Benchmark\.run: the target: specificationVersion is the string "v2"/,
    );
    expect(error).toMatchObject({ kind: "unsupported-target", field: "specificationVersion" });
    expect(calls).toBe(0);
  });

  it("uses a v1 or unversioned cache, and refuses a later one up front", async () => {
    const v1 = new MemoryCache();
    expect(v1.specificationVersion).toBe("v1");
    const plain: ResponseCache = { get: () => undefined, set: () => {}, close: () => {} };
    await benchmark.run(fakeEngine(), { name: "v1", cache: v1 });
    await benchmark.run(fakeEngine(), { name: "plain", cache: plain });
    expect(v1.size).toBe(2);
    const later = { ...plain, specificationVersion: "v2" } as unknown as ResponseCache;
    const error = await thrown(() => benchmark.run(fakeEngine(), { name: "r", cache: later }));
    expect(error).toMatchObject({
      kind: "invalid-option",
      option: "cache",
      field: "specificationVersion",
    });
    const judge: JudgeFunction = async () => "{}";
    expect(() => cached(judge, { cache: later, key: "m" })).toThrow(
      /^cached: the cache: specificationVersion is the string "v2"/,
    );
    expect(() => cached(judge, { cache: plain, key: "m" })).not.toThrow();
  });
});
