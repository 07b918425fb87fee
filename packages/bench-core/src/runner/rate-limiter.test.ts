import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AdaptiveConcurrency } from "./adaptive-concurrency.js";
import { isRateLimitError, RateLimitWaitsExceededError, retryAfterOf } from "./rate-limit-error.js";
import { RunLimiter, usageTokens } from "./rate-limiter.js";
import { TokenBucket } from "./token-bucket.js";

/** Advances fake time in small steps until `promise` settles; its value. */
async function settle<T>(promise: Promise<T>, stepMs = 5, maxMs = 600_000): Promise<T> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  for (let t = 0; !done && t < maxMs; t += stepMs) await vi.advanceTimersByTimeAsync(stepMs);
  return promise;
}

const http429 = (extra: object = {}) =>
  Object.assign(new Error("429 Too Many Requests"), { status: 429 }, extra);

describe("isRateLimitError", () => {
  it("knows 429 by status, statusCode, response.status, retryAfterMs and a wrapped cause", () => {
    expect(isRateLimitError({ status: 429 }, undefined)).toBe(true);
    expect(isRateLimitError({ statusCode: 429 }, undefined)).toBe(true);
    expect(isRateLimitError({ response: { status: 429 } }, undefined)).toBe(true);
    expect(isRateLimitError({ retryAfterMs: 0 }, undefined)).toBe(true);
    // The AI SDK's RetryError keeps the provider's APICallError as lastError.
    expect(isRateLimitError({ lastError: { statusCode: 429 } }, undefined)).toBe(true);
    expect(isRateLimitError(new Error("x", { cause: { status: 429 } }), undefined)).toBe(true);
  });

  it("is false for other statuses, plain errors and non-objects, unless isRateLimit says so", () => {
    expect(isRateLimitError({ status: 503 }, undefined)).toBe(false);
    expect(isRateLimitError(new Error("quota"), undefined)).toBe(false);
    expect(isRateLimitError("429", undefined)).toBe(false);
    expect(isRateLimitError(null, undefined)).toBe(false);
    const quota = (e: unknown) => e instanceof Error && e.message === "quota";
    expect(isRateLimitError(new Error("quota"), quota)).toBe(true);
    expect(isRateLimitError(new Error("other"), quota)).toBe(false);
    const broken = () => {
      throw new Error("bug");
    };
    expect(isRateLimitError(new Error("quota"), broken)).toBe(false);
  });

  it("survives a throwing getter", () => {
    const nasty = new Proxy(
      {},
      {
        get() {
          throw new Error("no");
        },
      },
    );
    expect(isRateLimitError(nasty, undefined)).toBe(false);
    expect(retryAfterOf(nasty)).toBeUndefined();
  });
});

describe("retryAfterOf", () => {
  const now = Date.parse("2026-12-05T13:00:00Z");

  it("reads retryAfterMs first", () => {
    expect(retryAfterOf({ retryAfterMs: 1234, headers: { "retry-after": "9" } }, now)).toBe(1234);
  });

  it("reads Retry-After in seconds from a plain record, any case (AI SDK responseHeaders)", () => {
    expect(retryAfterOf({ statusCode: 429, responseHeaders: { "retry-after": "3" } }, now)).toBe(
      3000,
    );
    expect(retryAfterOf({ headers: { "Retry-After": "0.5" } }, now)).toBe(500);
  });

  it("reads an HTTP date from a Headers object on error.response", () => {
    const headers = new Headers({ "retry-after": "Sat, 05 Dec 2026 13:00:10 GMT" });
    expect(retryAfterOf({ response: { status: 429, headers } }, now)).toBe(10_000);
    // A date in the past asks for no wait.
    const past = new Headers({ "retry-after": "Sat, 05 Dec 2026 12:59:00 GMT" });
    expect(retryAfterOf({ response: { headers: past } }, now)).toBe(0);
  });

  it("prefers retry-after-ms (OpenAI's) and looks through lastError", () => {
    const headers = { "retry-after-ms": "250", "retry-after": "1" };
    expect(retryAfterOf({ lastError: { statusCode: 429, responseHeaders: headers } }, now)).toBe(
      250,
    );
  });

  it("is undefined without a usable hint", () => {
    expect(retryAfterOf({ status: 429 }, now)).toBeUndefined();
    expect(retryAfterOf({ headers: { "retry-after": "soon" } }, now)).toBeUndefined();
    expect(retryAfterOf({ headers: { "retry-after": "-3" } }, now)).toBeUndefined();
    expect(retryAfterOf({ retryAfterMs: Number.NaN }, now)).toBeUndefined();
  });
});

describe("usageTokens", () => {
  it("counts totalTokens, else input + output", () => {
    expect(usageTokens({ totalTokens: 70, inputTokens: 1, outputTokens: 2 })).toBe(70);
    expect(usageTokens({ inputTokens: 50, outputTokens: 20 })).toBe(70);
    expect(usageTokens({ outputTokens: 20 })).toBe(20);
    expect(usageTokens({ cost: 1 })).toBeUndefined();
    expect(usageTokens(undefined)).toBeUndefined();
  });
});

describe("TokenBucket", () => {
  it("holds a second's worth and refills at the rate", () => {
    const bucket = new TokenBucket(600, 0); // 10 a second
    expect(bucket.capacity).toBe(10);
    expect(bucket.waitFor(1, 0)).toBe(0);
    bucket.take(10);
    expect(bucket.waitFor(1, 0)).toBeCloseTo(100, 6);
    expect(bucket.waitFor(1, 50)).toBeCloseTo(50, 6);
    expect(bucket.waitFor(1, 100)).toBe(0);
  });

  it("lets a call larger than the bucket start when full, leaving a debt", () => {
    const bucket = new TokenBucket(6000, 0); // 100 tokens a second, holds 100
    expect(bucket.waitFor(250, 0)).toBe(0);
    bucket.take(250); // level -150
    // Back to a full bucket (100) takes 250 tokens of refill: 2.5 s.
    expect(bucket.waitFor(250, 0)).toBeCloseTo(2500, 6);
  });
});

describe("AdaptiveConcurrency", () => {
  it("slow start: one more per success until a rate limit with something served", () => {
    const c = new AdaptiveConcurrency(64, 4);
    for (let i = 0; i < 3; i++) c.succeeded(c.epoch);
    expect(c.limit).toBe(7);
    // Nothing measured yet (served 0): halved, slow start goes on.
    expect(c.rateLimited(c.epoch, 0, 0, 0)).toBe(true);
    expect(c.limit).toBe(3);
    c.succeeded(c.epoch);
    expect(c.limit).toBe(4);
  });

  it("halves once per overload and round trip, not below what was served, adds one per window", () => {
    const c = new AdaptiveConcurrency(64);
    const burst = c.epoch;
    // 5 served (measured): halving wins.
    expect(c.rateLimited(burst, 5, 0, 100)).toBe(true);
    expect(c.limit).toBe(32);
    // The other calls of the same burst do not halve again, nor new ones within the round trip.
    for (let i = 0; i < 63; i++) c.rateLimited(burst, 5, 10, 100);
    expect(c.rateLimited(c.epoch, 5, 50, 100)).toBe(false);
    expect(c.limit).toBe(32);
    // Successes of calls started before the cut do not count toward the window.
    for (let i = 0; i < 40; i++) c.succeeded(burst);
    expect(c.limit).toBe(32);
    for (let i = 0; i < 31; i++) c.succeeded(c.epoch);
    expect(c.limit).toBe(32);
    c.succeeded(c.epoch);
    expect(c.limit).toBe(33);
    // 30.6 calls were in service on average: down to 30, not 16.
    expect(c.rateLimited(c.epoch, 30.6, 200, 100)).toBe(true);
    expect(c.limit).toBe(30);
    // Serving as many as the limit still takes one off.
    expect(c.rateLimited(c.epoch, 45, 400, 100)).toBe(true);
    expect(c.limit).toBe(29);
    for (let t = 600; t < 5000; t += 200) c.rateLimited(c.epoch, 0.5, t, 100);
    expect(c.limit).toBe(1);
    expect(c.lowest).toBe(1);
    const small = new AdaptiveConcurrency(2);
    for (let i = 0; i < 100; i++) small.succeeded(small.epoch);
    expect(small.limit).toBe(2);
  });
});

describe("RunLimiter", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("spreads requestsPerMinute: a second's burst, then one per 1/rate", async () => {
    const limiter = new RunLimiter({ requestsPerMinute: 600 }, 64);
    const t0 = performance.now();
    const starts: number[] = [];
    const calls = Array.from({ length: 30 }, () =>
      limiter.run(async () => {
        starts.push(performance.now() - t0);
      }),
    );
    await settle(Promise.all(calls), 1);
    // 10 at once, then 20 more at 10 a second: the last at 2.0 s.
    expect(starts.slice(0, 10)).toEqual(Array(10).fill(0));
    expect(starts[10]).toBeCloseTo(100, -1);
    expect(starts[29]).toBeGreaterThanOrEqual(2000);
    expect(starts[29]).toBeLessThanOrEqual(2030);
  });

  it("spends tokensPerMinute from reported usage, estimated from the last calls", async () => {
    // 6000 tokens a minute = 100 a second; every call reports 100 tokens.
    const limiter = new RunLimiter({ tokensPerMinute: 6000 }, 4);
    const t0 = performance.now();
    const starts: number[] = [];
    const one = () =>
      limiter.run(
        async () => {
          starts.push(performance.now() - t0);
          return { usage: { inputTokens: 80, outputTokens: 20 } };
        },
        { usage: (v) => v.usage },
      );
    await settle(
      (async () => {
        for (let i = 0; i < 4; i++) await one();
      })(),
      1,
    );
    // The first runs at once (nothing to estimate from) and leaves the bucket empty; each next
    // one is estimated at 100 tokens and waits for them: one a second.
    expect(starts[0]).toBe(0);
    for (let i = 1; i < 4; i++) {
      expect(starts[i]).toBeGreaterThanOrEqual(1000 * i);
      expect(starts[i]).toBeLessThanOrEqual(1000 * i + 10);
    }
  });

  it("a caller's estimatedTokens is taken before the call", async () => {
    const limiter = new RunLimiter({ tokensPerMinute: 6000 }, 4);
    const t0 = performance.now();
    const starts: number[] = [];
    const call = async () => {
      starts.push(performance.now() - t0);
    };
    // 100 + 50 estimated, nothing reported: the second waits for 50 tokens (0.5 s).
    await settle(
      Promise.all([
        limiter.run(call, { estimatedTokens: 100 }),
        limiter.run(call, { estimatedTokens: 50 }),
      ]),
      1,
    );
    expect(starts[0]).toBe(0);
    expect(starts[1]).toBeGreaterThanOrEqual(500);
    expect(starts[1]).toBeLessThanOrEqual(510);
  });

  it("waits out a rate limit for as long as retryAfterMs says, then runs the call again", async () => {
    const limiter = new RunLimiter({}, 4);
    const t0 = performance.now();
    const tries: number[] = [];
    const value = await settle(
      limiter.run(async () => {
        tries.push(performance.now() - t0);
        if (tries.length < 3) throw http429({ retryAfterMs: 700 });
        return "ok";
      }),
      1,
    );
    expect(value).toBe("ok");
    expect(tries).toHaveLength(3);
    expect(tries[1]).toBeGreaterThanOrEqual(700);
    expect(tries[2]).toBeGreaterThanOrEqual(1400);
    expect(limiter.stats().rateLimitedCalls).toBe(2);
  });

  it("a Retry-After pauses every call of the run, not only the refused one", async () => {
    const limiter = new RunLimiter({}, 4);
    const t0 = performance.now();
    let refused = false;
    const first = limiter.run(async () => {
      if (!refused) {
        refused = true;
        throw http429({ headers: { "retry-after": "2" } });
      }
    });
    await vi.advanceTimersByTimeAsync(1);
    let secondAt = -1;
    const second = limiter.run(async () => {
      secondAt = performance.now() - t0;
    });
    await settle(Promise.all([first, second]), 5);
    expect(secondAt).toBeGreaterThanOrEqual(2000);
  });

  it("passes other errors through at once, uncounted", async () => {
    const limiter = new RunLimiter({ adaptive: true }, 8);
    const boom = new Error("boom");
    await expect(
      limiter.run(async () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(limiter.stats()).toEqual({
      rateLimitedCalls: 0,
      concurrency: 8,
      lowestConcurrency: 8,
    });
  });

  it("past maxWaits, throws saying how often and why", async () => {
    const limiter = new RunLimiter({ maxWaits: 2 }, 4);
    let calls = 0;
    const run = limiter.run(async () => {
      calls++;
      throw http429({ retryAfterMs: 10 });
    });
    const outcome = settle(
      run.then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    const error = await outcome;
    expect(calls).toBe(3);
    expect(error).toBeInstanceOf(RateLimitWaitsExceededError);
    expect((error as Error).message).toBe(
      "rate limited 3 times in a row (rateLimit.maxWaits is 2); last: 429 Too Many Requests",
    );
  });

  it("adaptive: a rate limit halves the calls in flight", async () => {
    const limiter = new RunLimiter({ adaptive: true }, 8);
    let inFlight = 0;
    let most = 0;
    let refuse = true;
    const calls = Array.from({ length: 40 }, () =>
      limiter.run(async () => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, 10));
        inFlight--;
        if (refuse) {
          refuse = false;
          throw http429({ retryAfterMs: 0 });
        }
      }),
    );
    await settle(Promise.all(calls), 1);
    expect(most).toBe(8);
    expect(limiter.stats().lowestConcurrency).toBe(4);
    expect(limiter.stats().rateLimitedCalls).toBe(1);
  });

  it("a call waiting its turn rejects with the signal's reason on abort", async () => {
    const limiter = new RunLimiter({ requestsPerMinute: 60 }, 4);
    await limiter.run(async () => {});
    const controller = new AbortController();
    const waiting = limiter.run(async () => "ran", { signal: controller.signal });
    const reason = new Error("stop");
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
  });
});
