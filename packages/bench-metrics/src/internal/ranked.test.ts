import type { MetricInput, RetrievedChunk } from "@fastrag/bench-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { idealGainsOf } from "./ideal-gains.js";
import { type MatchLevel, rankedGainsOf, rankedOf, relevantCountOf } from "./judgments.js";

// The per-sample preparation shared by the metric classes, checked against a plain reference
// written here: a Set for de-duplication and membership, own enumerable properties for grades.

// Short ids that share a length and a last character ("a1", "b1", "ab1"), so that hashes collide
// and strings must be compared; the empty id; names of Object.prototype members; and enough ids
// for more than 32 graded ones.
const POOL = [
  "a1",
  "b1",
  "c1",
  "ab1",
  "cb1",
  "a2",
  "",
  "constructor",
  "toString",
  "__proto__",
  "hasOwnProperty",
  ...Array.from({ length: 36 }, (_, i) => `doc-${i}`),
];
const id = fc.constantFrom(...POOL);

interface Case {
  readonly relevantIds: string[];
  readonly relevance: Record<string, number> | undefined;
  readonly ranking: string[];
}

/**
 * A relevance record as a user could build one: own enumerable grades, sometimes a non-enumerable
 * own grade (which Object.keys does not list) and a prototype with numeric properties.
 */
const relevanceArb = fc.option(
  fc
    .record({
      grades: fc.array(fc.tuple(id, fc.integer({ min: -1, max: 4 })), { maxLength: 40 }),
      hidden: fc.array(fc.tuple(id, fc.integer({ min: -1, max: 4 })), { maxLength: 2 }),
      inherited: fc.array(fc.tuple(id, fc.integer({ min: -1, max: 4 })), { maxLength: 2 }),
    })
    .map(({ grades, hidden, inherited }) => {
      const proto: Record<string, number> = {};
      for (const [k, grade] of inherited) define(proto, k, grade, true);
      const record = Object.create(inherited.length > 0 ? proto : Object.prototype);
      for (const [k, grade] of grades) define(record, k, grade, true);
      for (const [k, grade] of hidden)
        if (!Object.hasOwn(record, k)) define(record, k, grade, false);
      return record as Record<string, number>;
    }),
  { nil: undefined },
);

function define(target: object, key: string, value: number, enumerable: boolean): void {
  Object.defineProperty(target, key, { value, enumerable, writable: true, configurable: true });
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  relevantIds: fc.array(id, { maxLength: 20 }),
  relevance: relevanceArb,
  ranking: fc.array(id, { maxLength: 40 }),
});

function inputOf(c: Case, retrieved: readonly RetrievedChunk[] = chunks(c.ranking)): MetricInput {
  const sample =
    c.relevance === undefined
      ? { question: "q", expectedAnswers: [], relevantIds: c.relevantIds }
      : { question: "q", expectedAnswers: [], relevantIds: c.relevantIds, relevance: c.relevance };
  return { sample, answer: null, retrieved, latencyMs: 0 };
}

function chunks(ids: readonly string[]): RetrievedChunk[] {
  return ids.map((i) => ({ id: i, documentId: `doc:${i}` }));
}

interface Expected {
  readonly r: number;
  readonly ids: string[];
  readonly relevant: number[];
  readonly gains: number[];
  readonly ideal: number[];
}

/** The reference, at chunk level, or at document level where every id is prefixed "doc:". */
function expected(c: Case, level: MatchLevel = "chunk"): Expected {
  const name = (i: string) => (level === "chunk" ? i : `doc:${i}`);
  const relevantSet = new Set(c.relevantIds.map(name));
  const ids = [...new Set(c.ranking.map(name))];
  const relevance = c.relevance;
  // A grade is an own enumerable property, as Object.keys lists them: a hidden (non-enumerable)
  // one counts on neither side of nDCG's ratio.
  const graded = (i: string) =>
    relevance !== undefined && Object.prototype.propertyIsEnumerable.call(relevance, i);
  const gainOf = (i: string) => {
    const gain = graded(i) ? (relevance as Record<string, number>)[i] : relevantSet.has(i) ? 1 : 0;
    return Math.max(gain as number, 0);
  };
  const ideal: number[] = [];
  if (relevance !== undefined) {
    for (const k of Object.keys(relevance))
      if ((relevance[k] as number) > 0) ideal.push(relevance[k] as number);
  }
  for (const i of relevantSet) if (!graded(i)) ideal.push(1);
  ideal.sort((a, b) => b - a);
  return {
    r: relevantSet.size,
    ids,
    relevant: ids.map((i) => (relevantSet.has(i) ? 1 : 0)),
    gains: ids.map(gainOf),
    ideal: level === "chunk" ? ideal : [],
  };
}

function actual(input: MetricInput, level: MatchLevel = "chunk"): Expected {
  const g = rankedGainsOf(input, level, Number.POSITIVE_INFINITY, "test");
  const ideal = idealGainsOf(input, "test");
  return {
    r: relevantCountOf(input, "test"),
    ids: g.ids.slice(0, g.length),
    relevant: Array.from(g.relevant.subarray(0, g.length)),
    // Only positive gains count; the buffer may keep a grade ≤ 0 as it is.
    gains: Array.from(g.gains.subarray(0, g.length), (x) => Math.max(x, 0)),
    ideal: level === "chunk" ? Array.from(ideal.gains.subarray(0, ideal.length)) : [],
  };
}

describe("per-sample preparation (rankedOf, rankedGainsOf, idealGainsOf)", () => {
  it("matches a Set-and-own-enumerable reference on random judgments and rankings", () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        expect(actual(inputOf(c))).toEqual(expected(c));
      }),
      { numRuns: 500 },
    );
  });

  it("matches it at document level too, where ids are documentIds", () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const docCase = { ...c, relevantIds: c.relevantIds.map((i) => `doc:${i}`) };
        const got = actual(inputOf(docCase, chunks(c.ranking)), "document");
        expect(got).toEqual(expected(c, "document"));
      }),
    );
  });

  it("never leaks one input's judgments into another's, in any order of calls", () => {
    const call = fc.record({
      which: fc.nat(),
      what: fc.constantFrom("count", "ranked", "gains", "ideal", "doc"),
    });
    fc.assert(
      fc.property(
        fc.array(caseArb, { minLength: 2, maxLength: 4 }),
        fc.array(call),
        (cases, calls) => {
          const inputs = cases.map((c) => inputOf(c));
          for (const { which, what } of calls) {
            const c = cases[which % cases.length] as Case;
            const input = inputs[which % cases.length] as MetricInput;
            const want = expected(c);
            if (what === "count") expect(relevantCountOf(input, "test")).toBe(want.r);
            else if (what === "ranked") {
              const got = rankedOf(input, "chunk", "test");
              expect(Array.from(got.relevant.subarray(0, got.length))).toEqual(want.relevant);
            } else if (what === "doc") {
              const got = rankedOf(input, "document", "test");
              expect(got.ids.slice(0, got.length)).toEqual(want.ids.map((i) => `doc:${i}`));
            } else if (what === "ideal") {
              const got = idealGainsOf(input, "test");
              expect(Array.from(got.gains.subarray(0, got.length))).toEqual(want.ideal);
            } else expect(actual(input)).toEqual(want);
          }
        },
      ),
    );
  });

  it("follows a target that refills one array across samples", () => {
    fc.assert(
      fc.property(fc.array(caseArb, { minLength: 2, maxLength: 5 }), (cases) => {
        const buffer: RetrievedChunk[] = [];
        for (const c of cases) {
          buffer.length = 0;
          buffer.push(...chunks(c.ranking));
          // A new input per sample, as the runner builds, around the same array.
          expect(actual(inputOf(c, buffer))).toEqual(expected(c));
        }
      }),
    );
  });

  it("extends the gains when a deeper cutoff asks for more ranks", () => {
    fc.assert(
      fc.property(caseArb, fc.integer({ min: 0, max: 20 }), (c, depth) => {
        const input = inputOf(c);
        const want = expected(c);
        const shallow = rankedGainsOf(input, "chunk", depth, "test");
        const first = Math.min(depth, shallow.length);
        expect(Array.from(shallow.gains.subarray(0, first), (x) => Math.max(x, 0))).toEqual(
          want.gains.slice(0, first),
        );
        expect(actual(input)).toEqual(want);
      }),
    );
  });

  it("recomputes for a new input of the same sample", () => {
    const c: Case = {
      relevantIds: ["a1", "b1"],
      relevance: { a1: 2, b1: 1 },
      ranking: ["b1", "a1"],
    };
    const sample = inputOf(c).sample;
    const first: MetricInput = { sample, answer: null, retrieved: chunks(["a1"]), latencyMs: 0 };
    const second: MetricInput = {
      sample,
      answer: null,
      retrieved: chunks(["x", "b1"]),
      latencyMs: 0,
    };
    expect(Array.from(rankedGainsOf(first, "chunk", 10, "test").gains.subarray(0, 1))).toEqual([2]);
    const got = rankedGainsOf(second, "chunk", 10, "test");
    expect(got.ids.slice(0, got.length)).toEqual(["x", "b1"]);
    expect(Array.from(got.relevant.subarray(0, got.length))).toEqual([0, 1]);
    expect(Array.from(got.gains.subarray(0, got.length))).toEqual([0, 1]);
  });

  it("keeps nothing of an input whose documentId is missing", () => {
    const good = inputOf({ relevantIds: ["doc:a1"], relevance: undefined, ranking: ["a1"] });
    const bad: MetricInput = {
      ...good,
      // The first rank is written over the good input's before the second throws.
      retrieved: [{ id: "z", documentId: "doc:z" }, { id: "b1" }],
    };
    expect(rankedOf(good, "document", "test").length).toBe(1);
    expect(() => rankedOf(bad, "document", "test")).toThrow(
      /chunk at rank 2 \(id the string "b1"\) has none/,
    );
    expect(() => rankedOf(bad, "document", "test")).toThrow(/has none/);
    const again = rankedOf(good, "document", "test");
    expect(again.ids.slice(0, again.length)).toEqual(["doc:a1"]);
    expect(Array.from(again.relevant.subarray(0, 1))).toEqual([1]);
  });

  it("handles rankings past the hash table's limit, however few ids remain", () => {
    // 40,000 chunks over 20 ids: the Set path, then flags for 20 ranks.
    const ids = Array.from({ length: 20 }, (_, i) => `doc-${i}`);
    const ranking = Array.from({ length: 40_000 }, (_, i) => ids[(i * 7) % 20] as string);
    const c: Case = { relevantIds: ["doc-3", "doc-19", "zzz"], relevance: { "doc-3": 2 }, ranking };
    expect(actual(inputOf(c))).toEqual(expected(c));
    // 40,000 chunks over 3 ids: fewer ranks than the scan limit, from the Set path.
    const few: Case = {
      ...c,
      ranking: ranking.map((_, i) => ["doc-0", "doc-3", "doc-7"][i % 3] as string),
    };
    expect(actual(inputOf(few))).toEqual(expected(few));
  });
});
