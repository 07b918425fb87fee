// One sample from its first call to its record: attempts and retries, then scoring.
import type { EvalSample, Metadata } from "../types.js";
import { callPipelineLimited } from "./call-target.js";
import { type PipelineOutput, validateOutput } from "./check-output.js";
import { isWaitsExceeded } from "./rate-limiter.js";
import { backoffDelay, isRetryable, type RetryOptions, sleep } from "./retry.js";
import { CANCELLED, type Outcome, type SampleContext } from "./sample-context.js";
import { erroredRecord } from "./sample-record.js";
import { scoreSample } from "./score-sample.js";

/**
 * One sample through the pipeline (with timeout, signal and retries) and the metrics. `question`
 * and `sampleId` are the sample's, read before its first call: every attempt asks that question,
 * and the record keeps both whatever the target does to the sample.
 */
export async function runSample<M extends Metadata>(
  ctx: SampleContext<M>,
  sample: EvalSample<M>,
  question: string,
  sampleId: string | undefined,
): Promise<Outcome> {
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
  if (output === undefined) return erroredRecord(ctx, question, sampleId, lastError, tried);
  return scoreSample(ctx, sample, question, sampleId, output, latencyMs, tried);
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
  if (failed) return erroredRecord(ctx, question, sampleId, raw, undefined);
  let output: PipelineOutput;
  try {
    output = validateOutput(ctx.kind, raw);
  } catch (error) {
    return erroredRecord(ctx, question, sampleId, error, undefined);
  }
  return scoreSample(ctx, sample, question, sampleId, output, latencyMs, undefined);
}
