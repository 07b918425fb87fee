import { describe, expect, it } from "vitest";
import { dataset, exact, perfectEngine, sleep } from "../__fixtures__/run-fixtures.js";
import { Benchmark } from "../benchmark.js";
import type { QueryEngine } from "../types.js";

describe("Benchmark.run", () => {
  it("reports errored counts in progress and survives a throwing onProgress", async () => {
    const last: { errored: number }[] = [];
    const engine: QueryEngine = {
      async query(q, o) {
        if (q.endsWith("1")) throw new Error("x");
        return perfectEngine.query(q, o);
      },
    };
    const result = await new Benchmark({
      dataset: dataset(3),
      metrics: [exact],
      maxConcurrent: 1,
    }).run(engine, {
      name: "p",
      onProgress: (p) => {
        last.push({ errored: p.errored });
        throw new Error("progress bar crashed");
      },
    });
    expect(last.map((p) => p.errored)).toEqual([0, 1, 1]);
    expect(result.status.successful).toBe(2);
  });

  it("ignores an async onProgress that rejects (no unhandled rejection)", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      let calls = 0;
      const result = await new Benchmark({
        dataset: dataset(4),
        metrics: [exact],
        maxConcurrent: 2,
      }).run(perfectEngine, {
        name: "p",
        onProgress: async () => {
          calls++;
          throw new Error("webhook down");
        },
      });
      // Unhandled rejections are reported after a macrotask turn.
      await sleep(20);
      expect(calls).toBe(4);
      expect(result.status.successful).toBe(4);
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
