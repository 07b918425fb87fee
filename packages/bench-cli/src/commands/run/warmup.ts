// `run --warmup` (config `warmup: true`): one untimed call per target before its samples run.
//
// Why it exists: targets run one after another, and the first one pays alone for what is cold in
// the process and in the services it calls (TCP and TLS connections, DNS, module loading and JIT,
// a model loaded on first use, a provider's cold cache). Its first samples then look slower than
// the same pipeline's later ones, and than the targets after it: which target ran first biases the
// latency comparison. One call per target before timing starts takes that cost out of the
// samples.
//
// Why it is off by default: that call is one more model call per target, paid for, on every run,
// and it cannot be recorded (its latency is what is being excluded). Runs that compare quality
// only, or whose targets are local and warm, gain nothing from it.
//
// Under a `rateLimit`, the warm-up is one more request (and its tokens) against the provider's
// budget, which the run's limiter, made when the samples start, does not see. So the warm-up
// waits until what it used of the budget has come back: a request's share of a minute, or its
// tokens' share when longer. The samples then start with the full budget the limiter assumes, and
// the run, warm-up included, keeps the limiter's pace.

import { setTimeout as delay } from "node:timers/promises";
import {
  type Benchmark,
  type RateLimitOptions,
  type ResponseCache,
  targetCacheKey,
  type Usage,
} from "@fastrag/bench-core";
import { usageTokens } from "@fastrag/bench-core/internal";

/** What the warm-up did: called (and how it went), or skipped and why. */
export type WarmupOutcome =
  | { readonly called: true; readonly error?: unknown }
  | { readonly called: false; readonly reason: "cached" | "no-sample" };

/**
 * How long a call of `tokens` (unknown: 0) sets back the budgets of `rateLimit`: the time the
 * run's token buckets take to win back what it took (1 request at `requestsPerMinute`, `tokens`
 * at `tokensPerMinute`), the longer of the two. 0 without a limit.
 */
export function warmupBudgetWaitMs(
  rateLimit: Pick<RateLimitOptions, "requestsPerMinute" | "tokensPerMinute"> | undefined,
  tokens: number | undefined,
): number {
  const rpm = rateLimit?.requestsPerMinute;
  const tpm = rateLimit?.tokensPerMinute;
  const requestWait = rpm === undefined ? 0 : 60_000 / rpm;
  const tokenWait = tpm === undefined || tokens === undefined ? 0 : (tokens * 60_000) / tpm;
  return Math.max(requestWait, tokenWait);
}

/**
 * Calls `target` once with the first sample the run would run (the shard's first), without
 * recording it: not in the result, not in the journal, not in the cache, not in progress counts.
 * Skipped when the response cache already answers that sample (a cached run makes no call to
 * warm up for) or there is no sample. The call gets the run's `signal` and, with `timeoutMs`, a
 * timeout of its own; an error is returned, not thrown (the run then says per sample what fails).
 * With `rateLimit`, it then waits what the call cost the budgets ({@link warmupBudgetWaitMs}; a
 * failed call counts as a request), ending that wait early when `signal` aborts.
 */
export async function warmUp(
  target: unknown,
  benchmark: Benchmark,
  options: {
    readonly name: string;
    readonly first: number;
    readonly signal: AbortSignal;
    readonly timeoutMs?: number | undefined;
    readonly cache?: { readonly store: ResponseCache; readonly refresh: boolean } | undefined;
    readonly rateLimit?: RateLimitOptions | undefined;
    /** Told how long the warm-up will wait for the rate limit, before it waits. */
    readonly onBudgetWait?: ((ms: number) => void) | undefined;
  },
): Promise<WarmupOutcome> {
  const sample = benchmark.samples[options.first];
  if (sample === undefined) return { called: false, reason: "no-sample" };
  const t = target as {
    readonly cacheKey?: string;
    query?: (q: string, o: object) => unknown;
    retrieve?: (q: string, o: object) => unknown;
  };
  if (options.cache !== undefined && !options.cache.refresh) {
    try {
      const key = targetCacheKey({ cacheKey: t.cacheKey, runName: options.name, sample });
      if ((await options.cache.store.get(key)) !== undefined)
        return { called: false, reason: "cached" };
    } catch {
      // A key that cannot be made, or a store that cannot be read: the run will say so per
      // sample; the warm-up goes ahead.
    }
  }
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal.reason);
  if (options.signal.aborted) controller.abort(options.signal.reason);
  else options.signal.addEventListener("abort", onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut =
    options.timeoutMs === undefined
      ? undefined
      : new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            const error = new Error(`warm-up call timed out after ${options.timeoutMs} ms`);
            controller.abort(error);
            reject(error);
          }, options.timeoutMs);
        });
  timedOut?.catch(() => {});
  let outcome: { error?: unknown; tokens?: number | undefined };
  try {
    const callOptions = { signal: controller.signal, sample };
    const call = Promise.resolve().then(() =>
      typeof t.query === "function"
        ? t.query(sample.question, callOptions)
        : t.retrieve?.(sample.question, callOptions),
    );
    const output = await (timedOut === undefined ? call : Promise.race([call, timedOut]));
    outcome = { tokens: usageTokens((output as { usage?: Usage } | null | undefined)?.usage) };
  } catch (error) {
    outcome = { error };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", onAbort);
  }
  const budgetWaitMs = options.signal.aborted
    ? 0
    : warmupBudgetWaitMs(options.rateLimit, outcome.tokens);
  if (budgetWaitMs > 0) {
    options.onBudgetWait?.(budgetWaitMs);
    // Ends early (rejecting, ignored here) when the run is stopped.
    await delay(budgetWaitMs, undefined, { signal: options.signal }).catch(() => {});
  }
  return "error" in outcome ? { called: true, error: outcome.error } : { called: true };
}
