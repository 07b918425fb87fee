import { ConfigurationError, type MetricInput, type RetrievedChunk } from "@fastrag/bench-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { citedIds } from "./citations.js";
import { CitedChunkPrecision } from "./cited-chunk-precision.js";

function input(answer: string | null, retrieved: RetrievedChunk[]): MetricInput {
  return {
    sample: { question: "q", expectedAnswers: [], relevantIds: [] },
    answer,
    retrieved,
    latencyMs: 0,
  };
}

const chunks = [{ id: "doc-1" }, { id: "doc-2" }, { id: "doc-3" }];

describe("citedIds", () => {
  it("reads single and comma-separated citations, once each, in order", () => {
    expect(citedIds("Paris [doc-1], since 1889 [doc-3, doc-1].")).toEqual(["doc-1", "doc-3"]);
    expect(citedIds("no citations here")).toEqual([]);
  });

  it("ignores Markdown links and bracketed prose", () => {
    expect(citedIds("see [the docs](https://x.y) and [two words] [doc-2]")).toEqual(["doc-2"]);
  });
});

describe("CitedChunkPrecision", () => {
  const metric = new CitedChunkPrecision();

  it("is the share of cited ids that were retrieved", () => {
    expect(metric.name).toBe("cited_chunk_precision");
    expect(metric.score(input("A [doc-1] B [doc-3]", chunks))).toBe(1);
    // doc-9 was never retrieved: 2 of 3 citations are grounded.
    expect(metric.score(input("A [doc-1] B [doc-9] C [doc-2]", chunks))).toBeCloseTo(2 / 3, 15);
    expect(metric.score(input("Only [doc-9]", chunks))).toBe(0);
  });

  it("counts a repeated citation once", () => {
    expect(metric.score(input("[doc-9] [doc-1] [doc-1] [doc-1]", chunks))).toBe(0.5);
  });

  it("is null when the answer cites nothing (or there is no answer)", () => {
    expect(metric.score(input("Paris.", chunks))).toBeNull();
    expect(metric.score(input(null, chunks))).toBeNull();
  });

  it("matches documents at document level", () => {
    const byDoc = new CitedChunkPrecision({ level: "document" });
    const retrieved = [
      { id: "c1", documentId: "report.pdf" },
      { id: "c2", documentId: "memo.txt" },
    ];
    expect(byDoc.score(input("[report.pdf] and [c1]", retrieved))).toBe(0.5);
  });

  it("takes a custom citation syntax", () => {
    const caret = new CitedChunkPrecision({ pattern: /\^(\w+)/g, name: "caret_citations" });
    expect(caret.name).toBe("caret_citations");
    expect(caret.score(input("Paris ^doc1 ^doc7", [{ id: "doc1" }]))).toBe(0.5);
  });

  it("rejects misuse with a ConfigurationError", () => {
    expect(() => new CitedChunkPrecision({ pattern: /\[(\w+)\]/ })).toThrow(ConfigurationError);
    expect(() => new CitedChunkPrecision({ pattern: /\[\w+\]/g })).toThrow(/capture the cited id/);
    expect(() => new CitedChunkPrecision({ level: "page" as "chunk" })).toThrow(
      /level must be "chunk" or "document", found the string "page"/,
    );
    expect(() => new CitedChunkPrecision({ name: "" })).toThrow(
      'CitedChunkPrecision: option name must be a non-empty string, found the string ""',
    );
    expect(() => new CitedChunkPrecision({ levl: "document" } as never)).toThrow(
      'CitedChunkPrecision: unknown option "levl"; expected pattern, level, name',
    );
  });
});

describe("CitedChunkPrecision properties", () => {
  const id = fc.constantFrom("doc-1", "doc-2", "doc-3", "doc-4", "doc-9");
  const cite = (ids: string[]) => ids.map((i) => `claim [${i}]`).join(" ");

  it("lies in [0, 1], or is null exactly when nothing is cited", () => {
    fc.assert(
      fc.property(fc.array(id, { maxLength: 8 }), fc.array(id, { maxLength: 5 }), (cited, got) => {
        const v = new CitedChunkPrecision().score(
          input(
            cite(cited),
            got.map((i) => ({ id: i })),
          ),
        );
        if (cited.length === 0) expect(v).toBeNull();
        else expect(v !== null && v >= 0 && v <= 1).toBe(true);
      }),
    );
  });

  it("repeating a citation never changes the score", () => {
    fc.assert(
      fc.property(fc.array(id, { minLength: 1, maxLength: 8 }), fc.nat(), (cited, n) => {
        const metric = new CitedChunkPrecision();
        const again = [...cited, cited[n % cited.length] as string];
        expect(metric.score(input(cite(again), chunks))).toBe(
          metric.score(input(cite(cited), chunks)),
        );
      }),
    );
  });
});
