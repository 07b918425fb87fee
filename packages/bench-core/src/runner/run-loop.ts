// The run loop: a fixed pool of workers taking the next sample to run from a shared cursor.
import type { EvalSample, Metadata, SampleResult } from "../types.js";
import { callTarget, NEVER_ABORTED } from "./call-target.js";
import { runSample, settleDirect } from "./run-sample.js";
import { CANCELLED, type Outcome, type SampleContext } from "./sample-context.js";

/** What the run loop works through: the dataset as validated, and the positions still to run. */
export interface RunLoopWork<M extends Metadata> {
  readonly samples: readonly EvalSample<M>[];
  /** Each sample's question and id as validated when the Benchmark was built. */
  readonly questions: readonly string[];
  readonly ids: readonly (string | undefined)[];
  /** Dataset positions to run, in order. */
  readonly todo: readonly number[];
}

/**
 * Runs every position of `work.todo` through {@link runSample} with at most `maxConcurrent` in
 * flight, handing each finished sample to `finished` as it finishes. Stops taking new samples
 * once the run's signal or its graceful stop (`RunOptions.stop`) aborts, or once `stopWhen` says
 * so (a journal that cannot be written); a sample left unfinished (for a resume) is not handed over.
 */
export async function runLoop<M extends Metadata>(
  ctx: SampleContext<M>,
  work: RunLoopWork<M>,
  maxConcurrent: number,
  finished: (index: number, record: SampleResult) => void,
  stopWhen?: () => boolean,
): Promise<void> {
  const { samples: all, questions, ids, todo } = work;
  const signal = ctx.signal;
  const stop = ctx.stop;
  // A fixed pool of `maxConcurrent` workers pulling the next position from a shared cursor: only
  // the workers are alive, never a promise per sample (docs/decisions/runner-worker-pool.md).
  let cursor = 0;
  const direct = ctx.direct;
  const worker = async (): Promise<void> => {
    while (cursor < todo.length) {
      if (signal?.aborted || stop?.aborted || stopWhen?.()) return;
      const i = todo[cursor++] as number;
      const sample = all[i] as EvalSample<M>;
      // As validated when the Benchmark was built: the record keeps what the dataset held even
      // if a target edits the sample it is handed (sets its question to a number, say).
      const question = questions[i] as string;
      const sampleId = ids[i];
      let outcome: Outcome | Promise<Outcome>;
      if (direct) {
        // Nothing can abort or repeat the call: await it here, in the worker's one frame, without
        // the general path's nested async calls (docs/decisions/runner-worker-pool.md).
        const start = performance.now();
        let raw: unknown;
        let failed = false;
        try {
          raw = await callTarget(ctx, sample, question, NEVER_ABORTED);
        } catch (error) {
          raw = error;
          failed = true;
        }
        const latencyMs = performance.now() - start;
        outcome = settleDirect(ctx, sample, question, sampleId, raw, failed, latencyMs);
        if (outcome instanceof Promise) outcome = await outcome;
      } else {
        outcome = await runSample(ctx, sample, question, sampleId);
      }
      if (outcome === CANCELLED) continue;
      finished(i, outcome);
    }
  };
  const workers: Promise<void>[] = [];
  const n = Math.min(maxConcurrent, todo.length);
  for (let w = 0; w < n; w++) workers.push(worker());
  await Promise.all(workers);
}
