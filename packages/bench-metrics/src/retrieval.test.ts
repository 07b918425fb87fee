import {
  Benchmark,
  ConfigurationError,
  type EvalSample,
  type MetricInput,
  type RetrievedChunk,
} from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { HitRate, MAP, MRR, NDCG, Precision, Recall, RPrecision } from "./retrieval.js";

function sample(relevantIds: string[], relevance?: Record<string, number>): EvalSample {
  return {
    question: "q",
    expectedAnswers: [],
    relevantIds,
    ...(relevance === undefined ? {} : { relevance }),
  };
}

function input(s: EvalSample, ids: string[]): MetricInput {
  return { sample: s, answer: null, retrieved: ids.map((id) => ({ id })), latencyMs: 1 };
}

// Ranking d1..d5; relevant d2 (rank 2), d4 (rank 4) and d9 (never retrieved): R = 3.
const s = sample(["d2", "d4", "d9"]);
const run = input(s, ["d1", "d2", "d3", "d4", "d5"]);

describe("retrieval metrics on a hand-computed ranking", () => {
  it("recall@k is relevant-in-top-k over R", () => {
    expect(new Recall({ k: 1 }).score(run)).toBe(0);
    expect(new Recall({ k: 2 }).score(run)).toBeCloseTo(1 / 3, 15);
    expect(new Recall({ k: 5 }).score(run)).toBeCloseTo(2 / 3, 15);
    expect(new Recall({ k: 100 }).score(run)).toBeCloseTo(2 / 3, 15);
  });

  it("precision@k divides by k even when fewer were retrieved", () => {
    expect(new Precision({ k: 2 }).score(run)).toBe(0.5);
    expect(new Precision({ k: 5 }).score(run)).toBe(0.4);
    expect(new Precision({ k: 10 }).score(run)).toBe(0.2);
  });

  it("hit_rate@k is 1 once a relevant id is in the top k", () => {
    expect(new HitRate({ k: 1 }).score(run)).toBe(0);
    expect(new HitRate({ k: 2 }).score(run)).toBe(1);
  });

  it("mrr is 1 / rank of the first relevant id, 0 beyond the cutoff", () => {
    expect(new MRR().score(run)).toBe(0.5);
    expect(new MRR({ k: 1 }).score(run)).toBe(0);
    expect(new MRR({ k: 2 }).score(run)).toBe(0.5);
  });

  it("map averages precision at relevant ranks over R, map@k cuts first", () => {
    // (1/2 + 2/4) / 3
    expect(new MAP().score(run)).toBeCloseTo(1 / 3, 15);
    // only rank 2 is within k = 3: (1/2) / 3
    expect(new MAP({ k: 3 }).score(run)).toBeCloseTo(1 / 6, 15);
  });

  it("r_precision looks at the top R", () => {
    expect(new RPrecision().score(run)).toBeCloseTo(1 / 3, 15);
  });

  it("ndcg@k with binary gains", () => {
    const dcg = 1 / Math.log2(3) + 1 / Math.log2(5);
    const ideal = 1 + 1 / Math.log2(3) + 1 / Math.log2(4);
    expect(new NDCG({ k: 5 }).score(run)).toBeCloseTo(dcg / ideal, 15);
    // k = 1: nothing relevant at rank 1.
    expect(new NDCG({ k: 1 }).score(run)).toBe(0);
  });

  it("ndcg@k with graded relevance: gains from grades, ideal from every positive grade", () => {
    const graded = sample(["d2", "d4", "d9"], { d1: -1, d2: 3, d4: 1, d5: 0, d9: 2 });
    const score = new NDCG({ k: 5 }).score(input(graded, ["d1", "d2", "d3", "d4", "d5"]));
    const dcg = 3 / Math.log2(3) + 1 / Math.log2(5);
    const ideal = 3 + 2 / Math.log2(3) + 1 / Math.log2(4);
    expect(score).toBeCloseTo(dcg / ideal, 15);
  });

  it("binary measures follow relevantIds while ndcg gains follow every grade", () => {
    // As trec_eval -l2: relevantIds holds grade >= 2 only, d4 (grade 1) still gains in ndcg.
    const graded = sample(["d2"], { d2: 2, d4: 1 });
    const r = input(graded, ["d4", "d2"]);
    expect(new MRR().score(r)).toBe(0.5);
    expect(new Precision({ k: 1 }).score(r)).toBe(0);
    const dcg = 1 + 2 / Math.log2(3);
    const ideal = 2 + 1 / Math.log2(3);
    expect(new NDCG({ k: 2 }).score(r)).toBeCloseTo(dcg / ideal, 15);
  });

  it("ndcg scores a sample with no relevant id but a positive grade; binary measures leave it out", () => {
    // trec_eval -l2 on a query whose best document has grade 1: relevantIds is empty, yet
    // ndcg_cut gains from every positive grade (what `fastrag-bench eval -l` relies on).
    const below = input(sample([], { a: 1, b: 0 }), ["x", "a"]);
    expect(new NDCG({ k: 5 }).score(below)).toBeCloseTo(1 / Math.log2(3), 15);
    expect(new NDCG({ k: 1 }).score(below)).toBe(0);
    for (const m of [new Recall({ k: 5 }), new MAP(), new MRR(), new RPrecision()]) {
      expect(m.score(below)).toBeNull();
    }
  });

  it("an explicit grade wins over relevantIds: a relevant id graded 0 gains nothing", () => {
    // trec_eval -l0 with only grade-0 documents: the binary measures count them, nDCG has an
    // ideal DCG of 0 and scores 0 (not null: the sample has relevant ids).
    const zero = input(sample(["a", "b"], { a: 0, b: 0 }), ["a", "x"]);
    expect(new Recall({ k: 5 }).score(zero)).toBe(0.5);
    expect(new NDCG({ k: 5 }).score(zero)).toBe(0);
    // An id graded but not relevant still gains its grade, in DCG and in the ideal.
    const graded = input(sample(["a"], { b: 2 }), ["b", "a"]);
    expect(new NDCG({ k: 2 }).score(graded)).toBeCloseTo(1, 15);
    expect(new MRR().score(graded)).toBe(0.5);
  });

  it("a relevant id that relevance does not grade has gain 1", () => {
    const graded = sample(["a", "b"], { a: 3 });
    const score = new NDCG({ k: 2 }).score(input(graded, ["b", "a"]));
    expect(score).toBeCloseTo((1 + 3 / Math.log2(3)) / (3 + 1 / Math.log2(3)), 15);
  });

  it("a non-enumerable grade is no grade, so ndcg never passes 1", () => {
    // As Object.keys and JSON see the record: only a, graded 1; b relevant, so gain 1.
    const relevance: Record<string, number> = { a: 1 };
    Object.defineProperty(relevance, "b", { value: 3, enumerable: false });
    const graded = sample(["a", "b"], relevance);
    expect(new NDCG({ k: 2 }).score(input(graded, ["b", "a"]))).toBeCloseTo(1, 15);
    expect(new NDCG({ k: 1 }).score(input(graded, ["b"]))).toBeCloseTo(1, 15);
    // Not relevant either: gain 0.
    const unjudged = sample(["a"], relevance);
    expect(new NDCG({ k: 2 }).score(input(unjudged, ["b", "a"]))).toBeCloseTo(1 / Math.log2(3), 15);
  });
});

describe("edge cases", () => {
  const all = [
    new Recall({ k: 3 }),
    new Precision({ k: 3 }),
    new HitRate({ k: 3 }),
    new MRR(),
    new MAP(),
    new NDCG({ k: 3 }),
    new RPrecision(),
  ];

  it("a sample without relevant ids scores null, not 0", () => {
    for (const m of all) expect(m.score(input(sample([]), ["a", "b"]))).toBeNull();
    // Judged but nothing relevant (every grade <= 0): null too.
    for (const m of all) expect(m.score(input(sample([], { a: 0, b: -1 }), ["a"]))).toBeNull();
  });

  it("an empty ranking scores 0", () => {
    for (const m of all) expect(m.score(input(s, []))).toBe(0);
  });

  it("duplicates count once, at their first rank, and later ids move up", () => {
    const dup = input(sample(["a", "b"]), ["x", "a", "a", "a", "b"]);
    // Deduplicated ranking: x, a, b.
    expect(new Precision({ k: 3 }).score(dup)).toBeCloseTo(2 / 3, 15);
    expect(new Recall({ k: 2 }).score(dup)).toBe(0.5);
    expect(new MAP().score(dup)).toBeCloseTo((1 / 2 + 2 / 3) / 2, 15);
    expect(new MRR().score(input(sample(["a"]), ["a", "a"]))).toBe(1);
  });

  it("ndcg of grades near Number.MAX_VALUE is the same score as of small grades, not NaN", () => {
    const ndcg = new NDCG({ k: 3 });
    // Grades 1.5e308 and 1e308 score as 1.5 and 1 do: DCG of b, x, a = 1 + 1.5/log2(4);
    // ideal a, b = 1.5 + 1/log2(3). Each sum overflows a double at the real grades.
    const huge = input(sample(["a", "b"], { a: 1.5e308, b: 1e308 }), ["b", "x", "a"]);
    expect(ndcg.score(huge)).toBeCloseTo((1 + 1.5 / 2) / (1.5 + 1 / Math.log2(3)), 12);
    // Equal huge grades: DCG 1 + 1/log2(4) over ideal 1 + 1/log2(3).
    const equal = input(sample(["a", "b"], { a: 1.7e308, b: 1.7e308 }), ["b", "x", "a"]);
    expect(ndcg.score(equal)).toBeCloseTo(1.5 / (1 + 1 / Math.log2(3)), 12);
    expect(ndcg.score(input(sample(["a", "b"], { a: 1.7e308, b: 1.7e308 }), ["a", "b"]))).toBe(1);
  });

  it("document level matches documentId and keeps each document's first rank", () => {
    const chunks: RetrievedChunk[] = [
      { id: "c1", documentId: "A" },
      { id: "c2", documentId: "A" },
      { id: "c3", documentId: "B" },
      { id: "c4", documentId: "C" },
    ];
    const doc: MetricInput = {
      sample: sample(["B", "C"]),
      answer: null,
      retrieved: chunks,
      latencyMs: 0,
    };
    expect(new MRR({ level: "document" }).score(doc)).toBe(0.5);
    expect(new Recall({ k: 3, level: "document" }).score(doc)).toBe(1);
    expect(new Precision({ k: 3, level: "document" }).score(doc)).toBeCloseTo(2 / 3, 15);
    // At chunk level the same ids are not relevant at all.
    expect(new Recall({ k: 3 }).score(doc)).toBe(0);
  });

  it("document level without a documentId throws a reason, not a TypeError", () => {
    const doc: MetricInput = {
      sample: sample(["B"]),
      answer: null,
      retrieved: [{ id: "c1", documentId: "A" }, { id: "c2" }],
      latencyMs: 0,
    };
    expect(() => new MRR({ level: "document" }).score(doc)).toThrow(
      /chunk at rank 2 \(id the string "c2"\) has none/,
    );
  });
});

describe("names and options", () => {
  it("uses the names of DESIGN §3", () => {
    expect(new Recall({ k: 5 }).name).toBe("recall@5");
    expect(new Precision({ k: 5 }).name).toBe("precision@5");
    expect(new HitRate({ k: 5 }).name).toBe("hit_rate@5");
    expect(new MRR().name).toBe("mrr");
    expect(new MRR({ k: 10 }).name).toBe("mrr@10");
    expect(new MAP().name).toBe("map");
    expect(new MAP({ k: 100 }).name).toBe("map@100");
    expect(new NDCG({ k: 10 }).name).toBe("ndcg@10");
    expect(new RPrecision().name).toBe("r_precision");
    expect(new Recall({ k: 5, level: "document", name: "doc_recall@5" }).name).toBe("doc_recall@5");
  });

  it("declares direction and needs", () => {
    const m = new NDCG({ k: 3 });
    expect([m.higherIsBetter, m.needsRelevantIds, m.needsAnswer]).toEqual([true, true, false]);
  });

  it("rejects a k that is not a positive integer with a ConfigurationError", () => {
    for (const k of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "5", null]) {
      const make = () => new Recall({ k } as unknown as { k: number });
      expect(make).toThrow(ConfigurationError);
      expect(make).toThrow(/option k must be a positive integer/);
    }
    expect(() => new NDCG({} as unknown as { k: number })).toThrow(/found undefined/);
    expect(() => new MRR({ k: 0 })).toThrow(ConfigurationError);
    expect(() => new Precision(undefined as unknown as { k: number })).toThrow(
      "Precision: expected options, e.g. new Precision({ k: … }); it takes k, level, name",
    );
    expect(() => new Precision(5 as unknown as { k: number })).toThrow(
      /expected an options object, found the number 5/,
    );
  });

  it("rejects an unknown level and an empty name", () => {
    expect(() => new MAP({ level: "passage" as "chunk" })).toThrow(
      /level must be "chunk" or "document", found the string "passage"/,
    );
    expect(() => new RPrecision({ name: "" })).toThrow(ConfigurationError);
  });

  it("scores a reused input object by its current ranking and sample, not a cached one", () => {
    const metrics = [new Recall({ k: 2 }), new NDCG({ k: 2 }), new MAP()];
    const reused = input(sample(["d1"]), ["d1", "d2"]) as {
      -readonly [K in keyof MetricInput]: MetricInput[K];
    };
    expect(metrics.map((m) => m.score(reused))).toEqual([1, 1, 1]);
    reused.retrieved = [{ id: "d3" }, { id: "d4" }];
    expect(metrics.map((m) => m.score(reused))).toEqual([0, 0, 0]);
    reused.sample = sample(["d4"]);
    const [recall, ndcg, map] = metrics.map((m) => m.score(reused) as number);
    expect([recall, map]).toEqual([1, 0.5]);
    expect(ndcg).toBeCloseTo(1 / Math.log2(3), 12);
    reused.sample = sample(["d4"], { d4: 2, d3: 3 });
    // DCG = 3/log2(2) + 2/log2(3); ideal the same ranking: 1.
    expect(metrics[1]?.score(reused)).toBeCloseTo(1, 12);
  });

  it("scores a copy of an input changed in place by its new contents (README: one object, one state)", () => {
    const metrics = [new Recall({ k: 2 }), new NDCG({ k: 2 }), new MAP()];
    const retrieved: RetrievedChunk[] = [{ id: "d1" }, { id: "d2" }];
    const relevantIds = ["d1"];
    const relevance: Record<string, number> = { d1: 1 };
    const first: MetricInput = {
      sample: { question: "q", expectedAnswers: [], relevantIds, relevance },
      answer: null,
      retrieved,
      latencyMs: 0,
    };
    expect(metrics.map((m) => m.score(first))).toEqual([1, 1, 1]);
    // The same arrays and record, refilled: d2 relevant at rank 2, graded 3.
    retrieved.splice(0, 2, { id: "d3" }, { id: "d2" });
    relevantIds[0] = "d2";
    relevance.d2 = 3;
    delete relevance.d1;
    const [recall, ndcg, map] = metrics.map((m) => m.score({ ...first }) as number);
    expect([recall, map]).toEqual([1, 0.5]);
    // DCG 3/log2(3) over ideal 3/log2(2).
    expect(ndcg).toBeCloseTo(1 / Math.log2(3), 12);
  });

  it("rejects a misspelled option instead of leaving the default in force", () => {
    expect(() => new NDCG({ k: 10, levl: "document" } as never)).toThrow(
      'NDCG: unknown option "levl"; expected k, level, name',
    );
    expect(() => new MRR({ cutoff: 10 } as never)).toThrow(/MRR: unknown option "cutoff"/);
    expect(() => new RPrecision({ k: 5 } as never)).toThrow(
      /unknown option "k"; expected level, name/,
    );
    // Every documented option still passes.
    expect(new NDCG({ k: 10, level: "document", name: "ndcg_doc@10" }).name).toBe("ndcg_doc@10");
  });
});

describe("through the Benchmark runner", () => {
  it("records null for unjudged samples, which are not applicable: the sample stays successful", async () => {
    const dataset = [
      { id: "q1", question: "one", expectedAnswers: [], relevantIds: ["a"] },
      { id: "q2", question: "two", expectedAnswers: [], relevantIds: [] },
    ];
    const retriever = {
      retrieve: async () => [{ id: "b" }, { id: "a" }],
    };
    const result = await new Benchmark({
      dataset,
      metrics: [new MRR(), new Recall({ k: 1 })],
    }).run(retriever, { name: "r" });
    expect(result.samples[0]?.scores).toEqual({ mrr: 0.5, "recall@1": 0 });
    expect(result.samples[1]?.scores).toEqual({ mrr: null, "recall@1": null });
    // A sample with no relevant ids is not applicable to retrieval metrics, not a failure.
    expect(result.samples[1]?.status).toBe("successful");
    expect(result.samples[1]?.error).toBeNull();
  });
});

describe("per-sample preparation", () => {
  it("is not fooled by a target that refills one array across samples", async () => {
    const buffer: { id: string }[] = [];
    const retriever = {
      retrieve: async (q: string) => {
        buffer.length = 0;
        buffer.push({ id: q === "one" ? "a" : "b" });
        return buffer;
      },
    };
    const dataset = [
      { id: "q1", question: "one", expectedAnswers: [], relevantIds: ["a"] },
      { id: "q2", question: "two", expectedAnswers: [], relevantIds: ["a"] },
    ];
    const result = await new Benchmark({
      dataset,
      metrics: [new MRR(), new Recall({ k: 1 })],
      maxConcurrent: 1,
    }).run(retriever, { name: "reused-buffer" });
    expect(result.samples.map((s) => s.scores.mrr)).toEqual([1, 0]);
  });
});
