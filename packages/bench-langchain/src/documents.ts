import { ConfigurationError, type RetrievedChunk } from "@fastrag/bench-core";
import { describeValue, optionsObject, stringOption } from "@fastrag/bench-core/internal";
import type { DocumentInterface } from "@langchain/core/documents";

/** How LangChain documents map onto retrieved chunks (options of `fromRetriever` and `fromRunnable`). */
export interface DocumentMapping {
  /**
   * The metadata key that holds the chunk id, read when a document has no `Document.id` (many
   * vector stores return documents without one). A document with neither is an error.
   */
  readonly idKey?: string;
  /**
   * The metadata key that holds the id of the document the chunk belongs to (e.g. `"doc_id"`),
   * mapped to `documentId` for document-level retrieval metrics (`{ level: "document" }`).
   */
  readonly documentIdKey?: string;
  /** The metadata key mapped to `uri`. Default `"source"` (set by LangChain's document loaders). */
  readonly uriKey?: string;
  /** The metadata key that holds the retrieval score, mapped to `score`. */
  readonly scoreKey?: string;
}

/** The option names of {@link DocumentMapping}. */
export const MAPPING_OPTIONS: readonly string[] = ["idKey", "documentIdKey", "uriKey", "scoreKey"];

/** A validated {@link DocumentMapping}. */
export interface Mapping {
  readonly where: string;
  readonly idKey: string | undefined;
  readonly documentIdKey: string | undefined;
  readonly uriKey: string;
  readonly scoreKey: string | undefined;
}

/** Validates the mapping options of `where` (`fromRetriever`, `fromRunnable`). */
export function readMapping(where: string, o: Record<string, unknown>): Mapping {
  return {
    where,
    idKey: stringOption(where, "idKey", o.idKey),
    documentIdKey: stringOption(where, "documentIdKey", o.documentIdKey),
    uriKey: stringOption(where, "uriKey", o.uriKey) ?? "source",
    scoreKey: stringOption(where, "scoreKey", o.scoreKey),
  };
}

export { optionsObject };

function idText(value: unknown): string | undefined {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

function preview(text: unknown): string {
  if (typeof text !== "string") return "";
  const t = text.replace(/\s+/g, " ").trim();
  return ` (${JSON.stringify(t.length > 40 ? `${t.slice(0, 37)}...` : t)})`;
}

/**
 * LangChain documents as retrieved chunks, in the order given: `Document.id`, else
 * `metadata[idKey]`, is the id; `pageContent` the text.
 *
 * @throws {ConfigurationError} for a value that is not a list of documents, or a document
 * without an id, naming its rank, the start of its text, its metadata keys and the option to set.
 */
export function toChunks(documents: unknown, m: Mapping, what: string): RetrievedChunk[] {
  if (!Array.isArray(documents)) {
    throw new ConfigurationError(
      `${m.where}: expected ${what} to be an array of LangChain documents, found ${describeValue(documents)}`,
      { kind: "invalid-input", field: what },
    );
  }
  const chunks: RetrievedChunk[] = [];
  for (let i = 0; i < documents.length; i++) {
    const doc: unknown = documents[i];
    if (
      typeof doc !== "object" ||
      doc === null ||
      typeof (doc as DocumentInterface).pageContent !== "string"
    ) {
      throw new ConfigurationError(
        `${m.where}: expected ${what}[${i}] to be a LangChain Document { pageContent, metadata }, found ${describeValue(doc)}`,
        { kind: "invalid-input", field: `${what}[${i}]` },
      );
    }
    const d = doc as DocumentInterface;
    const metadata: Record<string, unknown> =
      typeof d.metadata === "object" && d.metadata !== null ? d.metadata : {};
    let id = idText(d.id);
    if (id === undefined && m.idKey !== undefined) id = idText(metadata[m.idKey]);
    if (id === undefined) {
      const keys = Object.keys(metadata);
      const has =
        keys.length === 0 ? "it has no metadata" : `its metadata keys: ${keys.join(", ")}`;
      const fix =
        m.idKey === undefined
          ? `set the option idKey to the metadata key that holds the chunk id, e.g. ${m.where}(…, { idKey: "chunk_id" }), or give the documents ids`
          : `metadata.${m.idKey} is missing or not a string or number`;
      throw new ConfigurationError(
        `${m.where}: ${what}[${i}]${preview(d.pageContent)} has no id: Document.id is empty and ${fix} (${has})`,
        { kind: "invalid-input", field: `${what}[${i}].id` },
      );
    }
    let chunk: RetrievedChunk = { id, text: d.pageContent };
    if (m.documentIdKey !== undefined) {
      const documentId = idText(metadata[m.documentIdKey]);
      if (documentId === undefined) {
        throw new ConfigurationError(
          `${m.where}: ${what}[${i}] (id ${JSON.stringify(id)}) has no metadata.${m.documentIdKey} (the documentIdKey option), found ${describeValue(metadata[m.documentIdKey])}`,
          { kind: "invalid-input", field: `${what}[${i}].metadata.${m.documentIdKey}` },
        );
      }
      chunk = { ...chunk, documentId };
    }
    const uri = metadata[m.uriKey];
    if (typeof uri === "string" && uri !== "") chunk = { ...chunk, uri };
    if (m.scoreKey !== undefined) {
      const score = metadata[m.scoreKey];
      if (typeof score === "number" && Number.isFinite(score)) chunk = { ...chunk, score };
    }
    chunks.push(chunk);
  }
  return chunks;
}
