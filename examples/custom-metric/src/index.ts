export { citedIds, DEFAULT_CITATION_PATTERN } from "./citations.js";
export { CitedChunkPrecision, type CitedChunkPrecisionOptions } from "./cited-chunk-precision.js";
