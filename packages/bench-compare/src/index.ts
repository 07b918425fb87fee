export { type BootstrapOptions, bootstrapCi, type ConfidenceInterval } from "./bootstrap-ci.js";
export { type CheckFailure, check, type Threshold, type Thresholds } from "./check.js";
export { Comparison } from "./comparison.js";
export type {
  ComparisonBootstrapOptions,
  HtmlReportOptions,
  PairedTestOptions,
  RenderOptions,
  RunInterval,
  SignificanceOptions,
} from "./comparison-options.js";
export { type DiffOptions, diff, type SampleChange, type SampleDiff } from "./diff.js";
export { isLatencyMetric } from "./html/model.js";
export { formatNumber } from "./internal/format.js";
export { type JudgmentItem, type JudgmentView, judgmentViews } from "./judgments.js";
export type { LeftOutSamples } from "./left-out.js";
export { type PairedTTestResult, pairedTTest } from "./paired-t-test.js";
export {
  type PairedScores,
  type PairingKey,
  pairedScores,
  pairSamples,
  type SamplePairing,
} from "./pairing.js";
export {
  DEFAULT_PERMUTATIONS,
  type RandomizationOptions,
  type RandomizationResult,
  randomizationTest,
} from "./randomization-test.js";
export { csvField, renderCsv } from "./render-csv.js";
export { COMPARISON_FORMAT, renderJson } from "./render-json.js";
export { escapeCell, MISSING, renderMarkdown } from "./render-markdown.js";
export { SLICED_COMPARISON_FORMAT, type SliceTable } from "./render-slices.js";
export type { PairedComparison, SignificanceTest, TestOptions } from "./significance.js";
export type { ComparisonSlice } from "./slices.js";
export {
  type ComparisonTable,
  DEFAULT_MAX_PAIRWISE_RUNS,
  type MarkMode,
  type RowTrials,
  type RunRef,
  type SampleBasis,
  type TableCell,
  type TableColumn,
  type TableOptions,
  type TableRow,
  type TableSignificance,
} from "./table.js";
