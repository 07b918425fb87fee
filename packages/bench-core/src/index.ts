export {
  Benchmark,
  type BenchmarkOptions,
  type DatasetLike,
  errorMessage,
  type RetryOptions,
  type RunOptions,
} from "./benchmark.js";
export {
  ConfigurationError,
  FastragBenchError,
  JournalWriteError,
  MetricUnavailableError,
  RunAbortedError,
} from "./errors.js";
export { writeFileAtomic } from "./internal/atomic-write.js";
export { fingerprintSamples } from "./internal/fingerprint.js";
export { firstInvalidUtf8 } from "./internal/text.js";
export { setOwn } from "./internal/validate.js";
export {
  BenchmarkResult,
  type BenchmarkResultInit,
  countStatuses,
  type DatasetInfo,
  type LoadResultOptions,
  RESULT_FORMAT,
  type ResultFile,
  type SampleFile,
  type ShardSpec,
  shardSize,
  summarizeSamples,
} from "./results.js";
export { percentile, summarize } from "./summary.js";
export {
  type DistributionSummary,
  type EvalSample,
  type Metadata,
  type Metric,
  type MetricInput,
  type Progress,
  type QueryEngine,
  type QueryResponse,
  type RetrievedChunk,
  type Retriever,
  type SampleResult,
  type SampleStatus,
  type StatusCounts,
  SUMMARY_STATS,
  type SummaryStat,
  type Target,
  type TargetCallOptions,
  type Usage,
} from "./types.js";
