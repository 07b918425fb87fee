import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dataset, exact, hit, latency, perfectEngine } from "./__fixtures__/run-fixtures.js";
import { Benchmark } from "./benchmark.js";
import { MemoryCache } from "./cache.js";
import { ConfigurationError } from "./errors.js";
import type { Retriever } from "./types.js";

describe("new Benchmark", () => {
  it("rejects an empty metric list, a bad maxConcurrent and an empty dataset", () => {
    expect(() => new Benchmark({ dataset: dataset(2), metrics: [] })).toThrow(ConfigurationError);
    for (const bad of [0, -1, 1.5, Number.NaN, "4" as unknown as number]) {
      expect(
        () => new Benchmark({ dataset: dataset(2), metrics: [hit], maxConcurrent: bad }),
      ).toThrow(/maxConcurrent must be a positive integer/);
    }
    // The string "4" is named as a string: "found 4" would read as the number it is not.
    expect(
      () =>
        new Benchmark({
          dataset: dataset(2),
          metrics: [hit],
          maxConcurrent: "4" as unknown as number,
        }),
    ).toThrow(/maxConcurrent must be a positive integer, found the string "4"$/);
    expect(() => new Benchmark({ dataset: [], metrics: [hit] })).toThrow(/no samples/);
  });
});

describe("Benchmark.run", () => {
  it("scores every sample and records ids, uris and latency", async () => {
    const result = await new Benchmark({ dataset: dataset(5), metrics: [hit, exact, latency] }).run(
      perfectEngine,
      { name: "perfect" },
    );
    expect(result.name).toBe("perfect");
    expect(result.status).toEqual({ successful: 5, errored: 0, incomplete: 0 });
    expect(result.summary.hit?.mean).toBe(1);
    expect(result.summary.exact?.mean).toBe(1);
    expect(result.higherIsBetter).toEqual({ hit: true, exact: true, latency_ms: false });
    const first = result.samples[0];
    expect(first).toMatchObject({
      sampleId: "q0",
      question: "question 0",
      status: "successful",
      answer: "answer 0",
      retrievedIds: ["doc-0"],
      retrievedUris: ["u:question 0"],
      error: null,
    });
    expect(first?.latencyMs).toBeGreaterThanOrEqual(0);
    expect(first?.scores.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it("runs a deterministic round-robin shard", async () => {
    const b = new Benchmark({ dataset: dataset(10), metrics: [exact] });
    const r = await b.run(perfectEngine, { name: "s", shard: { index: 1, count: 3 } });
    expect(r.samples.map((s) => s.sampleId)).toEqual(["q1", "q4", "q7"]);
    expect(r.shard).toEqual({
      index: 1,
      count: 3,
      samplesFingerprint: expect.stringMatching(/^sha256:[0-9a-f]{32}$/),
    });
    await expect(
      b.run(perfectEngine, { name: "s", shard: { index: 3, count: 3 } }),
    ).rejects.toThrow(/0 ≤ index < count/);
  });
});

describe("a run refused before its first sample", () => {
  /** File descriptors of this process open on `path` (Linux: /proc/self/fd). */
  function openDescriptors(path: string): number {
    let n = 0;
    for (const fd of readdirSync("/proc/self/fd")) {
      try {
        if (readlinkSync(`/proc/self/fd/${fd}`) === path) n++;
      } catch {
        // closed between the listing and the read
      }
    }
    return n;
  }

  it("leaves no journal, open or on disk, for a target whose cacheKey is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bench-cachekey-"));
    const checkpoint = join(dir, "run.jsonl");
    try {
      let calls = 0;
      const target = {
        cacheKey: 42,
        async retrieve() {
          calls++;
          return [];
        },
      } as unknown as Retriever;
      const b = new Benchmark({ dataset: dataset(3), metrics: [hit] });
      const run = () => b.run(target, { name: "r", checkpoint, cache: new MemoryCache() });
      const error = await run().catch((e: unknown) => e);
      expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
      expect((error as ConfigurationError).message).toMatch(/cacheKey must be a non-empty string/);
      expect(calls).toBe(0);
      expect(openDescriptors(checkpoint)).toBe(0);
      expect(existsSync(checkpoint)).toBe(false);
      // Refused again the same way: the journal was not left claimed either.
      await expect(run()).rejects.toThrow(/cacheKey must be a non-empty string/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
