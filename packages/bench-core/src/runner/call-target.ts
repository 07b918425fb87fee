// Calling a target: the call itself, its timeout, and the run's abort reaching it.
import type { EvalSample, Metadata, QueryEngine, Retriever } from "../types.js";
import { type PipelineOutput, validateOutput } from "./check-output.js";
import type { SampleContext } from "./sample-context.js";

/** A failed attempt thrown through the run's limiter, which reads its error for a rate limit. */
class FailedAttempt {
  constructor(readonly attempt: Attempt & { ok: false }) {}
}

const unwrapAttempt = (e: unknown): unknown => (e instanceof FailedAttempt ? e.attempt.error : e);
const attemptUsage = (a: Attempt) => (a.ok ? a.output.usage : undefined);

/**
 * One attempt at the target: through the run's limiter when it has one (which waits for the
 * budgets and runs a rate-limited call again, not counting it as an attempt), else directly.
 * Time spent waiting in the limiter counts neither toward `timeoutMs` nor the latency.
 */
export async function callPipelineLimited<M extends Metadata>(
  ctx: SampleContext<M>,
  sample: EvalSample<M>,
  question: string,
): Promise<Attempt> {
  const limiter = ctx.limiter;
  if (limiter === undefined) return callPipeline(ctx, sample, question);
  try {
    return await limiter.run(
      async () => {
        const attempt = await callPipeline(ctx, sample, question);
        if (!attempt.ok) throw new FailedAttempt(attempt);
        return attempt;
      },
      { signal: ctx.signal, usage: attemptUsage, unwrap: unwrapAttempt },
    );
  } catch (error) {
    if (error instanceof FailedAttempt) return error.attempt;
    // Past rateLimit.maxWaits, or the run's abort while waiting for a turn.
    return { ok: false, error, latencyMs: 0 };
  }
}

export class TimeoutError extends Error {
  constructor(ms: number) {
    super(`timed out after ${ms} ms`);
    this.name = "TimeoutError";
  }
}

export type Attempt =
  | { ok: true; output: PipelineOutput; latencyMs: number }
  | { ok: false; error: unknown; latencyMs: number };

/** Handed to targets when nothing can abort a call: one signal for the whole process. */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

export async function callPipeline<M extends Metadata>(
  ctx: SampleContext<M>,
  sample: EvalSample<M>,
  question: string,
): Promise<Attempt> {
  const external = ctx.signal;
  // A per-sample controller only when a timeout needs one: creating AbortControllers dominates
  // the cost of an instant target otherwise.
  // The run's abort reaches the target through its signal, but the call is not raced against it:
  // an in-flight sample settles, and one that still succeeds is kept (a paid call is not thrown
  // away). Only a timeout cuts a call short, since a target may ignore its signal and hang.
  if (ctx.timeoutMs === undefined)
    return attemptCall(ctx, sample, question, external ?? NEVER_ABORTED, undefined);
  const controller = new AbortController();
  const onExternal = () => controller.abort(external?.reason);
  if (external) {
    if (external.aborted) controller.abort(external.reason);
    else external.addEventListener("abort", onExternal, { once: true });
  }
  const ms = ctx.timeoutMs;
  const timeout = new AbortController();
  const timer = setTimeout(() => {
    const error = new TimeoutError(ms);
    timeout.abort(error);
    controller.abort(error);
  }, ms);
  try {
    const aborted = abortPromise(timeout.signal);
    return await attemptCall(ctx, sample, question, controller.signal, aborted);
  } finally {
    clearTimeout(timer);
    external?.removeEventListener("abort", onExternal);
  }
}

/**
 * A promise that rejects when `signal` aborts. Racing the target against a timeout's frees the
 * slot even when the target ignores its signal and hangs.
 */
function abortPromise(signal: AbortSignal): { promise: Promise<never>; dispose: () => void } {
  let dispose = () => {};
  const promise = new Promise<never>((_, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    dispose = () => signal.removeEventListener("abort", onAbort);
  });
  promise.catch(() => {});
  return { promise, dispose };
}

async function attemptCall<M extends Metadata>(
  ctx: SampleContext<M>,
  sample: EvalSample<M>,
  question: string,
  signal: AbortSignal,
  aborted: { promise: Promise<never>; dispose: () => void } | undefined,
): Promise<Attempt> {
  const start = performance.now();
  try {
    const call = callTarget(ctx, sample, question, signal);
    const raw: unknown = await (aborted ? Promise.race([call, aborted.promise]) : call);
    const latencyMs = performance.now() - start;
    return { ok: true, output: validateOutput(ctx.kind, raw), latencyMs };
  } catch (error) {
    return { ok: false, error, latencyMs: performance.now() - start };
  } finally {
    aborted?.dispose();
  }
}

/** Calls the target with the sample's `question` as read when it started (it may throw synchronously). */
export function callTarget<M extends Metadata>(
  ctx: SampleContext<M>,
  sample: EvalSample<M>,
  question: string,
  signal: AbortSignal,
): Promise<unknown> {
  const options = { signal, sample };
  return ctx.kind === "engine"
    ? (ctx.target as QueryEngine<M>).query(question, options)
    : (ctx.target as Retriever<M>).retrieve(question, options);
}
