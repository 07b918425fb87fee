// The public API's names: a rename or a removal fails here. New names are added to the lists.
import { describe, expectTypeOf, it } from "vitest";
import type * as Root from "./index.js";
import type * as Testing from "./testing.js";

describe("@fastrag/bench-core's exported names", () => {
  it("keeps every value of the root entry", () => {
    expectTypeOf<keyof typeof Root>().toEqualTypeOf<
      | "Benchmark"
      | "BenchmarkResult"
      | "ConfigurationError"
      | "DEFAULT_MAX_WAITS"
      | "FastragBenchError"
      | "JournalWriteError"
      | "MemoryCache"
      | "MetricUnavailableError"
      | "RunAbortedError"
      | "RESULT_FORMAT"
      | "SUMMARY_STATS"
      | "cacheValueText"
      | "cached"
      | "countStatuses"
      | "errorMessage"
      | "judgeStepKey"
      | "modelCacheKey"
      | "percentile"
      | "shardSize"
      | "summarize"
      | "summarizeSamples"
      | "targetCacheKey"
    >();
  });

  it("keeps every type of the root entry", () => {
    // Each line fails to compile when the type is no longer exported.
    expectTypeOf<Root.BenchmarkOptions>().not.toBeNever();
    expectTypeOf<Root.DatasetLike>().not.toBeNever();
    expectTypeOf<Root.ResultFile>().not.toBeNever();
    expectTypeOf<Root.SampleFile>().not.toBeNever();
    expectTypeOf<Root.BenchmarkResultInit>().not.toBeNever();
    expectTypeOf<Root.DatasetInfo>().not.toBeNever();
    expectTypeOf<Root.LoadResultOptions>().not.toBeNever();
    expectTypeOf<Root.ShardSpec>().not.toBeNever();
    expectTypeOf<Root.RetryOptions>().not.toBeNever();
    expectTypeOf<Root.RunOptions>().not.toBeNever();
    expectTypeOf<Root.CallLimiter>().not.toBeNever();
    expectTypeOf<Root.CachableEmbed<Root.CachedCallOptions>>().not.toBeNever();
    expectTypeOf<Root.CachableJudge<Root.CachedCallOptions>>().not.toBeNever();
    expectTypeOf<Root.CachedCallOptions>().not.toBeNever();
    expectTypeOf<Root.CachedOptions>().not.toBeNever();
    expectTypeOf<Root.ResponseCache>().not.toBeNever();
    expectTypeOf<Root.TargetCacheKeyInput>().not.toBeNever();
    expectTypeOf<Root.RateLimitFile>().not.toBeNever();
    expectTypeOf<Root.ChunkFile>().not.toBeNever();
    expectTypeOf<Root.UsageFile>().not.toBeNever();
    expectTypeOf<Root.JudgeUsageFile>().not.toBeNever();
    expectTypeOf<Root.JudgmentStepFile>().not.toBeNever();
    expectTypeOf<Root.JudgmentsFile>().not.toBeNever();
    expectTypeOf<Root.JudgeFunction>().not.toBeNever();
    expectTypeOf<Root.JudgeCallOptions>().not.toBeNever();
    expectTypeOf<Root.JudgeReply>().not.toBeNever();
    expectTypeOf<Root.EmbedFunction>().not.toBeNever();
    expectTypeOf<Root.EmbedCallOptions>().not.toBeNever();
    expectTypeOf<Root.JsonSchema>().not.toBeNever();
    expectTypeOf<Root.JudgingContext>().not.toBeNever();
    expectTypeOf<Root.Judgments>().not.toBeNever();
    expectTypeOf<Root.JudgmentStep>().not.toBeNever();
    expectTypeOf<Root.Provenance>().not.toBeNever();
    expectTypeOf<Root.RateLimitRecord>().not.toBeNever();
    expectTypeOf<Root.ResultShard>().not.toBeNever();
    expectTypeOf<Root.ResultData>().not.toBeNever();
    expectTypeOf<Root.RescoreOptions>().not.toBeNever();
    expectTypeOf<Root.RateLimitOptions>().not.toBeNever();
    expectTypeOf<Root.JudgeUsage>().not.toBeNever();
    expectTypeOf<Root.ConfigurationErrorFields>().not.toBeNever();
    expectTypeOf<Root.ConfigurationErrorKind>().not.toBeNever();
    expectTypeOf<Root.JournaledCounts>().not.toBeNever();
    expectTypeOf<Root.JournalWriteErrorInit<unknown>>().not.toBeNever();
    expectTypeOf<Root.DistributionSummary>().not.toBeNever();
    expectTypeOf<Root.EvalSample>().not.toBeNever();
    expectTypeOf<Root.Metadata>().not.toBeNever();
    expectTypeOf<Root.Metric>().not.toBeNever();
    expectTypeOf<Root.MetricInput>().not.toBeNever();
    expectTypeOf<Root.MetricSpecificationVersion>().toEqualTypeOf<"v1">();
    expectTypeOf<Root.TargetSpecificationVersion>().toEqualTypeOf<"v1">();
    expectTypeOf<Root.ResponseCacheSpecificationVersion>().toEqualTypeOf<"v1">();
    expectTypeOf<Root.JudgeSpecificationVersion>().toEqualTypeOf<"v1">();
    expectTypeOf<Root.Progress>().not.toBeNever();
    expectTypeOf<Root.QueryEngine>().not.toBeNever();
    expectTypeOf<Root.QueryResponse>().not.toBeNever();
    expectTypeOf<Root.RetrievedChunk>().not.toBeNever();
    expectTypeOf<Root.Retriever>().not.toBeNever();
    expectTypeOf<Root.SampleResult>().not.toBeNever();
    expectTypeOf<Root.SampleStatus>().not.toBeNever();
    expectTypeOf<Root.SampleTrial>().not.toBeNever();
    expectTypeOf<Root.TrialFile>().not.toBeNever();
    expectTypeOf<Root.StatusCounts>().not.toBeNever();
    expectTypeOf<Root.SummaryStat>().not.toBeNever();
    expectTypeOf<Root.Target>().not.toBeNever();
    expectTypeOf<Root.TargetCallOptions>().not.toBeNever();
    expectTypeOf<Root.Usage>().not.toBeNever();
  });

  it("keeps the testing entry's helpers", () => {
    expectTypeOf<keyof typeof Testing>().toEqualTypeOf<
      "fakeDataset" | "fakeEmbed" | "fakeEngine" | "fakeRetriever" | "metricInput" | "scriptedJudge"
    >();
  });
});
