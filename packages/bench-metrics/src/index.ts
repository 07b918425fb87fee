/**
 * Every metric of fastrag bench. Each group is also importable alone, so that a bundle carries
 * only what it uses: `@fastrag/bench-metrics/retrieval`, `/generation`, `/operational`.
 *
 * @module
 */
export * from "./generation.js";
export { Cost, Latency, type OperationalMetricOptions, Tokens } from "./operational.js";
export {
  type CutoffOptions,
  HitRate,
  MAP,
  type MatchLevel,
  MRR,
  NDCG,
  type OptionalCutoffOptions,
  Precision,
  Recall,
  type RetrievalMetricOptions,
  RPrecision,
} from "./retrieval.js";
