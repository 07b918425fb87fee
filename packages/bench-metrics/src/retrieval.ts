/**
 * Retrieval metrics, importable alone: `@fastrag/bench-metrics/retrieval`.
 *
 * They reproduce trec_eval (P, recall, success, recip_rank, map, map_cut, ndcg_cut, Rprec) on
 * its own test data.
 *
 * @module
 */
export { HitRate } from "./retrieval/hit-rate.js";
export { MAP } from "./retrieval/map.js";
export { MRR } from "./retrieval/mrr.js";
export { NDCG } from "./retrieval/ndcg.js";
export type {
  CutoffOptions,
  MatchLevel,
  OptionalCutoffOptions,
  RetrievalMetricOptions,
} from "./retrieval/options.js";
export { Precision } from "./retrieval/precision.js";
export { RPrecision } from "./retrieval/r-precision.js";
export { Recall } from "./retrieval/recall.js";
