/**
 * xoshiro128** (Blackman & Vigna), a small, fast 32-bit generator with 128 bits of state, seeded
 * through splitmix32 so that any 32-bit seed (0 included) gives a well-mixed state.
 *
 * Hot loops (the sign-flip engine, the bootstrap) copy `s0..s3` into locals and inline `next`;
 * this class is the reference they must match and the convenient form elsewhere.
 */
export class Xoshiro128 {
  s0: number;
  s1: number;
  s2: number;
  s3: number;

  constructor(seed: number) {
    let x = seed >>> 0;
    const next = (): number => {
      x = (x + 0x9e3779b9) | 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) | 0;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** The next 32-bit output, as an unsigned integer in [0, 2^32). */
  next(): number {
    const s1 = this.s1;
    const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return r;
  }

  /** A uniform integer in [0, n) for n ≤ 2^21 (bias below n / 2^32, negligible at that size). */
  below(n: number): number {
    return Math.floor((this.next() * n) / 4294967296);
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** Validates a seed option: any integer, reduced to 32 bits. */
export function seedOf(seed: number | undefined, fallback: number): number {
  return (seed ?? fallback) >>> 0;
}
