// The randomization test's outcomes stay those of the engine before its speed-ups (issue 31: the
// same p for a fixed seed, bit for bit). `__fixtures__/randomization-reference.json` was written
// by the build of 65f86f3 (before the speed-ups) from the inputs below; every case's count of
// extreme draws and its mean difference must match exactly. The cases cover binary, few-valued,
// graded and continuous scores (the binomial draws, the byte tables, and the blocked walk of
// large tables), scores near the largest double (the scaled path), and several seeds and
// permutation counts that are not multiples of the engine's block.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { randomizationTest } from "./randomization-test.js";

interface Reference {
  readonly shape: string;
  readonly n: number;
  readonly permutations: number;
  readonly seed: number;
  readonly extreme: number;
  readonly meanDiff: number;
}

const reference = JSON.parse(
  readFileSync(new URL("./__fixtures__/randomization-reference.json", import.meta.url), "utf8"),
) as Reference[];

/** mulberry32: the inputs' own generator, independent of the engine's xoshiro128**. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const shapes: Record<string, (r: () => number) => number> = {
  binary: (r) => (r() < 0.5 ? 1 : 0),
  fifths: (r) => Math.floor(r() * 6) / 5,
  ndcgLike: (r) => Math.round(r() * 90) / 97,
  continuous: (r) => r() * 100,
  fewDistinct: (r) => [0, 0.25, 0.5, 1][Math.floor(r() * 4)] as number,
  huge: (r) => (r() - 0.5) * 1e308,
};

/** The cases, in the order (and with the input seeds) the fixture was written in. */
function cases(): {
  shape: string;
  n: number;
  permutations: number;
  seed: number;
  a: number[];
  b: number[];
}[] {
  const out = [];
  let caseSeed = 1;
  for (const [shape, gen] of Object.entries(shapes)) {
    for (const n of [3, 9, 40, 300, 2000, 10000]) {
      for (const [permutations, seed] of [
        [1000, 0],
        [10000, 7],
        [1537, 123456789],
      ] as const) {
        if (n === 10000 && permutations !== 10000) continue;
        const r = mulberry32(caseSeed++);
        const a = Array.from({ length: n }, () => gen(r));
        const b = Array.from({ length: n }, () => (r() < 0.3 ? gen(r) : 0) + gen(r) * 0);
        for (let i = 0; i < n; i++) b[i] = r() < 0.6 ? (a[i] as number) : gen(r);
        out.push({ shape, n, permutations, seed, a, b });
      }
    }
  }
  return out;
}

describe("randomizationTest against the reference outcomes", () => {
  it("gives the same extreme counts, p-values and mean differences for fixed seeds", () => {
    const all = cases();
    expect(all).toHaveLength(reference.length);
    for (let k = 0; k < all.length; k++) {
      const c = all[k] as (typeof all)[number];
      const want = reference[k] as Reference;
      expect([c.shape, c.n, c.permutations, c.seed]).toEqual([
        want.shape,
        want.n,
        want.permutations,
        want.seed,
      ]);
      const got = randomizationTest(c.a, c.b, { permutations: c.permutations, seed: c.seed });
      expect({ case: k, extreme: got.extreme, meanDiff: got.meanDiff }).toEqual({
        case: k,
        extreme: want.extreme,
        meanDiff: want.meanDiff,
      });
      expect(got.p).toBe((want.extreme + 1) / (want.permutations + 1));
    }
  });
});
