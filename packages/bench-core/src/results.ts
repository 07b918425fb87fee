// The old path of the result module, kept as a thin re-export: `internal/journal.ts` and tests
// import from it. The result lives under result/ (model, codec, read, save, consistency, merge,
// date).
export { RESULT_FORMAT, type ResultFile, type SampleFile } from "./result/codec.js";
export { parseSampleJson } from "./result/decode-sample.js";
export { sampleToJson } from "./result/encode-result.js";
export { shardSize } from "./result/merge.js";
export {
  BenchmarkResult,
  type BenchmarkResultInit,
  type DatasetInfo,
  type LoadResultOptions,
  type ShardSpec,
} from "./result/model.js";
export { countStatuses, summarizeSamples } from "./result/summarize-samples.js";
