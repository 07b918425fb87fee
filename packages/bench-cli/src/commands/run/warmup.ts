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
import { type Benchmark, type ResponseCache, targetCacheKey } from "@fastrag/bench-core";

/** What the warm-up did: called (and how it went), or skipped and why. */
export type WarmupOutcome =
  | { readonly called: true; readonly error?: unknown }
  | { readonly called: false; readonly reason: "cached" | "no-sample" };

/**
 * Calls `target` once with the first sample the run would run (the shard's first), without
 * recording it: not in the result, not in the journal, not in the cache, not in progress counts.
 * Skipped when the response cache already answers that sample (a cached run makes no call to
 * warm up for) or there is no sample. The call gets the run's `signal` and, with `timeoutMs`, a
 * timeout of its own; an error is returned, not thrown (the run then says per sample what fails).
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
  try {
    const callOptions = { signal: controller.signal, sample };
    const call = Promise.resolve().then(() =>
      typeof t.query === "function"
        ? t.query(sample.question, callOptions)
        : t.retrieve?.(sample.question, callOptions),
    );
    await (timedOut === undefined ? call : Promise.race([call, timedOut]));
    return { called: true };
  } catch (error) {
    return { called: true, error };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", onAbort);
  }
}
