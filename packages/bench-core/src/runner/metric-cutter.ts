// The metric cutter: after the run's abort, a metric still pending past a grace period (a judge
// that hangs) no longer holds the run.

/** What {@link MetricCutter.wait} gives for a metric it cut. */
export const CUT_SHORT: unique symbol = Symbol("cut short");

/**
 * How long a metric may still be pending after the run's abort before its sample is given up
 * (left for a resume). Long enough for a judge call in flight to finish, so that its sample and
 * the pipeline call it cost are kept; a judge that hangs and ignores its signal cannot hold the
 * run for longer. Tests lower it.
 */
export const ABORT_GRACE: { ms: number } = { ms: 10_000 };

interface Waiting {
  readonly cut: () => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * One per run with a signal: races each pending metric score against the abort plus
 * {@link ABORT_GRACE}. A single abort listener serves every pending score (one per score would
 * trip Node's MaxListenersExceededWarning past 10 in flight, and cost a listener per sample).
 */
export class MetricCutter {
  private readonly pending = new Set<Waiting>();
  private aborted: boolean;
  private readonly onAbort = () => {
    this.aborted = true;
    for (const waiting of this.pending) this.arm(waiting);
  };

  constructor(private readonly signal: AbortSignal) {
    this.aborted = signal.aborted;
    if (!this.aborted) signal.addEventListener("abort", this.onAbort, { once: true });
  }

  /**
   * The score's value (or rejection) once it settles, or {@link CUT_SHORT} when it is still
   * pending {@link ABORT_GRACE} after the abort. A rejection after the cut is handled and ignored.
   */
  wait(pending: PromiseLike<unknown>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const waiting: Waiting = {
        cut: () => {
          this.pending.delete(waiting);
          resolve(CUT_SHORT);
        },
        timer: undefined,
      };
      const settle = () => {
        this.pending.delete(waiting);
        if (waiting.timer !== undefined) clearTimeout(waiting.timer);
      };
      this.pending.add(waiting);
      if (this.aborted) this.arm(waiting);
      try {
        pending.then(
          (value) => {
            settle();
            resolve(value);
          },
          (error: unknown) => {
            settle();
            reject(error);
          },
        );
      } catch (error) {
        // A thenable whose then() throws: that is the metric's error, as `await` would report it.
        settle();
        reject(error);
      }
    });
  }

  /** Ends the run's use of the signal: no listener or timer is left behind. */
  dispose(): void {
    this.signal.removeEventListener("abort", this.onAbort);
    for (const waiting of this.pending)
      if (waiting.timer !== undefined) clearTimeout(waiting.timer);
  }

  private arm(waiting: Waiting): void {
    waiting.timer ??= setTimeout(waiting.cut, ABORT_GRACE.ms);
  }
}
