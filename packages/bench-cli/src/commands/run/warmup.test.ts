import { describe, expect, it } from "vitest";
import { warmupBudgetWaitMs } from "./warmup.js";

describe("warmupBudgetWaitMs", () => {
  it("is a request's share of a minute, or the call's tokens' share when longer", () => {
    expect(warmupBudgetWaitMs(undefined, 1_000)).toBe(0);
    expect(warmupBudgetWaitMs({}, 1_000)).toBe(0);
    expect(warmupBudgetWaitMs({ requestsPerMinute: 60 }, undefined)).toBe(1_000);
    expect(warmupBudgetWaitMs({ requestsPerMinute: 600 }, 50_000)).toBe(100);
    expect(warmupBudgetWaitMs({ tokensPerMinute: 30_000 }, 1_000)).toBe(2_000);
    // Unknown usage costs the token budget nothing (as the limiter's first calls).
    expect(warmupBudgetWaitMs({ tokensPerMinute: 30_000 }, undefined)).toBe(0);
    expect(warmupBudgetWaitMs({ requestsPerMinute: 60, tokensPerMinute: 30_000 }, 1_000)).toBe(
      2_000,
    );
    expect(warmupBudgetWaitMs({ requestsPerMinute: 20, tokensPerMinute: 30_000 }, 1_000)).toBe(
      3_000,
    );
  });
});
