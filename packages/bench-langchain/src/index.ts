export type { DocumentMapping } from "./documents.js";
export { type FromRetrieverOptions, fromRetriever } from "./from-retriever.js";
export { type FromRunnableOptions, fromRunnable } from "./from-runnable.js";
