import { describe, expect, it } from "vitest";
import {
  fixedChunks,
  loadParagraphs,
  paragraphChunks,
  sentenceWindowChunks,
} from "../src/corpus.mjs";
import { main } from "../src/demo.mjs";

const DATA = new URL("../data/dev-v2.0.sample.json", import.meta.url).pathname;

// The official evaluate-v2.0.py scores of these prediction files (shared/data/README.md).
const OFFICIAL = {
  bidaf_selfattn_elmo: { exact: 62.61980830670927, f1: 64.61080149788741 },
  nlnet: { exact: 76.6773162939297, f1: 78.53795831431614 },
};

describe("the demo", () => {
  it("reproduces the official SQuAD scores and compares three chunkings", async () => {
    const lines: string[] = [];
    const { retrievalResults, answerResults } = await main({
      log: (s: string) => lines.push(s),
      saveReport: false,
    });
    for (const r of answerResults) {
      const official = OFFICIAL[r.name as keyof typeof OFFICIAL];
      expect(r.summary.exact_match?.mean).toBeCloseTo(official.exact / 100, 9);
      expect(r.summary.f1?.mean).toBeCloseTo(official.f1 / 100, 9);
      expect(r.status).toEqual({ successful: 626, errored: 0, incomplete: 0 });
    }
    expect(retrievalResults.map((r: { name: string }) => r.name)).toEqual([
      "bm25/paragraphs",
      "bm25/two-sentence",
      "bm25/fixed-300",
    ]);
    for (const r of retrievalResults) {
      // Every question has its paragraph as the relevant document: nothing is left unscored.
      expect(r.summary["recall@5"]?.count).toBe(626);
      expect(r.summary["recall@5"]?.mean).toBeGreaterThan(0.8);
    }
    const text = lines.join("\n");
    expect(text).toMatch(
      /→ nlnet wins on f1 \(0\.7854\), significantly better than bidaf_selfattn_elmo/,
    );
    expect(text).toMatch(/→ bm25\/\S+ (wins on|has the best) ndcg@5/);
  }, 60_000);

  it("cuts every chunking back to its paragraph", async () => {
    const paragraphs = await loadParagraphs(DATA);
    expect(paragraphs).toHaveLength(87);
    for (const chunker of [
      paragraphChunks,
      sentenceWindowChunks,
      (p: Parameters<typeof fixedChunks>[0]) => fixedChunks(p, 300),
    ]) {
      const chunks = chunker(paragraphs) as { id: string; documentId: string; text: string }[];
      expect(new Set(chunks.map((c) => c.id)).size).toBe(chunks.length);
      expect(new Set(chunks.map((c) => c.documentId)).size).toBe(87);
    }
    for (const c of fixedChunks(paragraphs, 300) as { text: string }[]) {
      // ~300 characters: a chunk only exceeds the size when a single word does.
      expect(c.text.length <= 300 || !c.text.includes(" ")).toBe(true);
    }
  });
});
