// Progress of a run: the counts handed to `onProgress` after every finished sample.
import type { Progress, SampleResult } from "../types.js";
import type { RunLimiter } from "./rate-limiter.js";

/**
 * Counts finished, errored and incomplete samples of a run and reports them to `onProgress`. The
 * counts start from the samples of `positions` that `slots` already holds (from a checkpoint
 * journal).
 */
export class ProgressCounter {
  private readonly total: number;
  private done: number;
  private errored = 0;
  private incomplete = 0;
  /** With trials (n > 1): trials finished and in all; undefined otherwise. */
  private trialsDone: number | undefined;
  private trialsTotal: number | undefined;

  constructor(
    private readonly onProgress: ((progress: Progress) => void) | undefined,
    positions: readonly number[],
    slots: readonly (SampleResult | undefined)[],
    private readonly limiter: RunLimiter | undefined,
  ) {
    this.total = positions.length;
    this.done = 0;
    for (const i of positions) {
      const s = slots[i];
      if (s === undefined) continue;
      this.done++;
      if (s.status === "errored") this.errored++;
      else if (s.status === "incomplete") this.incomplete++;
    }
  }

  /**
   * Counts trials too (a run with `trials: n`, n > 1): `already` trials are finished (from a
   * journal, their samples' included), of `n` per sample.
   */
  countTrials(n: number, already: number): void {
    this.trialsTotal = this.total * n;
    this.trialsDone = already;
  }

  /**
   * Counts one more finished trial and reports, unless it is its sample's `last`: the sample's
   * report, which follows, then says both (one report, never a trial count ahead of its sample).
   */
  trialFinished(last: boolean): void {
    if (this.trialsDone === undefined) return;
    this.trialsDone++;
    if (!last) this.report();
  }

  /** Counts one more finished sample and reports. */
  finished(record: SampleResult): void {
    this.done++;
    if (record.status === "errored") this.errored++;
    else if (record.status === "incomplete") this.incomplete++;
    this.report();
  }

  private report(): void {
    const onProgress = this.onProgress;
    if (!onProgress) return;
    const { done, total, errored, incomplete } = this;
    try {
      const limiter = this.limiter;
      let progress: Progress;
      if (limiter === undefined) progress = { done, total, errored, incomplete };
      else {
        const { concurrency, rateLimitedCalls } = limiter.stats();
        progress = { done, total, errored, incomplete, concurrency, rateLimited: rateLimitedCalls };
      }
      if (this.trialsDone !== undefined) {
        progress = {
          ...progress,
          trialsDone: this.trialsDone,
          trialsTotal: this.trialsTotal as number,
        };
      }
      const pending: unknown = onProgress(progress);
      // An async callback's rejection is ignored too: left unhandled, it would end the process.
      if (typeof (pending as PromiseLike<unknown> | null)?.then === "function") {
        (pending as PromiseLike<unknown>).then(undefined, () => {});
      }
    } catch {
      // A failing progress callback must not fail the run.
    }
  }
}
