// Adaptive concurrency: AIMD (additive increase, multiplicative decrease) on rate-limit errors,
// as TCP's congestion control does it.

/**
 * The concurrency limit of an adaptive run, between 1 and `max`. A rate-limit error halves it, but
 * not below the concurrency the provider was just measured to serve (see
 * {@link AdaptiveConcurrency.rateLimited}); a window of successes (as many as the limit in force)
 * adds one (after a slow start: one per success until the first rate limit).
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
  /**
   * Slow start, as TCP's: until a rate limit is met with something measured, each success adds
   * one (the limit doubles per round trip), so a run whose first burst was refused (the limit
   * cut to a few before anything was served) climbs back in a few round trips, not dozens.
   */
  private slowStart = true;
  private cutAt = Number.NEGATIVE_INFINITY;

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
    if (this.slowStart) {
      if (this.limit < this.max) this.limit++;
      return;
    }
    if (++this.successes < this.limit) return;
    this.successes = 0;
    if (this.limit < this.max) this.limit++;
  }

  /**
   * A call of `epoch` was rate-limited: once per epoch and per round trip (`roundTripMs`, the
   * mean latency of recent successes; `now` on the same clock), the limit halves, but not below
   * `served`, the concurrency the provider was measured to serve just before (calls in service
   * on average over the last seconds, by Little's law), and always by at least one. Plain halving
   * leaves a sawtooth between half and all of the provider's capacity (docs/decisions/
   * core-hot-paths.md); going back to what was served keeps the run
   * near the limit, and a provider whose limit drops is followed as the measure drops with it.
   * @returns whether the limit changed.
   */
  rateLimited(epoch: number, served = 0, now = 0, roundTripMs = 0): boolean {
    if (epoch !== this.epochNow) return false;
    // Once per round trip: calls started just after a cut meet the same overload.
    if (now - this.cutAt < roundTripMs) return false;
    this.cutAt = now;
    this.epochNow++;
    this.successes = 0;
    if (served > 0) this.slowStart = false;
    const measured = Math.min(this.limit - 1, Math.floor(served));
    const next = Math.max(1, Math.floor(this.limit / 2), measured);
    const changed = next !== this.limit;
    this.limit = next;
    if (next < this.lowest) this.lowest = next;
    return changed;
  }
}
