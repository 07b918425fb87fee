// Trials (`trials: n`, n > 1): every sample runs n times, each trial an independent call of the
// target (its own attempts, retries, timeout and cache entry). The worker pool here takes
// (sample, trial) pairs, sample by sample, so concurrency is spread over trials as over samples;
// a sample is finished, and handed over, once all its trials are. Each trial is handed over too
// as it finishes (the journal keeps it), so a kill after 3 of 5 trials resumes the 2 left.
// How a sample's record is made from its trials: result/trials.ts.
import { runPool } from "../internal/worker-pool.js";
import { sampleOfTrials, trialOf } from "../result/trials.js";
import type { Metadata, SampleResult } from "../types.js";
import { type LoopOptions, stopping } from "./run-loop.js";
import { settleSample, startSample } from "./run-sample.js";
import { CANCELLED, type Outcome, type SampleContext } from "./sample-context.js";

/** What a run with trials works through: the samples still to finish, and the trials already done. */
export interface TrialsWork {
  /** Dataset positions of the samples to finish, in order. */
  readonly todo: readonly number[];
  /** Trials per sample, n > 1. */
  readonly trials: number;
  /**
   * Trials already finished (from a checkpoint journal), by dataset position: entry t is trial t's
   * record, undefined where it is still to run. Positions of `todo` only; taken over and emptied.
   */
  readonly done: Map<number, (SampleResult | undefined)[]>;
}

/** Where the trials loop hands what finishes. */
export interface TrialsSink {
  /**
   * One trial finished: its record (the sample's fields and the trial's outcome). `last` when it
   * is its sample's last, whose `sample` call follows at once.
   */
  trial(index: number, trial: number, record: SampleResult, last: boolean): void;
  /** Every trial of a sample finished: the sample's record (see `sampleOfTrials`). */
  sample(index: number, record: SampleResult): void;
}

/**
 * Runs every missing trial of the samples of `work.todo` with at most `maxConcurrent` in flight
 * (the worker pool of internal/worker-pool.ts, over (sample, trial) pairs). Stops taking new
 * trials once the run's signal or its graceful stop aborts, or `stopWhen` says so; a trial left
 * unfinished is not handed over (a resume runs it), and neither is its sample.
 */
export async function runTrialsLoop<M extends Metadata>(
  ctx: SampleContext<M>,
  work: TrialsWork,
  loop: LoopOptions,
  sink: TrialsSink,
): Promise<void> {
  const { trials: n, done } = work;
  const metricNames = ctx.metrics.map((m) => m.name);
  const units = missingTrials(work);
  const { index: unitIndex, trial: unitTrial, left } = units;
  const finish = (i: number): void => {
    const records = done.get(i) as SampleResult[];
    done.delete(i);
    left.delete(i);
    sink.sample(i, sampleOfTrials(metricNames, records[0] as SampleResult, records.map(trialOf)));
  };
  // A sample with every trial in the journal but no sample record (a kill between its last trial
  // and its end): finished here at once.
  for (const i of work.todo) if (left.get(i) === 0) finish(i);
  for (const i of work.todo) if (!done.has(i) && left.has(i)) done.set(i, new Array(n));
  const hand = (i: number, t: number, outcome: Outcome): void => {
    if (outcome === CANCELLED) return;
    (done.get(i) as (SampleResult | undefined)[])[t] = outcome;
    const remaining = (left.get(i) as number) - 1;
    sink.trial(i, t, outcome, remaining === 0);
    left.set(i, remaining);
    if (remaining === 0) finish(i);
  };
  // Apart from `settle`, so that no closure in it captures `i` (a context allocated per trial).
  const later = async (i: number, t: number, pending: Promise<Outcome>): Promise<void> =>
    hand(i, t, await pending);
  await runPool({
    count: unitIndex.length,
    concurrency: loop.maxConcurrent,
    start: (k) => startSample(ctx, unitIndex[k] as number, unitTrial[k] as number),
    settle: (k, value, failed, ms) => {
      const i = unitIndex[k] as number;
      const t = unitTrial[k] as number;
      const outcome = settleSample(ctx, i, value, failed, ms);
      if (outcome instanceof Promise) return later(i, t, outcome);
      hand(i, t, outcome);
    },
    stop: stopping(ctx, loop.stopWhen),
    // Only the direct path's latency is the pool's to measure (see startSample).
    timed: ctx.direct,
  });
}

/**
 * The (sample, trial) pairs still to run, sample-major (a sample's trials run close together, so
 * samples finish, and show in progress, one after another rather than all at the end), and how
 * many each sample of `todo` lacks.
 */
function missingTrials(work: TrialsWork): {
  index: Int32Array;
  trial: Int32Array;
  left: Map<number, number>;
} {
  const { todo, trials: n, done } = work;
  let units = 0;
  for (const i of todo) {
    const have = done.get(i);
    for (let t = 0; t < n; t++) if (have?.[t] === undefined) units++;
  }
  const index = new Int32Array(units);
  const trial = new Int32Array(units);
  const left = new Map<number, number>();
  let u = 0;
  for (const i of todo) {
    const have = done.get(i);
    let missing = 0;
    for (let t = 0; t < n; t++) {
      if (have?.[t] !== undefined) continue;
      index[u] = i;
      trial[u] = t;
      u++;
      missing++;
    }
    left.set(i, missing);
  }
  return { index, trial, left };
}
