// The run loop: every sample still to run, `maxConcurrent` at a time (the worker pool of
// internal/worker-pool.ts), each handed over as it finishes.
import { runPool } from "../internal/worker-pool.js";
import type { Metadata, SampleResult } from "../types.js";
import { settleSample, startSample } from "./run-sample.js";
import { CANCELLED, type Outcome, type SampleContext } from "./sample-context.js";

/** How the run loop and the trials loop run: how many at once, and when to stop taking more. */
export interface LoopOptions {
  readonly maxConcurrent: number;
  /** Asked before each new sample (or trial) is taken: a journal that cannot be written. */
  readonly stopWhen?: (() => boolean) | undefined;
}

/**
 * Runs the samples at the dataset positions `todo` with at most `maxConcurrent` in flight,
 * handing each finished sample to `finished` as it finishes. Stops taking new samples once the
 * run's signal or its graceful stop (`RunOptions.stop`) aborts, or once `stopWhen` says so; a
 * sample left unfinished (for a resume) is not handed over.
 */
export async function runLoop<M extends Metadata>(
  ctx: SampleContext<M>,
  todo: readonly number[],
  loop: LoopOptions,
  finished: (index: number, record: SampleResult) => void,
): Promise<void> {
  const hand = (i: number, outcome: Outcome): void => {
    if (outcome !== CANCELLED) finished(i, outcome);
  };
  // Apart from `settle`, so that no closure in it captures `i` (a context allocated per sample).
  const later = async (i: number, pending: Promise<Outcome>): Promise<void> =>
    hand(i, await pending);
  await runPool({
    count: todo.length,
    concurrency: loop.maxConcurrent,
    start: (k) => startSample(ctx, todo[k] as number, undefined),
    settle: (k, value, failed, ms) => {
      const i = todo[k] as number;
      const outcome = settleSample(ctx, i, value, failed, ms);
      if (outcome instanceof Promise) return later(i, outcome);
      hand(i, outcome);
    },
    stop: stopping(ctx, loop.stopWhen),
    // Only the direct path's latency is the pool's to measure (see startSample).
    timed: ctx.direct,
  });
}

/** Whether a loop must take no new sample: the run's abort, its graceful stop, or `stopWhen`. */
export function stopping<M extends Metadata>(
  ctx: SampleContext<M>,
  stopWhen: (() => boolean) | undefined,
): () => boolean {
  const { signal, stop } = ctx;
  return () => signal?.aborted === true || stop?.aborted === true || stopWhen?.() === true;
}
