/**
 * Real `@langchain/core` objects for the tests: deterministic word-count embeddings, an
 * in-memory vector store that keeps `Document.id`, and a chat model that reports
 * `usage_metadata`. All are subclasses of core's own base classes.
 */
import { Document } from "@langchain/core/documents";
import { Embeddings } from "@langchain/core/embeddings";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { VectorStore } from "@langchain/core/vectorstores";

const VOCABULARY = [
  "eiffel",
  "tower",
  "paris",
  "france",
  "capital",
  "colosseum",
  "rome",
  "italy",
  "is",
  "the",
  "in",
  "of",
];

export function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z]+/g) ?? [];
}

/** One dimension per vocabulary word, the word's count: cosine is then hand-computable. */
export class WordCountEmbeddings extends Embeddings {
  constructor() {
    super({});
  }

  embedQuery(text: string): Promise<number[]> {
    const ws = words(text);
    return Promise.resolve(VOCABULARY.map((v) => ws.filter((w) => w === v).length));
  }

  embedDocuments(texts: string[]): Promise<number[][]> {
    return Promise.all(texts.map((t) => this.embedQuery(t)));
  }
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] ?? 0) * (b[i] ?? 0);
    na += (a[i] ?? 0) ** 2;
    nb += (b[i] ?? 0) ** 2;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** An in-memory vector store: exact cosine, ties in insertion order, ids kept when given. */
export class InMemoryStore extends VectorStore {
  declare FilterType: (doc: Document) => boolean;
  private readonly rows: { vector: number[]; doc: Document }[] = [];

  _vectorstoreType(): string {
    return "fixture-memory";
  }

  async addVectors(
    vectors: number[][],
    documents: Document[],
    options?: { ids?: string[] },
  ): Promise<void> {
    documents.forEach((d, i) => {
      const id = options?.ids?.[i] ?? d.id;
      this.rows.push({
        vector: vectors[i] ?? [],
        doc: new Document({
          pageContent: d.pageContent,
          metadata: d.metadata,
          ...(id === undefined ? {} : { id }),
        }),
      });
    });
  }

  async addDocuments(documents: Document[], options?: { ids?: string[] }): Promise<void> {
    const vectors = await this.embeddings.embedDocuments(documents.map((d) => d.pageContent));
    await this.addVectors(vectors, documents, options);
  }

  async similaritySearchVectorWithScore(query: number[], k: number): Promise<[Document, number][]> {
    return this.rows
      .map((r, i) => ({ r, i, s: cosine(query, r.vector) }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, k)
      .map(({ r, s }) => [r.doc, s]);
  }
}

/** A chat model that answers with `reply(lastHumanText)` and reports fixed token counts. */
export class UsageChatModel extends BaseChatModel {
  calls = 0;
  constructor(
    private readonly reply: (text: string) => string,
    private readonly tokens: { input: number; output: number },
  ) {
    super({});
  }

  _llmType(): string {
    return "fixture-usage";
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls++;
    const last = messages[messages.length - 1];
    const text = this.reply(typeof last?.content === "string" ? last.content : "");
    const { input, output } = this.tokens;
    const message = new AIMessage({
      content: text,
      usage_metadata: { input_tokens: input, output_tokens: output, total_tokens: input + output },
    });
    return { generations: [{ text, message }] };
  }
}

/** The corpus: four passages over two documents. */
export const PASSAGES: { id: string; text: string; doc: string }[] = [
  { id: "c1", text: "The Eiffel Tower is in Paris.", doc: "paris" },
  { id: "c2", text: "Paris is the capital of France.", doc: "paris" },
  { id: "c3", text: "The Colosseum is in Rome.", doc: "rome" },
  { id: "c4", text: "Rome is the capital of Italy.", doc: "rome" },
];

/** A store over {@link PASSAGES}: with `Document.id`s, or with the id only in metadata. */
export async function store(withIds: boolean): Promise<InMemoryStore> {
  const s = new InMemoryStore(new WordCountEmbeddings(), {});
  await s.addDocuments(
    PASSAGES.map(
      (p) =>
        new Document({
          pageContent: p.text,
          metadata: { chunk_id: p.id, doc_id: p.doc, source: `corpus/${p.doc}.txt` },
        }),
    ),
    withIds ? { ids: PASSAGES.map((p) => p.id) } : {},
  );
  return s;
}
