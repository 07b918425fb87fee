import type { EvalSample, Metric, MetricInput } from "@fastrag/bench-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HitRate, MAP, MRR, NDCG, Precision, Recall, RPrecision } from "./retrieval.js";

const ID = fc.constantFrom(...Array.from({ length: 12 }, (_, i) => `d${i}`));
const K = fc.integer({ min: 1, max: 15 });

/** Graded judgments over the id alphabet: relevantIds are the ids with a grade ≥ 1. */
const judged = fc
  .dictionary(ID, fc.integer({ min: -1, max: 4 }), { maxKeys: 12 })
  .map((relevance) => ({
    relevance,
    relevantIds: Object.keys(relevance).filter((id) => (relevance[id] as number) >= 1),
  }));

function input(relevantIds: string[], relevance: Record<string, number>, ids: readonly string[]) {
  const sample: EvalSample = { question: "q", expectedAnswers: [], relevantIds, relevance };
  return { sample, answer: null, retrieved: ids.map((id) => ({ id })), latencyMs: 0 };
}

function metricsAt(k: number): Metric[] {
  return [
    new Recall({ k }),
    new Precision({ k }),
    new HitRate({ k }),
    new MRR({ k }),
    new MAP({ k }),
    new NDCG({ k }),
  ];
}

function scoreAll(metrics: Metric[], i: MetricInput): (number | null)[] {
  return metrics.map((m) => m.score(i) as number | null);
}

describe("retrieval metric properties", () => {
  it("every score lies in [0, 1] or is null", () => {
    fc.assert(
      fc.property(judged, fc.array(ID, { maxLength: 30 }), K, (j, ids, k) => {
        const i = input(j.relevantIds, j.relevance, ids);
        for (const m of [...metricsAt(k), new MRR(), new MAP(), new RPrecision()]) {
          const v = m.score(i) as number | null;
          if (v !== null) expect(v >= 0 && v <= 1, `${m.name} = ${v}`).toBe(true);
        }
      }),
    );
  });

  it("is null exactly when nothing is relevant", () => {
    fc.assert(
      fc.property(judged, fc.array(ID, { maxLength: 20 }), (j, ids) => {
        const i = input(j.relevantIds, j.relevance, ids);
        expect(new Recall({ k: 5 }).score(i) === null).toBe(j.relevantIds.length === 0);
        expect(new NDCG({ k: 5 }).score(i) === null).toBe(j.relevantIds.length === 0);
      }),
    );
  });

  it("@k metrics ignore everything below rank k", () => {
    fc.assert(
      fc.property(
        judged,
        fc.uniqueArray(ID, { minLength: 1, maxLength: 12 }),
        fc.array(ID, { maxLength: 20 }),
        fc.array(ID, { maxLength: 20 }),
        (j, head, tailA, tailB) => {
          const k = head.length;
          const a = scoreAll(metricsAt(k), input(j.relevantIds, j.relevance, [...head, ...tailA]));
          const b = scoreAll(metricsAt(k), input(j.relevantIds, j.relevance, [...head, ...tailB]));
          expect(a).toEqual(b);
        },
      ),
    );
  });

  it("recall@k never decreases as k grows", () => {
    fc.assert(
      fc.property(judged, fc.array(ID, { maxLength: 30 }), K, (j, ids, k) => {
        fc.pre(j.relevantIds.length > 0);
        const i = input(j.relevantIds, j.relevance, ids);
        const low = new Recall({ k }).score(i) as number;
        const high = new Recall({ k: k + 1 }).score(i) as number;
        expect(high).toBeGreaterThanOrEqual(low);
      }),
    );
  });

  it("ndcg is 1 for an ideal ranking", () => {
    fc.assert(
      fc.property(judged, K, fc.array(ID, { maxLength: 10 }), (j, k, junk) => {
        fc.pre(j.relevantIds.length > 0);
        const ideal = Object.keys(j.relevance)
          .filter((id) => (j.relevance[id] as number) > 0)
          .sort((x, y) => (j.relevance[y] as number) - (j.relevance[x] as number));
        const v = new NDCG({ k }).score(input(j.relevantIds, j.relevance, [...ideal, ...junk]));
        expect(v).toBeCloseTo(1, 12);
      }),
    );
  });

  it("reordering the relevant set changes nothing", () => {
    fc.assert(
      fc.property(judged, fc.array(ID, { maxLength: 20 }), K, fc.integer(), (j, ids, k, seed) => {
        const shuffled = shuffle(j.relevantIds, seed);
        const reversedRelevance: Record<string, number> = {};
        for (const id of Object.keys(j.relevance).reverse()) {
          reversedRelevance[id] = j.relevance[id] as number;
        }
        const metrics = [...metricsAt(k), new RPrecision()];
        expect(scoreAll(metrics, input(shuffled, reversedRelevance, ids))).toEqual(
          scoreAll(metrics, input(j.relevantIds, j.relevance, ids)),
        );
      }),
    );
  });

  it("duplicates never inflate a score", () => {
    fc.assert(
      fc.property(
        judged,
        fc.uniqueArray(ID, { maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 10 }),
        K,
        (j, ids, inserts, k) => {
          fc.pre(ids.length > 0);
          const withDup = [...ids];
          // A duplicate goes anywhere after the id's first occurrence.
          for (const [from, at] of inserts) {
            const id = ids[from % ids.length] as string;
            const first = withDup.indexOf(id);
            withDup.splice(first + 1 + (at % (withDup.length - first)), 0, id);
          }
          const metrics = [...metricsAt(k), new RPrecision()];
          const clean = scoreAll(metrics, input(j.relevantIds, j.relevance, ids));
          const dup = scoreAll(metrics, input(j.relevantIds, j.relevance, withDup));
          for (let m = 0; m < metrics.length; m++) {
            if (clean[m] === null) expect(dup[m]).toBeNull();
            else expect(dup[m] as number).toBeLessThanOrEqual(clean[m] as number);
          }
        },
      ),
    );
  });
});

function shuffle<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed | 0;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) | 0;
    const j = Math.abs(s) % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
