// One sample from its first call to its record: the direct call when nothing can abort or repeat
// it, else the cache, attempts and retries; then scoring.
import { errorMessage } from "../error-message.js";
import type { EvalSample, Metadata } from "../types.js";
import {
  type Attempt,
  callPipelineLimited,
  callSignals,
  callTarget,
  NEVER_ABORTED,
} from "./call-target.js";
import { expectOutput, type PipelineOutput } from "./check-output.js";
import { isWaitsExceeded } from "./rate-limit-error.js";
import { backoffDelay, isRetryable, type RetryOptions, sleep } from "./retry.js";
import { CANCELLED, type Outcome, type SampleContext } from "./sample-context.js";
import { erroredRecord } from "./sample-record.js";
import { scoreSample } from "./score-sample.js";
import { lookUp, sampleCacheKey, store, type TargetCache } from "./target-cache.js";

/**
 * Runs the sample at dataset position `i` once, in two steps for the worker pool (see `runPool`):
 * this start, whose promise the worker awaits, and {@link settleSample}. `trial` (from 0; runs
 * with `trials`) is part of the cache key: each trial is its own call, stored and replayed on its
 * own.
 *
 * On the direct path (see `SampleContext.direct`) nothing can abort, delay, repeat or replace the
 * call: the start is the target call itself, awaited in the worker's frame, without the general
 * path's nested async calls (docs/decisions/runner-worker-pool.md). Otherwise it is the whole of
 * {@link runSample}.
 */
export function startSample<M extends Metadata>(
  ctx: SampleContext<M>,
  i: number,
  trial: number | undefined,
): Promise<unknown> {
  return ctx.direct ? callTarget(ctx, i, NEVER_ABORTED) : runSample(ctx, i, trial);
}

/**
 * The sample's record once its {@link startSample} settled (`value`, or what it threw when
 * `failed`, after `ms`): on the direct path the target's output checked and scored, or its error
 * recorded; otherwise the outcome {@link runSample} gave.
 */
export function settleSample<M extends Metadata>(
  ctx: SampleContext<M>,
  i: number,
  value: unknown,
  failed: boolean,
  ms: number,
): Outcome | Promise<Outcome> {
  if (!ctx.direct) {
    if (failed) throw value;
    return value as Outcome;
  }
  if (failed) return erroredRecord(ctx, i, value, undefined);
  let output: PipelineOutput;
  try {
    output = expectOutput(ctx.kind, value);
  } catch (error) {
    return erroredRecord(ctx, i, error, undefined);
  }
  return scoreSample(ctx, i, output, ms, undefined);
}

/**
 * One sample through the pipeline (with timeout, signal, cache and retries) and the metrics.
 * With a run signal, the sample gets an abort signal of its own, following the run's through a
 * single listener per run (see CallSignals): its attempts, retry waits, rate-limit waits and
 * metrics all listen on it, so a target or judge that leaves listeners behind leaves them on a
 * signal dropped with the sample, never piled up on the run's.
 */
async function runSample<M extends Metadata>(
  ctx: SampleContext<M>,
  i: number,
  trial: number | undefined,
): Promise<Outcome> {
  const run = ctx.signal;
  if (run === undefined) return runSampleWith(ctx, i, trial);
  const signals = callSignals(run);
  const own = signals.open();
  try {
    return await runSampleWith({ ...ctx, signal: own.signal }, i, trial);
  } finally {
    signals.close(own);
  }
}

async function runSampleWith<M extends Metadata>(
  ctx: SampleContext<M>,
  i: number,
  trial: number | undefined,
): Promise<Outcome> {
  let key: string | undefined;
  if (ctx.targetCache !== undefined) {
    const cached = await fromCache(ctx, i, trial);
    if (typeof cached !== "string") return cached;
    key = cached;
  }
  const maxAttempts = ctx.retries?.attempts ?? 1;
  let attempts = 0;
  let last: Attempt;
  for (;;) {
    attempts++;
    last = await callPipelineLimited(ctx, i);
    if (last.ok) break;
    // A sample cut short by the run's abort is not finished: leave it for a resume.
    if (ctx.signal?.aborted) return CANCELLED;
    // Past rateLimit.maxWaits the sample is errored: retrying would wait the same limit out again.
    if (
      attempts >= maxAttempts ||
      (ctx.limiter !== undefined && isWaitsExceeded(last.error)) ||
      !isRetryable(ctx.retries, last.error)
    ) {
      break;
    }
    const waited = await sleep(
      backoffDelay(ctx.retries as RetryOptions, attempts, last.error),
      ctx.signal,
    );
    if (!waited) return CANCELLED;
  }
  const tried = maxAttempts > 1 ? attempts : undefined;
  if (!last.ok) return erroredRecord(ctx, i, last.error, tried);
  if (key === undefined) return scoreSample(ctx, i, last.output, last.latencyMs, tried);
  return storeAndScore(ctx, i, key, last, tried);
}

/**
 * The run's cache for the sample at `i`: the scored stored output on a hit (marked `cached`), or
 * the key to store a fresh one under. A store that cannot be read, or a sample whose key cannot
 * be made, errors the sample without calling: never a silent paid miss.
 */
async function fromCache<M extends Metadata>(
  ctx: SampleContext<M>,
  i: number,
  trial: number | undefined,
): Promise<Outcome | string> {
  const tc = ctx.targetCache as TargetCache;
  let key: string;
  let hit: Awaited<ReturnType<typeof lookUp>>;
  try {
    key = sampleCacheKey(tc, ctx.samples[i] as EvalSample<M>, ctx.questions[i] as string, trial);
    hit = await lookUp(tc, ctx.kind, key);
  } catch (error) {
    return erroredRecord(ctx, i, error, undefined);
  }
  if (hit === undefined) return key;
  const outcome = await scoreSample(ctx, i, hit.output, hit.latencyMs, undefined);
  return outcome === CANCELLED ? outcome : { ...outcome, cached: true };
}

/**
 * A fresh output stored, then scored. Only a successful output is stored; a failed write keeps
 * the paid output (it is scored) and says why in the record's error.
 */
async function storeAndScore<M extends Metadata>(
  ctx: SampleContext<M>,
  i: number,
  key: string,
  attempt: Attempt & { ok: true },
  tried: number | undefined,
): Promise<Outcome> {
  let storeError: string | undefined;
  try {
    await store(ctx.targetCache as TargetCache, ctx.kind, key, attempt.output, attempt.latencyMs);
  } catch (error) {
    storeError = `not cached: ${errorMessage(error)}`;
  }
  const outcome = await scoreSample(ctx, i, attempt.output, attempt.latencyMs, tried);
  if (storeError === undefined || outcome === CANCELLED) return outcome;
  return {
    ...outcome,
    error: outcome.error === null ? storeError : `${outcome.error}; ${storeError}`,
  };
}
