// A BM25 retriever over chunks, built on MiniSearch (whose ranking is BM25+).
import MiniSearch from "minisearch";

const STOPWORDS = new Set(
  "a an the of in on at to for from by with and or is are was were be been what which who whom whose when where why how did do does that this these those it its as into than then there their".split(
    " ",
  ),
);

/**
 * @param {import("./corpus.mjs").Chunk[]} chunks
 * @param {{ topK?: number }} [options]
 * @returns {import("@fastrag/bench-core").Retriever}
 */
export function bm25Retriever(chunks, { topK = 10 } = {}) {
  const index = new MiniSearch({
    fields: ["title", "text"],
    storeFields: ["documentId"],
    processTerm: (term) => {
      const t = term.toLowerCase();
      return STOPWORDS.has(t) ? null : t;
    },
    searchOptions: { boost: { text: 2 } },
  });
  index.addAll(chunks);
  return {
    async retrieve(question) {
      const hits = index.search(question).slice(0, topK);
      return hits.map((h) => ({ id: String(h.id), documentId: h.documentId, score: h.score }));
    },
  };
}
