// A token bucket: requests or tokens per minute, spread evenly.

/**
 * A token bucket: `perMinute` spread evenly, holding at most a second's worth (at least 1). A
 * call may take more than the bucket holds (a long prompt): it starts once the bucket is full,
 * and leaves it in debt, which later calls wait out.
 */
export class TokenBucket {
  private readonly rate: number;
  readonly capacity: number;
  private level: number;
  private last: number;

  constructor(perMinute: number, now: number) {
    this.rate = perMinute / 60_000;
    this.capacity = Math.max(1, perMinute / 60);
    this.level = this.capacity;
    this.last = now;
  }

  /** Milliseconds until `n` can be taken (0: now). */
  waitFor(n: number, now: number): number {
    this.refill(now);
    const need = Math.min(n, this.capacity);
    const missing = need - this.level;
    return missing <= 1e-9 ? 0 : missing / this.rate;
  }

  take(n: number): void {
    this.level -= n;
  }

  /** Gives back `n` (negative: takes more), as a call settles its estimate. */
  give(n: number): void {
    this.level = Math.min(this.capacity, this.level + n);
  }

  private refill(now: number): void {
    if (now > this.last) {
      this.level = Math.min(this.capacity, this.level + (now - this.last) * this.rate);
      this.last = now;
    }
  }
}
