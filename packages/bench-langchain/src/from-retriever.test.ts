import { Benchmark, ConfigurationError, type EvalSample } from "@fastrag/bench-core";
import { NDCG, Recall } from "@fastrag/bench-metrics/retrieval";
import { Document } from "@langchain/core/documents";
import { BaseRetriever } from "@langchain/core/retrievers";
import { describe, expect, it } from "vitest";
import { store } from "./__fixtures__/langchain.js";
import { fromRetriever } from "./index.js";

const call = (sample: EvalSample, signal = new AbortController().signal) => ({ signal, sample });
const sample: EvalSample = { question: "colosseum rome", expectedAnswers: [], relevantIds: ["c3"] };

/** A retriever that waits `ms` (or its run's abort) and returns `docs`. */
class SlowRetriever extends BaseRetriever {
  override lc_namespace = ["fastrag", "test"];
  constructor(
    private readonly docs: Document[],
    private readonly ms: number,
  ) {
    super({});
  }
  override async _getRelevantDocuments(): Promise<Document[]> {
    await new Promise((r) => setTimeout(r, this.ms));
    return this.docs;
  }
}

describe("fromRetriever (a vector store's retriever, @langchain/core)", () => {
  it("maps Document.id, pageContent, documentIdKey and source, in the store's order", async () => {
    const retriever = (await store(true)).asRetriever({ k: 2 });
    const chunks = await fromRetriever(retriever, { documentIdKey: "doc_id" }).retrieve(
      "colosseum rome",
      call(sample),
    );
    // cosine with "colosseum rome": c3 2/√10 ≈ 0.632, c4 1/√12 ≈ 0.289, c1 and c2 0
    expect(chunks).toEqual([
      { id: "c3", documentId: "rome", uri: "corpus/rome.txt", text: "The Colosseum is in Rome." },
      {
        id: "c4",
        documentId: "rome",
        uri: "corpus/rome.txt",
        text: "Rome is the capital of Italy.",
      },
    ]);
  });

  it("reads the chunk id from a metadata key when the documents have no id", async () => {
    const retriever = (await store(false)).asRetriever({ k: 3 });
    const chunks = await fromRetriever(retriever, { idKey: "chunk_id" }).retrieve(
      "eiffel tower paris",
      call(sample),
    );
    // c1 shares 3 of its words, c2 one: then c3 and c4 tie at 0, in insertion order
    expect(chunks.map((c) => c.id)).toEqual(["c1", "c2", "c3"]);
  });

  it("fails the first sample with an error naming idKey when a document has no id", async () => {
    const retriever = (await store(false)).asRetriever({ k: 2 });
    const dataset: EvalSample[] = [sample];
    const result = await new Benchmark({ dataset, metrics: [new Recall({ k: 2 })] }).run(
      fromRetriever(retriever),
      { name: "no-ids" },
    );
    const s = result.samples[0];
    expect(s?.status).toBe("errored");
    expect(s?.error).toBe(
      'fromRetriever: the retrieved documents[0] ("The Colosseum is in Rome.") has no id: Document.id is empty and set the option idKey to the metadata key that holds the chunk id, e.g. fromRetriever(…, { idKey: "chunk_id" }), or give the documents ids (its metadata keys: chunk_id, doc_id, source)',
    );
    const named = fromRetriever(retriever, { idKey: "chunk" });
    await expect(named.retrieve("rome", call(sample))).rejects.toThrow(
      /has no id: Document.id is empty and metadata.chunk is missing/,
    );
  });

  it("scores a Benchmark run at chunk and document level", async () => {
    const retriever = (await store(true)).asRetriever({ k: 2 });
    const dataset: EvalSample[] = [
      { id: "q1", question: "colosseum rome", expectedAnswers: [], relevantIds: ["c4"] },
      { id: "q2", question: "eiffel tower", expectedAnswers: [], relevantIds: ["paris"] },
    ];
    const result = await new Benchmark({
      dataset,
      metrics: [
        new Recall({ k: 1 }),
        new Recall({ k: 2, name: "recall@2" }),
        new NDCG({ k: 2, level: "document", name: "doc_ndcg@2" }),
      ],
    }).run(fromRetriever(retriever, { documentIdKey: "doc_id" }), { name: "lc" });
    // q1 ranks c3, c4: c4 at rank 2. q2 ranks c1 (paris), then c2 (paris).
    expect(result.samples.map((s) => s.scores)).toEqual([
      { "recall@1": 0, "recall@2": 1, "doc_ndcg@2": 0 },
      { "recall@1": 0, "recall@2": 0, "doc_ndcg@2": 1 },
    ]);
  });

  it("passes the run's signal: an abort stops a slow retriever at once", async () => {
    const slow = new SlowRetriever([new Document({ pageContent: "x", id: "a" })], 5_000);
    const controller = new AbortController();
    const started = performance.now();
    const pending = fromRetriever(slow).retrieve("q", call(sample, controller.signal));
    setTimeout(() => controller.abort(new Error("run aborted")), 50);
    await expect(pending).rejects.toThrow("run aborted");
    // Well under the retriever's 5 s, with room for a loaded machine.
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  it("refuses what is not a retriever and malformed options", () => {
    expect(() => fromRetriever({} as never)).toThrow(
      /fromRetriever: expected a LangChain retriever .* found an object/,
    );
    expect(() =>
      fromRetriever({ invoke: async () => [] } as never, { idkey: "x" } as never),
    ).toThrow(/unknown option "idkey"; expected one of idKey, documentIdKey, uriKey, scoreKey/);
    let thrown: unknown;
    try {
      fromRetriever({ invoke: async () => [] } as never, { idKey: "" });
    } catch (error) {
      thrown = error;
    }
    expect(ConfigurationError.isInstance(thrown)).toBe(true);
  });

  it("maps uriKey and scoreKey, and requires documentIdKey's field once it is set", async () => {
    const docs = [
      new Document({
        id: "a",
        pageContent: "alpha",
        metadata: { url: "https://x/a", relevance: 0.9, doc: 7 },
      }),
      new Document({
        id: "b",
        pageContent: "beta",
        metadata: { url: "", relevance: "high", doc: 8 },
      }),
    ];
    const retriever = { invoke: async () => docs };
    const chunks = await fromRetriever(retriever as never, {
      uriKey: "url",
      scoreKey: "relevance",
      documentIdKey: "doc",
    }).retrieve("q", call(sample));
    // An empty uri and a non-numeric score are left out, not invented; numeric ids become text.
    expect(chunks).toEqual([
      { id: "a", text: "alpha", uri: "https://x/a", score: 0.9, documentId: "7" },
      { id: "b", text: "beta", documentId: "8" },
    ]);
    await expect(
      fromRetriever(retriever as never, { documentIdKey: "document" }).retrieve("q", call(sample)),
    ).rejects.toThrow(
      'fromRetriever: the retrieved documents[0] (id "a") has no metadata.document (the documentIdKey option), found undefined',
    );
  });

  it("refuses a retriever that returns something other than documents, naming the rank", async () => {
    const bad = {
      invoke: async () => [new Document({ pageContent: "ok", id: "a" }), { text: "x" }],
    };
    await expect(fromRetriever(bad as never).retrieve("q", call(sample))).rejects.toThrow(
      "fromRetriever: expected the retrieved documents[1] to be a LangChain Document { pageContent, metadata }, found an object",
    );
  });
});
