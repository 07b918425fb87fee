import { describe, expect, it } from "vitest";
import { forEachConcurrently } from "./worker-pool.js";

describe("forEachConcurrently", () => {
  it("runs every index once, never more than the limit at once, starting in order", async () => {
    const started: number[] = [];
    let inFlight = 0;
    let peak = 0;
    await forEachConcurrently(20, 3, async (i) => {
      started.push(i);
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, (i * 7) % 5));
      inFlight--;
    });
    expect(started).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(peak).toBe(3);
  });

  it("takes no new index once stop says so", async () => {
    const seen: number[] = [];
    await forEachConcurrently(
      10,
      1,
      async (i) => {
        seen.push(i);
      },
      () => seen.length >= 4,
    );
    expect(seen).toEqual([0, 1, 2, 3]);
  });

  it("rejects with a task's error", async () => {
    await expect(
      forEachConcurrently(5, 2, async (i) => {
        if (i === 3) throw new Error("task 3");
      }),
    ).rejects.toThrow("task 3");
  });

  it("does nothing for no items", async () => {
    let calls = 0;
    await forEachConcurrently(0, 4, async () => {
      calls++;
    });
    expect(calls).toBe(0);
  });
});
