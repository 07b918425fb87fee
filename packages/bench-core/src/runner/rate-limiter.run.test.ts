// Rate limits end to end: a Benchmark run against a simulated provider (a real token bucket that
// answers 429 over its limit, with long-tailed latencies), on vitest's fake clock so the runs are
// deterministic and take simulated, not real, seconds.
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { logNormal, SimulatedProvider, seeded } from "../__fixtures__/simulated-provider.js";
import { Benchmark } from "../benchmark.js";
import { BenchmarkResult } from "../benchmark-result.js";
import { RunAbortedError } from "../run-errors.js";
import type { EvalSample, Metric, Progress, QueryEngine } from "../types.js";

const samples = (n: number): EvalSample[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `q${i}`,
    question: `question ${i}`,
    expectedAnswers: [`a${i}`],
    relevantIds: [],
  }));

const answered: Metric = {
  name: "answered",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: true,
  score: ({ answer }) => (answer === null ? null : 1),
};

function engineOf(provider: { call(): Promise<void> }): QueryEngine {
  return {
    async query(question) {
      await provider.call();
      return { answer: `answer to ${question}`, usage: { inputTokens: 40, outputTokens: 10 } };
    },
  };
}

/** Advances fake time until `promise` settles; its outcome (a rejection as the error). */
async function settle<T>(promise: Promise<T>, stepMs = 10): Promise<T> {
  let done = false;
  const mark = () => {
    done = true;
  };
  promise.then(mark, mark);
  for (let t = 0; !done && t < 3_600_000; t += stepMs) await vi.advanceTimersByTimeAsync(stepMs);
  return promise;
}

/**
 * Seconds after which every 3-second moving average of `perSecond` stays at ≥ 90 % of `limit`
 * (Infinity when it never does).
 */
function recoveredAfter(perSecond: readonly number[], limit: number): number {
  let from = Number.POSITIVE_INFINITY;
  for (let s = perSecond.length - 3; s >= 0; s--) {
    const mean = ((perSecond[s] ?? 0) + (perSecond[s + 1] ?? 0) + (perSecond[s + 2] ?? 0)) / 3;
    if (mean < 0.9 * limit) break;
    from = s;
  }
  return from;
}

const http429 = (retryAfterMs?: number) =>
  Object.assign(
    new Error("429 Too Many Requests"),
    retryAfterMs === undefined ? { status: 429 } : { status: 429, retryAfterMs },
  );

describe("rate limits in a run", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("adaptive from 64 against 100 req/s: nothing errored, ≥ 90 % of the provider's rate", async () => {
    const n = 1500;
    const provider = new SimulatedProvider({
      ratePerSecond: 100,
      burst: 10,
      latency: logNormal(seeded(1), 150, 0.8),
    });
    const progress: Progress[] = [];
    const benchmark = new Benchmark({
      dataset: samples(n),
      metrics: [answered],
      maxConcurrent: 64,
      rateLimit: { adaptive: true },
    });
    const t0 = performance.now();
    const result = await settle(
      benchmark.run(engineOf(provider), { name: "adaptive", onProgress: (p) => progress.push(p) }),
    );
    const seconds = (performance.now() - t0) / 1000;
    expect(result.status).toEqual({ successful: n, errored: 0, incomplete: 0 });
    // The ideal is n / 100 = 15 s; the run also pays its start and its last calls' latency.
    const share = n / 100 / seconds;
    expect(share).toBeGreaterThanOrEqual(0.9);
    expect(provider.served).toBe(n);
    const rl = result.rateLimit;
    expect(rl?.rateLimitedCalls).toBe(provider.refused);
    expect(rl?.rateLimitedCalls).toBeGreaterThan(0);
    expect(rl?.concurrencyMin).toBeLessThan(64);
    expect(rl?.concurrencyFinal).toBeLessThanOrEqual(64);
    // Progress carries the concurrency in force and the rate-limited calls so far.
    const last = progress.at(-1) as Progress;
    expect(last.rateLimited).toBe(rl?.rateLimitedCalls);
    expect(last.concurrency).toBe(rl?.concurrencyFinal);
    expect(Math.min(...progress.map((p) => p.concurrency as number))).toBe(rl?.concurrencyMin);
    // A rate-limited call used no retry attempt: no sample records more than one.
    expect(result.samples.every((s) => s.attempts === undefined)).toBe(true);
  });

  it("fixed 64 with retries (the old way) errors samples the adaptive run finishes", async () => {
    const provider = new SimulatedProvider({
      ratePerSecond: 100,
      burst: 10,
      latency: logNormal(seeded(1), 150, 0.8),
    });
    const benchmark = new Benchmark({
      dataset: samples(600),
      metrics: [answered],
      maxConcurrent: 64,
    });
    const result = await settle(
      benchmark.run(engineOf(provider), {
        name: "fixed",
        retries: {
          attempts: 3,
          backoffMs: 500,
          retryOn: (e) => (e as { status?: unknown }).status === 429,
        },
      }),
    );
    expect(result.status.errored).toBeGreaterThan(0);
    expect(result.rateLimit).toBeUndefined();
  });

  it("after the provider's limit halves, adaptive is back at ≥ 90 % of it within 10 s", async () => {
    const provider = new SimulatedProvider({
      ratePerSecond: 100,
      burst: 10,
      latency: logNormal(seeded(7), 150, 0.8),
    });
    const benchmark = new Benchmark({
      dataset: samples(1500),
      metrics: [answered],
      maxConcurrent: 64,
      rateLimit: { adaptive: true },
    });
    const t0 = performance.now();
    setTimeout(() => provider.setRate(50), 5000);
    const result = await settle(benchmark.run(engineOf(provider), { name: "halved" }));
    expect(result.status.errored).toBe(0);
    // The last admission: after it the run is only finishing its last calls.
    const end = ((provider.admitted.at(-1) as number) - t0) / 1000;
    // Calls admitted in each whole second after the halving, to the last admission.
    const perSecond: number[] = [];
    for (let s = 5; s + 1 <= Math.floor(end); s++) {
      perSecond.push(
        provider.admitted.filter((at) => at - t0 >= s * 1000 && at - t0 < (s + 1) * 1000).length,
      );
    }
    expect(perSecond.length).toBeGreaterThan(15);
    const recovered = recoveredAfter(perSecond, 50);
    expect(recovered).toBeLessThanOrEqual(10);
  });

  it("a rate-limited call is not a retry attempt; past maxWaits the sample errors with the reason", async () => {
    let calls = 0;
    const engine: QueryEngine = {
      async query(question) {
        calls++;
        // q0 is refused three times then served; q1 always.
        if (question === "question 1" || calls <= 3) throw http429(50);
        return { answer: "ok" };
      },
    };
    const benchmark = new Benchmark({
      dataset: samples(2),
      metrics: [answered],
      maxConcurrent: 1,
      rateLimit: { maxWaits: 4 },
    });
    const result = await settle(
      benchmark.run(engine, { name: "bounded", retries: { attempts: 2, retryOn: () => true } }),
    );
    const [q0, q1] = result.samples;
    expect(q0?.status).toBe("successful");
    expect(q0?.attempts).toBe(1);
    expect(q1?.status).toBe("errored");
    expect(q1?.error).toBe(
      "RateLimitWaitsExceededError: rate limited 5 times in a row (rateLimit.maxWaits is 4); last: 429 Too Many Requests",
    );
    // Not retried past the bound: q1 was called 5 times, once per wait plus the last.
    expect(calls).toBe(3 + 1 + 5);
    expect(q1?.attempts).toBe(1);
    expect(result.rateLimit?.rateLimitedCalls).toBe(3 + 5);
  });

  it("metrics get the run's limiter: a judge's 429 is waited out and counted", async () => {
    let judged = 0;
    const judge: Metric = {
      name: "judge",
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: true,
      score: async ({ limiter, signal }) => {
        if (limiter === undefined) throw new Error("no limiter");
        return limiter.run(
          async () => {
            judged++;
            if (judged === 1) throw http429(100);
            return 1;
          },
          { signal, estimatedTokens: 10 },
        );
      },
    };
    const benchmark = new Benchmark({
      dataset: samples(3),
      metrics: [judge],
      rateLimit: { requestsPerMinute: 6000 },
    });
    const engine: QueryEngine = { query: async () => ({ answer: "a" }) };
    const result = await settle(benchmark.run(engine, { name: "judged" }));
    expect(result.status.successful).toBe(3);
    expect(judged).toBe(4);
    expect(result.rateLimit?.rateLimitedCalls).toBe(1);
  });

  it("no rateLimit: metrics get no limiter and results have no rate_limit", async () => {
    let seen: unknown = "unset";
    const probe: Metric = {
      ...answered,
      score: ({ limiter }) => {
        seen = limiter;
        return 1;
      },
    };
    const benchmark = new Benchmark({ dataset: samples(1), metrics: [probe] });
    const result = await benchmark.run({ query: async () => ({ answer: "a" }) }, { name: "plain" });
    expect(seen).toBeUndefined();
    expect(result.rateLimit).toBeUndefined();
    expect("rate_limit" in result.toJSON()).toBe(false);
  });

  it("an abort while samples wait their turn stops the run; waiting samples are left for a resume", async () => {
    const controller = new AbortController();
    const engine: QueryEngine = { query: async () => ({ answer: "a" }) };
    const benchmark = new Benchmark({
      dataset: samples(10),
      metrics: [answered],
      rateLimit: { requestsPerMinute: 60 }, // one a second
    });
    const run = benchmark.run(engine, { name: "stopped", signal: controller.signal });
    setTimeout(() => controller.abort(new Error("stop")), 1500);
    const error: unknown = await settle(run).catch((e: unknown) => e);
    if (!RunAbortedError.isInstance(error)) throw new Error("expected a RunAbortedError");
    // One at once, one after 1 s; the rest were waiting.
    expect((error.partial as BenchmarkResult).samples).toHaveLength(2);
  });
});

describe("rateLimit in the result file", () => {
  it("round-trips as rate_limit and is checked on load", async () => {
    const benchmark = new Benchmark({
      dataset: samples(2),
      metrics: [answered],
      rateLimit: { adaptive: true },
      maxConcurrent: 3,
    });
    const result = await benchmark.run({ query: async () => ({ answer: "a" }) }, { name: "rl" });
    expect(result.rateLimit).toEqual({
      rateLimitedCalls: 0,
      concurrencyFinal: 3,
      concurrencyMin: 3,
    });
    const dir = await mkdtemp(join(tmpdir(), "rl-"));
    const path = join(dir, "rl.json");
    await result.save(path);
    const raw = JSON.parse(await readFile(path, "utf8"));
    expect(raw.rate_limit).toEqual({
      rate_limited_calls: 0,
      concurrency_final: 3,
      concurrency_min: 3,
    });
    expect((await BenchmarkResult.load(path)).rateLimit).toEqual(result.rateLimit);
    raw.rate_limit.concurrency_final = "3";
    await writeFile(path, JSON.stringify(raw));
    await expect(BenchmarkResult.load(path)).rejects.toThrow(/rate_limit\.concurrency_final/);
  });
});
