import type { MatchLevel } from "../internal/judgments.js";

export type { MatchLevel } from "../internal/judgments.js";

/** Options shared by every retrieval metric. */
export interface RetrievalMetricOptions {
  /**
   * What to match against the relevant ids: `"chunk"` (default) matches `RetrievedChunk.id`;
   * `"document"` matches `RetrievedChunk.documentId`, each document ranking where its first chunk
   * does, so runs with different chunkings can be judged against one document-level truth.
   */
  readonly level?: MatchLevel;
  /**
   * Overrides the metric's name (the key in results). Only needed to run the same metric twice
   * in one benchmark, e.g. at both levels: `new Recall({ k: 5, level: "document", name: "doc_recall@5" })`.
   */
  readonly name?: string;
}

/** Options of a metric with a required cutoff: `Recall`, `Precision`, `HitRate`, `NDCG`. */
export interface CutoffOptions extends RetrievalMetricOptions {
  /** Only the first `k` ranks count. A positive integer. */
  readonly k: number;
}

/** Options of a metric whose cutoff is optional: `MRR`, `MAP`. */
export interface OptionalCutoffOptions extends RetrievalMetricOptions {
  /** Only the first `k` ranks count; omitted, the whole ranking does. A positive integer. */
  readonly k?: number;
}
