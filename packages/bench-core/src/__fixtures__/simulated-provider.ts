// A provider double for rate-limit tests: a real token bucket (`ratePerSecond` requests a second,
// at most `burst` at once) that refuses calls over the limit with `{ status: 429, retryAfterMs }`,
// and long-tailed (log-normal) latencies from a seeded generator. It reads the clock through
// `performance.now()` and waits with `setTimeout`, so vitest's fake timers drive it.
// (bench/ratelimit.mjs has the same double in JavaScript.)

/** mulberry32: a small seeded PRNG, so latencies repeat run to run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Log-normal latencies (ms): median `medianMs`, spread `sigma` (0.8: p99 ≈ 6.4 × the median). */
export function logNormal(random: () => number, medianMs: number, sigma: number): () => number {
  return () => {
    const u = Math.max(random(), 1e-12);
    const v = random();
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    return medianMs * Math.exp(sigma * z);
  };
}

export interface SimulatedProviderOptions {
  readonly ratePerSecond: number;
  readonly burst: number;
  /** Milliseconds a served call takes. */
  readonly latency: () => number;
}

/** A rate-limited provider: `call()` resolves after a latency, or rejects with a 429. */
export class SimulatedProvider {
  private rate: number;
  private readonly burst: number;
  private tokens: number;
  private last: number;
  private readonly latency: () => number;
  /** Calls served and refused. */
  served = 0;
  refused = 0;
  inFlight = 0;
  maxInFlight = 0;
  /** When each served call was admitted (performance.now()). */
  readonly admitted: number[] = [];

  constructor(options: SimulatedProviderOptions) {
    this.rate = options.ratePerSecond;
    this.burst = options.burst;
    this.tokens = options.burst;
    this.last = performance.now();
    this.latency = options.latency;
  }

  /** Changes the limit from now on (the tokens held so far stay). */
  setRate(ratePerSecond: number): void {
    this.refill();
    this.rate = ratePerSecond;
  }

  async call(): Promise<void> {
    this.refill();
    if (this.tokens < 1) {
      this.refused++;
      const retryAfterMs = Math.ceil(((1 - this.tokens) / this.rate) * 1000);
      throw Object.assign(new Error("429 Too Many Requests"), { status: 429, retryAfterMs });
    }
    this.tokens -= 1;
    this.served++;
    this.admitted.push(performance.now());
    this.inFlight++;
    if (this.inFlight > this.maxInFlight) this.maxInFlight = this.inFlight;
    await new Promise((resolve) => setTimeout(resolve, this.latency()));
    this.inFlight--;
  }

  private refill(): void {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
  }
}
