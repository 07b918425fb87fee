// One sample from its first call to its record: attempts and retries, then scoring.

import { errorMessage } from "../error-message.js";
import type { EvalSample, Metadata } from "../types.js";
import { callPipelineLimited, callSignals } from "./call-target.js";
import { expectOutput, type PipelineOutput } from "./check-output.js";
import { isWaitsExceeded } from "./rate-limit-error.js";
import { backoffDelay, isRetryable, type RetryOptions, sleep } from "./retry.js";
import { CANCELLED, type Outcome, type SampleContext } from "./sample-context.js";
import { erroredRecord } from "./sample-record.js";
import { scoreSample } from "./score-sample.js";
import { lookUp, sampleCacheKey, store } from "./target-cache.js";

/**
 * One sample through the pipeline (with timeout, signal and retries) and the metrics. `question`
 * and `sampleId` are the sample's, read before its first call: every attempt asks that question,
 * and the record keeps both whatever the target does to the sample. `trial` (from 0; runs with
 * `trials`) is part of the cache key: each trial is its own call, stored and replayed on its own.
 */
export async function runSample<M extends Metadata>(
  ctx: SampleContext<M>,
  sample: EvalSample<M>,
  question: string,
  sampleId: string | undefined,
  trial?: number,
): Promise<Outcome> {
  const run = ctx.signal;
  if (run === undefined) return runSampleWith(ctx, sample, question, sampleId, trial);
  // One abort signal per sample, following the run's through a single listener per run (see
  // CallSignals): its attempts, retry waits, rate-limit waits and metrics all listen on it, so a
  // target or judge that leaves listeners behind leaves them on a signal dropped with the sample,
  // never piled up on the run's.
  const signals = callSignals(run);
  const own = signals.open();
  try {
    return await runSampleWith({ ...ctx, signal: own.signal }, sample, question, sampleId, trial);
  } finally {
    signals.close(own);
  }
}

async function runSampleWith<M extends Metadata>(
  ctx: SampleContext<M>,
  sample: EvalSample<M>,
  question: string,
  sampleId: string | undefined,
  trial: number | undefined,
): Promise<Outcome> {
  const tc = ctx.targetCache;
  let key: string | undefined;
  if (tc !== undefined) {
    // A stored output answers instead of the target. A store that cannot be read, or a sample
    // whose key cannot be made, errors the sample without calling: never a silent paid miss.
    let hit: Awaited<ReturnType<typeof lookUp>>;
    try {
      key = sampleCacheKey(tc, sample, question, trial);
      hit = await lookUp(tc, ctx.kind, key);
    } catch (error) {
      return erroredRecord(ctx, sample, question, sampleId, error, undefined);
    }
    if (hit !== undefined) {
      const outcome = await scoreSample(
        ctx,
        sample,
        question,
        sampleId,
        hit.output,
        hit.latencyMs,
        undefined,
      );
      return outcome === CANCELLED ? outcome : { ...outcome, cached: true };
    }
  }
  const maxAttempts = ctx.retries?.attempts ?? 1;
  let attempts = 0;
  let lastError: unknown;
  let output: PipelineOutput | undefined;
  let latencyMs = 0;
  while (attempts < maxAttempts) {
    attempts++;
    const attempt = await callPipelineLimited(ctx, sample, question);
    latencyMs = attempt.latencyMs;
    if (attempt.ok) {
      output = attempt.output;
      break;
    }
    lastError = attempt.error;
    // A sample cut short by the run's abort is not finished: leave it for a resume.
    if (ctx.signal?.aborted) return CANCELLED;
    // Past rateLimit.maxWaits the sample is errored: retrying would wait the same limit out again.
    if (
      attempts >= maxAttempts ||
      (ctx.limiter !== undefined && isWaitsExceeded(lastError)) ||
      !isRetryable(ctx.retries, lastError)
    ) {
      break;
    }
    const waited = await sleep(
      backoffDelay(ctx.retries as RetryOptions, attempts, lastError),
      ctx.signal,
    );
    if (!waited) return CANCELLED;
  }
  const tried = maxAttempts > 1 ? attempts : undefined;
  if (output === undefined) return erroredRecord(ctx, sample, question, sampleId, lastError, tried);
  if (tc === undefined || key === undefined) {
    return scoreSample(ctx, sample, question, sampleId, output, latencyMs, tried);
  }
  // Only a successful output is stored. A failed write keeps the paid output (it is scored) and
  // says why in the record's error.
  let storeError: string | undefined;
  try {
    await store(tc, ctx.kind, key, output, latencyMs);
  } catch (error) {
    storeError = `not cached: ${errorMessage(error)}`;
  }
  const outcome = await scoreSample(ctx, sample, question, sampleId, output, latencyMs, tried);
  if (storeError === undefined || outcome === CANCELLED) return outcome;
  return {
    ...outcome,
    error: outcome.error === null ? storeError : `${outcome.error}; ${storeError}`,
  };
}

/**
 * The rest of a sample after a direct call (see `SampleContext.direct`): what `attemptCall` and
 * `runSample` do after the target settles. `raw` is the target's output, or what it threw.
 */
export function settleDirect<M extends Metadata>(
  ctx: SampleContext<M>,
  sample: EvalSample<M>,
  question: string,
  sampleId: string | undefined,
  raw: unknown,
  failed: boolean,
  latencyMs: number,
): Outcome | Promise<Outcome> {
  if (failed) return erroredRecord(ctx, sample, question, sampleId, raw, undefined);
  let output: PipelineOutput;
  try {
    output = expectOutput(ctx.kind, raw);
  } catch (error) {
    return erroredRecord(ctx, sample, question, sampleId, error, undefined);
  }
  return scoreSample(ctx, sample, question, sampleId, output, latencyMs, undefined);
}
