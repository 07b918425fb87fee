import type { EvalSample, Metric, MetricInput, RetrievedChunk } from "@fastrag/bench-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MatchLevel } from "./internal/judgments.js";
import {
  averagePrecision,
  hitRateAt,
  ndcgGraded,
  precisionAt,
  recallAt,
  reciprocalRank,
  rPrecision,
} from "./internal/kernels.js";
import { buildIdealGains } from "./internal/reference-gains.js";
import { HitRate, MAP, MRR, NDCG, Precision, Recall, RPrecision } from "./retrieval.js";

// The metric classes, which share one prepared view of each sample, against the straightforward
// computation they replaced: a Set of relevant ids, a ranking de-duplicated with a Set, and the
// Set-based kernels (pinned to trec_eval by the parity test). Exact equality, on samples scored
// in shuffled order so that one sample's preparation could leak into another's.

const POOL = [
  "a1",
  "b1",
  "ab1",
  "a2",
  "",
  "constructor",
  "toString",
  "__proto__",
  ...Array.from({ length: 30 }, (_, i) => `d${i}`),
];
const id = fc.constantFrom(...POOL);

const sampleArb: fc.Arbitrary<EvalSample> = fc
  .record({
    relevantIds: fc.array(id, { maxLength: 20 }),
    graded: fc.boolean(),
    grades: fc.array(fc.tuple(id, fc.integer({ min: -1, max: 4 })), { maxLength: 36 }),
    hidden: fc.option(fc.tuple(id, fc.integer({ min: 1, max: 4 })), { nil: undefined }),
    inherited: fc.option(fc.tuple(id, fc.integer({ min: -1, max: 4 })), { nil: undefined }),
  })
  .map(({ relevantIds, graded, grades, hidden, inherited }) => {
    if (!graded) return { question: "q", expectedAnswers: [], relevantIds };
    // Sometimes a prototype with a numeric property: inherited, so no grade.
    const proto: Record<string, number> = {};
    if (inherited !== undefined) proto[inherited[0]] = inherited[1];
    const relevance: Record<string, number> = Object.create(proto);
    for (const [k, grade] of grades) {
      Object.defineProperty(relevance, k, {
        value: grade,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    // An own grade Object.keys does not list: no grade, in the gains as in the ideal.
    if (hidden !== undefined && !Object.hasOwn(relevance, hidden[0])) {
      Object.defineProperty(relevance, hidden[0], { value: hidden[1], enumerable: false });
    }
    return { question: "q", expectedAnswers: [], relevantIds, relevance };
  });

const rankingArb = fc.array(id, { maxLength: 30 });

function chunksOf(ids: readonly string[], level: MatchLevel): RetrievedChunk[] {
  // At document level, two chunks per document id so documents repeat.
  return level === "chunk"
    ? ids.map((i) => ({ id: i }))
    : ids.flatMap((i, n) => [
        { id: `c${n}a`, documentId: i },
        { id: `c${n}b`, documentId: i },
      ]);
}

function metricsFor(k: number, level: MatchLevel): Metric[] {
  return [
    new MAP({ level }),
    new MRR({ level }),
    new NDCG({ k, level }),
    // A second cutoff on the same sample: the prepared gains must reach the deeper one.
    new NDCG({ k: k + 5, level, name: "ndcg_deeper" }),
    new NDCG({ k: Math.max(1, k - 3), level, name: "ndcg_shallower" }),
    new Recall({ k, level }),
    new Precision({ k, level }),
    new HitRate({ k, level }),
    new MAP({ k, level, name: "map_cut" }),
    new MRR({ k, level, name: "mrr_cut" }),
    new RPrecision({ level }),
  ];
}

/** What the metric classes computed before they shared a prepared view of the sample. */
function reference(metric: Metric, input: MetricInput): number | null {
  const k = (metric as { k?: number }).k ?? Number.POSITIVE_INFINITY;
  const relevant = new Set(input.sample.relevantIds);
  const byDocument = (metric as { level?: MatchLevel }).level === "document";
  const ranked = [
    ...new Set(input.retrieved.map((c) => (byDocument ? (c.documentId as string) : c.id))),
  ];
  if (metric instanceof NDCG) {
    const ideal = buildIdealGains(relevant, input.sample.relevance);
    if (ideal.length === 0 && relevant.size === 0) return null;
    return ndcgGraded(ranked, input.sample.relevance, relevant, ideal, k);
  }
  if (relevant.size === 0) return null;
  if (metric instanceof MAP) return averagePrecision(ranked, relevant, k);
  if (metric instanceof MRR) return reciprocalRank(ranked, relevant, k);
  if (metric instanceof Recall) return recallAt(ranked, relevant, k);
  if (metric instanceof Precision) return precisionAt(ranked, relevant, k);
  if (metric instanceof HitRate) return hitRateAt(ranked, relevant, k);
  return rPrecision(ranked, relevant);
}

describe("retrieval metrics against the computation they replaced", () => {
  for (const level of ["chunk", "document"] as const) {
    it(`give exactly its numbers at ${level} level, in any order of samples`, () => {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(sampleArb, rankingArb), { minLength: 1, maxLength: 5 }),
          fc.integer({ min: 1, max: 12 }),
          fc.array(fc.nat(), { maxLength: 40 }),
          (cases, k, order) => {
            const inputs: MetricInput[] = cases.map(([sample, ids]) => ({
              sample,
              answer: null,
              retrieved: chunksOf(ids, level),
              latencyMs: 0,
            }));
            const metrics = metricsFor(k, level);
            // Every (input, metric) pair once in order, then pairs picked at random.
            const calls = inputs.flatMap((_, i) => metrics.map((_, m) => i * metrics.length + m));
            const pairs = calls.length;
            for (const pick of order) calls.push(pick % pairs);
            for (const call of calls) {
              const input = inputs[Math.floor(call / metrics.length)] as MetricInput;
              const metric = metrics[call % metrics.length] as Metric;
              expect(metric.score(input), metric.name).toBe(reference(metric, input));
            }
          },
        ),
        { numRuns: 300 },
      );
    });
  }
});
