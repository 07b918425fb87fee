// Trials (`trials: n`, n > 1): every sample runs n times, each trial an independent call of the
// target (its own attempts, retries, timeout and cache entry). The worker pool here takes
// (sample, trial) pairs, sample by sample, so concurrency is spread over trials as over samples;
// a sample is finished, and handed over, once all its trials are. Each trial is handed over too
// as it finishes (the journal keeps it), so a kill after 3 of 5 trials resumes the 2 left.
// How a sample's record is made from its trials: result/trials.ts.
import { sampleOfTrials, trialOf } from "../result/trials.js";
import type { EvalSample, Metadata, SampleResult } from "../types.js";
import { callTarget, NEVER_ABORTED } from "./call-target.js";
import type { RunLoopWork } from "./run-loop.js";
import { runSample, settleDirect } from "./run-sample.js";
import { CANCELLED, type Outcome, type SampleContext } from "./sample-context.js";

/** What a run with trials works through: the samples still to finish, and the trials already done. */
export interface TrialsWork<M extends Metadata> extends RunLoopWork<M> {
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
 * Runs every missing trial of the samples of `work.todo` with at most `maxConcurrent` in flight.
 * Stops taking new trials once the run's signal or its graceful stop aborts, or `stopWhen` says
 * so; a trial left unfinished is not handed over (a resume runs it), and neither is its sample.
 */
export async function runTrialsLoop<M extends Metadata>(
  ctx: SampleContext<M>,
  work: TrialsWork<M>,
  maxConcurrent: number,
  sink: TrialsSink,
  stopWhen?: () => boolean,
): Promise<void> {
  const { samples: all, questions, ids, todo, trials: n, done } = work;
  const metricNames = ctx.metrics.map((m) => m.name);
  // The (sample, trial) pairs still to run, sample-major: a sample's trials run close together,
  // so samples finish (and show in progress) one after another rather than all at the end.
  let units = 0;
  for (const i of todo) {
    const have = done.get(i);
    for (let t = 0; t < n; t++) if (have?.[t] === undefined) units++;
  }
  const unitIndex = new Int32Array(units);
  const unitTrial = new Int32Array(units);
  const left = new Map<number, number>();
  let u = 0;
  for (const i of todo) {
    const have = done.get(i);
    let missing = 0;
    for (let t = 0; t < n; t++) {
      if (have?.[t] !== undefined) continue;
      unitIndex[u] = i;
      unitTrial[u] = t;
      u++;
      missing++;
    }
    left.set(i, missing);
    if (have === undefined) done.set(i, new Array(n));
  }
  // A sample with every trial in the journal but no sample record (a kill between its last trial
  // and its end): finished here at once.
  for (const i of todo) if (left.get(i) === 0) finish(i);

  function finish(i: number): void {
    const records = done.get(i) as SampleResult[];
    done.delete(i);
    left.delete(i);
    sink.sample(i, sampleOfTrials(metricNames, records[0] as SampleResult, records.map(trialOf)));
  }

  const signal = ctx.signal;
  const stop = ctx.stop;
  const direct = ctx.direct;
  let cursor = 0;
  const worker = async (): Promise<void> => {
    while (cursor < units) {
      if (signal?.aborted || stop?.aborted || stopWhen?.()) return;
      const k = cursor++;
      const i = unitIndex[k] as number;
      const t = unitTrial[k] as number;
      const sample = all[i] as EvalSample<M>;
      const question = questions[i] as string;
      const sampleId = ids[i];
      let outcome: Outcome | Promise<Outcome>;
      if (direct) {
        // As run-loop.ts: nothing can abort, repeat or replace the call (no cache, so no key).
        const start = performance.now();
        let raw: unknown;
        let failed = false;
        try {
          raw = await callTarget(ctx, sample, question, NEVER_ABORTED);
        } catch (error) {
          raw = error;
          failed = true;
        }
        outcome = settleDirect(
          ctx,
          sample,
          question,
          sampleId,
          raw,
          failed,
          performance.now() - start,
        );
        if (outcome instanceof Promise) outcome = await outcome;
      } else {
        outcome = await runSample(ctx, sample, question, sampleId, t);
      }
      if (outcome === CANCELLED) continue;
      (done.get(i) as (SampleResult | undefined)[])[t] = outcome;
      const remaining = (left.get(i) as number) - 1;
      sink.trial(i, t, outcome, remaining === 0);
      left.set(i, remaining);
      if (remaining === 0) finish(i);
    }
  };
  const workers: Promise<void>[] = [];
  const w = Math.min(maxConcurrent, units);
  for (let k = 0; k < w; k++) workers.push(worker());
  await Promise.all(workers);
}
