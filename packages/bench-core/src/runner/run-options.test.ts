import { describe, expect, it } from "vitest";
import { dataset, exact, perfectEngine } from "../__fixtures__/run-fixtures.js";
import { Benchmark } from "../benchmark.js";
import { ConfigurationError } from "../errors.js";

describe("Benchmark.run", () => {
  it("validates run options", async () => {
    const b = new Benchmark({ dataset: dataset(1), metrics: [exact] });
    await expect(b.run(perfectEngine, { name: "" })).rejects.toThrow(
      /name must be a non-empty string/,
    );
    await expect(b.run(perfectEngine, { name: "x", timeoutMs: -5 })).rejects.toThrow(/timeoutMs/);
    await expect(
      b.run(perfectEngine, { name: "x", retries: { attempts: 0, retryOn: () => true } }),
    ).rejects.toThrow(/retries.attempts/);
  });
});

describe("review fixes", () => {
  it("refuses null retries and shard options with a ConfigurationError", async () => {
    const b = new Benchmark({ dataset: dataset(1), metrics: [exact] });
    await expect(b.run(perfectEngine, { name: "x", retries: null as never })).rejects.toThrow(
      ConfigurationError,
    );
    await expect(b.run(perfectEngine, { name: "x", shard: null as never })).rejects.toThrow(
      ConfigurationError,
    );
  });
});
