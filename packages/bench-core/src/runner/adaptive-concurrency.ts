// Adaptive concurrency: AIMD (additive increase, multiplicative decrease) on rate-limit errors,
// as TCP's congestion control does it.

/**
 * The concurrency limit of an adaptive run, between 1 and `max`. A rate-limit error halves it; a
 * window of successes (as many as the limit in force) adds one.
 *
 * Calls started before the last decrease carry an older epoch: when a burst of them is
 * rate-limited together (64 calls in flight all get a 429), only the first halves the limit,
 * instead of 64 halvings collapsing it to 1 for one overload.
 */
export class AdaptiveConcurrency {
  /** The limit in force. */
  limit: number;
  /** The lowest limit the run went down to. */
  lowest: number;
  private epochNow = 0;
  private successes = 0;

  constructor(
    readonly max: number,
    start: number = max,
  ) {
    this.limit = Math.max(1, Math.min(max, start));
    this.lowest = this.limit;
  }

  /** The epoch a call starting now belongs to. */
  get epoch(): number {
    return this.epochNow;
  }

  /** A call of `epoch` succeeded: after a window of `limit` successes, the limit grows by one. */
  succeeded(epoch: number): void {
    if (epoch !== this.epochNow) return;
    if (++this.successes < this.limit) return;
    this.successes = 0;
    if (this.limit < this.max) this.limit++;
  }

  /**
   * A call of `epoch` was rate-limited: the limit halves (at least 1), once per epoch.
   * @returns whether the limit changed.
   */
  rateLimited(epoch: number): boolean {
    if (epoch !== this.epochNow) return false;
    this.epochNow++;
    this.successes = 0;
    const next = Math.max(1, Math.floor(this.limit / 2));
    const changed = next !== this.limit;
    this.limit = next;
    if (next < this.lowest) this.lowest = next;
    return changed;
  }
}
