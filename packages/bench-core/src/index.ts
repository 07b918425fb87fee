export { Benchmark, type BenchmarkOptions } from "./benchmark.js";
export {
  BenchmarkResult,
  type BenchmarkResultInit,
  type DatasetInfo,
  type LoadResultOptions,
  type Provenance,
  type RateLimitRecord,
  type ResultData,
  type ResultShard,
  type ShardSpec,
} from "./benchmark-result.js";
export {
  cacheValueText,
  MemoryCache,
  type ResponseCache,
  type ResponseCacheSpecificationVersion,
} from "./cache.js";
export {
  judgeStepKey,
  modelCacheKey,
  type TargetCacheKeyInput,
  targetCacheKey,
} from "./cache-key.js";
export {
  type CachableEmbed,
  type CachableJudge,
  type CachedCallOptions,
  type CachedOptions,
  cached,
} from "./cached.js";
export { errorMessage } from "./error-message.js";
export {
  ConfigurationError,
  type ConfigurationErrorFields,
  type ConfigurationErrorKind,
  FastragBenchError,
  MetricUnavailableError,
} from "./errors.js";
export {
  type ChunkFile,
  type JudgeUsageFile,
  type JudgmentStepFile,
  type JudgmentsFile,
  type RateLimitFile,
  RESULT_FORMAT,
  type ResultFile,
  type SampleFile,
  type TrialFile,
  type UsageFile,
} from "./result/codec.js";
export { shardSize } from "./result/merge.js";
export { countStatuses, summarizeSamples } from "./result/summarize-samples.js";
export {
  type JournaledCounts,
  JournalWriteError,
  type JournalWriteErrorInit,
  RunAbortedError,
} from "./run-errors.js";
export {
  DEFAULT_MAX_WAITS,
  type RateLimitOptions,
} from "./runner/rate-limit-options.js";
export type { RescoreOptions } from "./runner/rescore.js";
export type { RetryOptions } from "./runner/retry.js";
export type { RunOptions } from "./runner/run-options.js";
export { percentile, summarize } from "./summary.js";
export {
  type CallLimiter,
  type DatasetLike,
  type DistributionSummary,
  type EmbedCallOptions,
  type EmbedFunction,
  type EvalSample,
  type JsonSchema,
  type JudgeCallOptions,
  type JudgeFunction,
  type JudgeReply,
  type JudgeSpecificationVersion,
  type JudgeUsage,
  type JudgingContext,
  type JudgmentStep,
  type Judgments,
  type Metadata,
  type Metric,
  type MetricInput,
  type MetricSpecificationVersion,
  type Progress,
  type QueryEngine,
  type QueryResponse,
  type RetrievedChunk,
  type Retriever,
  type SampleResult,
  type SampleStatus,
  type SampleTrial,
  type StatusCounts,
  SUMMARY_STATS,
  type SummaryStat,
  type Target,
  type TargetCallOptions,
  type TargetSpecificationVersion,
  type Usage,
} from "./types.js";
