import type { Retriever } from "@fastrag/bench-core";
import type { BaseRetrieverInterface } from "@langchain/core/retrievers";
import {
  type DocumentMapping,
  MAPPING_OPTIONS,
  optionsObject,
  readMapping,
  toChunks,
} from "./documents.js";
import { abortable } from "./internal/abortable.js";
import { expectInvokable } from "./internal/invokable.js";

/** Options of {@link fromRetriever}. */
export interface FromRetrieverOptions extends DocumentMapping {}

/**
 * A LangChain.js retriever (a `BaseRetriever`, e.g. `vectorStore.asRetriever({ k: 5 })`) as a
 * fastrag bench `Retriever`. Each question is `invoke`d with the run's `signal` (and the call
 * is given up when it aborts, though LangChain does not pass it on to `_getRelevantDocuments`); the documents
 * come back as chunks in the retriever's order: `Document.id` (else `metadata[idKey]`) is the
 * chunk id, `pageContent` the text, `metadata[documentIdKey]` the `documentId`,
 * `metadata[uriKey]` (default `"source"`) the `uri`.
 *
 * A document without an id fails the first sample with a `ConfigurationError` naming the
 * `idKey` option and the document's metadata keys: a chunk id is what `Recall` and its siblings
 * match against, so guessing one would score nonsense.
 *
 * @throws {ConfigurationError} when `retriever` has no `invoke` method or an option is malformed.
 *
 * @example
 * ```ts
 * import { fromRetriever } from "@fastrag/bench-langchain";
 *
 * const target = fromRetriever(vectorStore.asRetriever({ k: 10 }), { idKey: "chunk_id" });
 * const result = await benchmark.run(target, { name: "langchain-k10" });
 * ```
 */
export function fromRetriever(
  retriever: BaseRetrieverInterface,
  options?: FromRetrieverOptions,
): Retriever {
  const where = "fromRetriever";
  expectInvokable(
    where,
    retriever,
    "a LangChain retriever (an object with invoke(query, config), e.g. vectorStore.asRetriever())",
    "retriever",
  );
  const mapping = readMapping(where, optionsObject(where, options, MAPPING_OPTIONS));
  return {
    async retrieve(query, { signal }) {
      const documents = await abortable(retriever.invoke(query, { signal }), signal);
      return toChunks(documents, mapping, "the retrieved documents");
    },
  };
}
