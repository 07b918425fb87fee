import { Xoshiro128 } from "./prng.js";

/**
 * A distinct |difference| shared by at least this many pairs is drawn as one binomial (how many
 * of its signs are +) instead of one sign per pair. Below it, pairs go through the byte tables.
 */
const HEAVY = 16;
/** Pairs per byte-table group: one random byte picks the signs of 8 pairs at once. */
const GROUP = 8;
const TABLE = 1 << GROUP;
const TWO32 = 4294967296;
/**
 * Large tables are walked in chunks of this many random words (4 groups, 8 KB of table, each), so
 * a chunk (64 KB) stays in cache while a block of permutations reads it (at BLOCK = 512 the random
 * words take a quarter of the table's memory).
 */
const CHUNK_WORDS = 8;
/** Permutations whose random words are drawn before the table chunks are walked. */
const BLOCK = 512;

/**
 * The engine of the approximate randomization (sign-flip) test.
 *
 * Under the null hypothesis each paired difference is as likely to have either sign, so the test
 * statistic `S = Σ sᵢ·|dᵢ|` with independent fair signs `sᵢ = ±1` is drawn `permutations` times,
 * and the draws with `|S| ≥ observed` are counted. Two exact rewrites make a draw cheap; neither
 * changes the distribution of `S`, only how its randomness is consumed:
 *
 * - Pairs that share one |difference| `v` (common: scores in [0, 1] take few values) contribute
 *   `v·(2B − c)` where `B ~ Binomial(c, ½)` counts the `+` signs among their `c` pairs. `B` is drawn
 *   in O(1) from a Walker/Vose alias table, so a draw costs one step per distinct value, not per
 *   pair. One 32-bit random number serves a draw, which resolves probabilities to about
 *   (table size)·2⁻³² ≈ 10⁻⁶, and outcomes beyond 12 standard deviations (total mass < 10⁻³²) are
 *   left out: both far below the 1/permutations resolution of the p-value.
 * - The remaining pairs are cut into groups of 8. For each group the 256 signed sums are
 *   tabulated once ("four Russians"), and a draw adds one table entry per group, indexed by one
 *   random byte: 8 signs per memory read instead of 8 additions and 8 random bits.
 *
 * Zero differences are dropped by the caller (they add 0 whatever their sign). The result depends
 * only on the multiset of differences, the threshold, the count and the seed: not on pair order.
 *
 * @param absDiffs nonzero absolute differences; used as scratch space (sorted and overwritten).
 * @param observed the observed |Σ dᵢ|.
 * @returns the number of draws with `|S| ≥ observed` (up to a relative tolerance of 1e-9 of
 * `Σ|dᵢ|`, so that floating-point summation order never turns a tie into a miss).
 */
export function countExtremeSignFlips(
  absDiffs: Float64Array,
  observed: number,
  permutations: number,
  seed: number,
): number {
  const sorted = absDiffs.sort();
  const m = sorted.length;
  let sumAbs = 0;
  for (let i = 0; i < m; i++) sumAbs += sorted[i] as number;
  const threshold = observed - 1e-9 * sumAbs;

  // Split into heavy distinct values (binomial draws) and light pairs (byte tables).
  const heavyValues: number[] = [];
  const heavyCounts: number[] = [];
  // Light pairs are compacted into the front of the same buffer (write index ≤ read index).
  const light = sorted;
  let nLight = 0;
  for (let i = 0; i < m; ) {
    const v = sorted[i] as number;
    let j = i + 1;
    while (j < m && sorted[j] === v) j++;
    const c = j - i;
    if (c >= HEAVY) {
      heavyValues.push(v);
      heavyCounts.push(c);
    } else {
      for (let k = 0; k < c; k++) light[nLight++] = v;
    }
    i = j;
  }

  // Alias tables, one per heavy value, concatenated. Entry j of a table holds the contribution of
  // outcome j, the contribution of its alias, and the 32-bit threshold that picks between them.
  const nHeavy = heavyValues.length;
  const heavyOffset = new Int32Array(nHeavy);
  const heavySize = new Float64Array(nHeavy);
  const heavyLow = new Int32Array(nHeavy);
  let totalOutcomes = 0;
  for (let h = 0; h < nHeavy; h++) {
    const c = heavyCounts[h] as number;
    // Outcomes more than 12 standard deviations (√c / 2) from c/2 have probability below 1e-32
    // together: far below the 2⁻³² resolution of a draw, so the table leaves them out.
    const half = Math.ceil(6 * Math.sqrt(c)) + 1;
    const low = Math.max(0, Math.floor(c / 2) - half);
    const high = Math.min(c, Math.ceil(c / 2) + half);
    heavyLow[h] = low;
    heavyOffset[h] = totalOutcomes;
    heavySize[h] = high - low + 1;
    totalOutcomes += high - low + 1;
  }
  // Interleaved per outcome: [threshold, own contribution, alias contribution].
  const alias = new Float64Array(3 * totalOutcomes);
  for (let h = 0; h < nHeavy; h++) {
    buildBinomialAlias(
      heavyCounts[h] as number,
      heavyLow[h] as number,
      heavySize[h] as number,
      heavyValues[h] as number,
      heavyOffset[h] as number,
      alias,
    );
  }

  // Byte tables for the light pairs: table[g·256 + b] = Σ over the group's pairs of ±|d|, with
  // bit k of b giving the sign of pair k (1 → +). Missing pairs of the last group add 0.
  const groups = Math.ceil(nLight / GROUP);
  const table = new Float64Array(groups * TABLE);
  for (let g = 0; g < groups; g++) {
    const base = g * TABLE;
    const start = g * GROUP;
    // Start from "all −", then each bit set flips one pair to + (adding 2|d|).
    let allMinus = 0;
    for (let k = 0; k < GROUP; k++) {
      const i = start + k;
      if (i < nLight) allMinus -= light[i] as number;
    }
    table[base] = allMinus;
    for (let b = 1; b < TABLE; b++) {
      const low = b & -b;
      const k = 31 - Math.clz32(low);
      const i = start + k;
      const d = i < nLight ? (light[i] as number) : 0;
      table[base + b] = (table[base + (b ^ low)] as number) + 2 * d;
    }
  }
  const fullWords = Math.floor(groups / 4);
  const restGroups = groups - fullWords * 4;

  const rng = new Xoshiro128(seed);
  let s0 = rng.s0;
  let s1 = rng.s1;
  let s2 = rng.s2;
  let s3 = rng.s3;
  let count = 0;
  if (fullWords > CHUNK_WORDS) {
    // Tables larger than a cache-sized chunk: a draw's lookups would each miss the cache (the
    // time grew faster than n). Draw a block of permutations' random words first, in exactly the
    // order of the simple loop below, then walk the table chunk by chunk, adding into each
    // permutation's sum in the same order as that loop: every sum sees the same additions in the
    // same order, so the counts are bit-identical, while each chunk is read from cache BLOCK times.
    const words = new Int32Array(BLOCK * fullWords);
    const rests = new Int32Array(BLOCK);
    const sums = new Float64Array(BLOCK);
    for (let p0 = 0; p0 < permutations; p0 += BLOCK) {
      const nb = Math.min(BLOCK, permutations - p0);
      for (let q = 0; q < nb; q++) {
        let sum = 0;
        for (let h = 0; h < nHeavy; h++) {
          const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
          const t = s1 << 9;
          s2 ^= s0;
          s3 ^= s1;
          s1 ^= s2;
          s0 ^= s3;
          s2 ^= t;
          s3 = rotl(s3, 11);
          const x = r * (heavySize[h] as number);
          const col = (x / TWO32) | 0;
          const j = 3 * ((heavyOffset[h] as number) + col);
          sum += alias[
            j + 2 - ((x - col * TWO32 < (alias[j] as number)) as unknown as number)
          ] as number;
        }
        sums[q] = sum;
        const at = q * fullWords;
        for (let w = 0; w < fullWords; w++) {
          words[at + w] = Math.imul(rotl(Math.imul(s1, 5), 7), 9);
          const t = s1 << 9;
          s2 ^= s0;
          s3 ^= s1;
          s1 ^= s2;
          s0 ^= s3;
          s2 ^= t;
          s3 = rotl(s3, 11);
        }
        if (restGroups > 0) {
          rests[q] = Math.imul(rotl(Math.imul(s1, 5), 7), 9);
          const t = s1 << 9;
          s2 ^= s0;
          s3 ^= s1;
          s1 ^= s2;
          s0 ^= s3;
          s2 ^= t;
          s3 = rotl(s3, 11);
        }
      }
      for (let w0 = 0; w0 < fullWords; w0 += CHUNK_WORDS) {
        const w1 = Math.min(fullWords, w0 + CHUNK_WORDS);
        for (let q = 0; q < nb; q++) {
          let sum = sums[q] as number;
          let base = w0 * 1024;
          const at = q * fullWords;
          for (let w = w0; w < w1; w++) {
            const r = words[at + w] as number;
            sum +=
              (table[base + (r & 0xff)] as number) +
              (table[base + 256 + ((r >>> 8) & 0xff)] as number) +
              (table[base + 512 + ((r >>> 16) & 0xff)] as number) +
              (table[base + 768 + (r >>> 24)] as number);
            base += 1024;
          }
          sums[q] = sum;
        }
      }
      for (let q = 0; q < nb; q++) {
        let sum = sums[q] as number;
        if (restGroups > 0) {
          let r = rests[q] as number;
          let base = fullWords * 1024;
          for (let g = 0; g < restGroups; g++) {
            sum += table[base + (r & 0xff)] as number;
            r >>>= 8;
            base += 256;
          }
        }
        if (Math.abs(sum) >= threshold) count++;
      }
    }
    return count;
  }
  for (let p = 0; p < permutations; p++) {
    let sum = 0;
    for (let h = 0; h < nHeavy; h++) {
      // One xoshiro128** output r: the integer part of r·size / 2³² picks the column, and the
      // remainder (uniform on multiples of size, so resolved to size / 2³²) decides column vs alias.
      const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
      const t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = rotl(s3, 11);
      const x = r * (heavySize[h] as number);
      const col = (x / TWO32) | 0;
      const j = 3 * ((heavyOffset[h] as number) + col);
      // Branch-free: the comparison is a coin flip the CPU cannot predict.
      sum += alias[
        j + 2 - ((x - col * TWO32 < (alias[j] as number)) as unknown as number)
      ] as number;
    }
    let base = 0;
    for (let w = 0; w < fullWords; w++) {
      const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9);
      const t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = rotl(s3, 11);
      sum +=
        (table[base + (r & 0xff)] as number) +
        (table[base + 256 + ((r >>> 8) & 0xff)] as number) +
        (table[base + 512 + ((r >>> 16) & 0xff)] as number) +
        (table[base + 768 + (r >>> 24)] as number);
      base += 1024;
    }
    if (restGroups > 0) {
      let r = Math.imul(rotl(Math.imul(s1, 5), 7), 9);
      const t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = rotl(s3, 11);
      for (let g = 0; g < restGroups; g++) {
        sum += table[base + (r & 0xff)] as number;
        r >>>= 8;
        base += 256;
      }
    }
    if (Math.abs(sum) >= threshold) count++;
  }
  return count;
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/**
 * Vose's alias table for Binomial(c, ½) restricted to outcomes `low … low + n − 1`, written at
 * `offset` into `out` as triples: the 32-bit threshold below which outcome `k = low + j` itself
 * is taken, its contribution `v·(2k − c)`, and the contribution of its alias.
 */
function buildBinomialAlias(
  c: number,
  low: number,
  n: number,
  v: number,
  offset: number,
  out: Float64Array,
): void {
  // pmf relative to the mode, by the ratio pmf(k+1)/pmf(k) = (c − k)/(k + 1): no 2^-c underflow
  // and no log-gamma. Normalized afterwards so the column average is 1.
  const scaled = new Float64Array(n);
  const mode = Math.floor(c / 2);
  const m = mode - low;
  scaled[m] = 1;
  for (let j = m; j + 1 < n; j++) {
    const k = low + j;
    scaled[j + 1] = ((scaled[j] as number) * (c - k)) / (k + 1);
  }
  for (let j = m; j > 0; j--) {
    const k = low + j;
    scaled[j - 1] = ((scaled[j] as number) * k) / (c - k + 1);
  }
  let total = 0;
  for (let k = 0; k < n; k++) total += scaled[k] as number;
  for (let k = 0; k < n; k++) scaled[k] = ((scaled[k] as number) / total) * n;
  const alias = new Int32Array(n);
  const small = new Int32Array(n);
  const large = new Int32Array(n);
  let ns = 0;
  let nl = 0;
  for (let k = 0; k < n; k++) {
    if ((scaled[k] as number) < 1) small[ns++] = k;
    else large[nl++] = k;
  }
  while (ns > 0 && nl > 0) {
    const s = small[--ns] as number;
    const l = large[nl - 1] as number;
    alias[s] = l;
    scaled[l] = (scaled[l] as number) + (scaled[s] as number) - 1;
    if ((scaled[l] as number) < 1) {
      nl--;
      small[ns++] = l;
    }
  }
  // Leftovers (rounding) keep their own outcome with certainty.
  while (nl > 0) {
    const l = large[--nl] as number;
    scaled[l] = 1;
    alias[l] = l;
  }
  while (ns > 0) {
    const s = small[--ns] as number;
    scaled[s] = 1;
    alias[s] = s;
  }
  for (let k = 0; k < n; k++) {
    const at = 3 * (offset + k);
    out[at] = Math.min(1, scaled[k] as number) * TWO32;
    out[at + 1] = v * (2 * (low + k) - c);
    out[at + 2] = v * (2 * (low + (alias[k] as number)) - c);
  }
}
