// Calling a target: the call itself, its timeout, and the run's abort reaching it.
import type { EvalSample, Metadata, QueryEngine, Retriever } from "../types.js";
import { expectOutput, type PipelineOutput } from "./check-output.js";
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
  i: number,
): Promise<Attempt> {
  const limiter = ctx.limiter;
  if (limiter === undefined) return callPipeline(ctx, i);
  try {
    return await limiter.run(
      async () => {
        const attempt = await callPipeline(ctx, i);
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

/**
 * The signals of a run's calls: each call gets an `AbortController` of its own, and the run's
 * signal one listener, whatever the number of calls in flight (added with the first, removed with
 * the last). Handing every call the run's signal itself would let a target that adds a listener
 * per call and never removes it (common in hand-written clients) pile them up on that one signal,
 * one per sample, kept for the whole run, Node warning past 10; a listener per call on the run's
 * signal would trip that warning past 10 calls in flight.
 */
export class CallSignals {
  private readonly live = new Set<AbortController>();
  private listening = false;
  private readonly onAbort = () => {
    this.listening = false;
    const reason = this.run.reason;
    for (const c of this.live) c.abort(reason);
    this.live.clear();
  };

  constructor(private readonly run: AbortSignal) {}

  /** A controller for one call, aborted with the run's signal until {@link CallSignals.close}. */
  open(): AbortController {
    const c = new AbortController();
    if (this.run.aborted) {
      c.abort(this.run.reason);
      return c;
    }
    this.live.add(c);
    if (!this.listening) {
      this.listening = true;
      this.run.addEventListener("abort", this.onAbort, { once: true });
    }
    return c;
  }

  /** The call is over: its controller no longer follows the run's signal. */
  close(c: AbortController): void {
    if (!this.live.delete(c) || this.live.size > 0 || !this.listening) return;
    this.listening = false;
    this.run.removeEventListener("abort", this.onAbort);
  }
}

/** One {@link CallSignals} per run signal (a signal may serve several runs, one after another). */
const CALL_SIGNALS = new WeakMap<AbortSignal, CallSignals>();

export function callSignals(run: AbortSignal): CallSignals {
  let s = CALL_SIGNALS.get(run);
  if (s === undefined) {
    s = new CallSignals(run);
    CALL_SIGNALS.set(run, s);
  }
  return s;
}

/** One attempt at the target for the sample at dataset position `i`, with its timeout. */
export async function callPipeline<M extends Metadata>(
  ctx: SampleContext<M>,
  i: number,
): Promise<Attempt> {
  // `ctx.signal` is the sample's own (see runSample), which follows the run's.
  const external = ctx.signal;
  // The run's abort reaches the target through its signal, but the call is not raced against it:
  // an in-flight sample settles, and one that still succeeds is kept (a paid call is not thrown
  // away). Only a timeout cuts a call short, since a target may ignore its signal and hang.
  // Without a timeout, every attempt of the sample gets the sample's signal (the one that never
  // aborts when the run has none: creating controllers would dominate an instant target's cost).
  if (ctx.timeoutMs === undefined) return attemptCall(ctx, i, external ?? NEVER_ABORTED, undefined);
  // With one, each attempt gets a signal of its own (a timeout aborts it, and the next attempt
  // must start unaborted), chained to the sample's through one listener (see CallSignals).
  const signals = external === undefined ? undefined : callSignals(external);
  const controller = signals === undefined ? new AbortController() : signals.open();
  const ms = ctx.timeoutMs;
  const timeout = new AbortController();
  const timer = setTimeout(() => {
    const error = new TimeoutError(ms);
    timeout.abort(error);
    controller.abort(error);
  }, ms);
  try {
    const aborted = abortPromise(timeout.signal);
    return await attemptCall(ctx, i, controller.signal, aborted);
  } finally {
    clearTimeout(timer);
    signals?.close(controller);
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
  i: number,
  signal: AbortSignal,
  aborted: { promise: Promise<never>; dispose: () => void } | undefined,
): Promise<Attempt> {
  const start = performance.now();
  try {
    const call = callTarget(ctx, i, signal);
    const raw: unknown = await (aborted ? Promise.race([call, aborted.promise]) : call);
    const latencyMs = performance.now() - start;
    return { ok: true, output: expectOutput(ctx.kind, raw), latencyMs };
  } catch (error) {
    return { ok: false, error, latencyMs: performance.now() - start };
  } finally {
    aborted?.dispose();
  }
}

/**
 * Calls the target with the question of the sample at `i` as validated (it may throw
 * synchronously), handing it the sample itself.
 */
export function callTarget<M extends Metadata>(
  ctx: SampleContext<M>,
  i: number,
  signal: AbortSignal,
): Promise<unknown> {
  const options = { signal, sample: ctx.samples[i] as EvalSample<M> };
  const question = ctx.questions[i] as string;
  return ctx.kind === "engine"
    ? (ctx.target as QueryEngine<M>).query(question, options)
    : (ctx.target as Retriever<M>).retrieve(question, options);
}
