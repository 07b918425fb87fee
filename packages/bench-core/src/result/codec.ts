// The result file's format: its version string and the on-disk (snake_case) shapes of a result
// and its samples. Written by encode-result.ts; read, every field checked, by decode-header.ts and
// decode-sample.ts.
import type { DistributionSummary, Metadata, SampleStatus, StatusCounts } from "../types.js";
import type { DatasetInfo } from "./result-init.js";

/**
 * The format string written into every result file. Files of format 1 and 2 are read; files of
 * another major version are refused.
 */
export const RESULT_FORMAT = "fastrag-bench-result/2";

/** The on-disk shape of a result (snake_case). */
export interface ResultFile {
  format: string;
  name: string;
  created_at: string;
  duration_s: number;
  status: StatusCounts;
  summary: Record<string, DistributionSummary>;
  higher_is_better: Record<string, boolean>;
  dataset?: DatasetInfo;
  shard?: { index: number; count: number; samples_fingerprint?: string };
  /** Format 2: whether `retrieved[].text` was kept. */
  keep_chunk_text?: boolean;
  /** Format 2: the target's usage summed over the samples. */
  usage?: UsageFile;
  /** Format 2: the metrics' model-call usage summed over the samples. */
  judge_usage?: JudgeUsageFile;
  config_hash?: string;
  git_commit?: string;
  params?: Record<string, unknown>;
  rate_limit?: RateLimitFile;
  /** Format 2, with `trials: n` (n > 1) only: trials per sample. */
  trials?: number;
  samples: SampleFile[];
}

/** Usage on disk (snake_case). */
export interface UsageFile {
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
  cost?: number;
}

/** Judge usage on disk: usage plus the number of calls. */
export interface JudgeUsageFile extends UsageFile {
  calls: number;
}

/** One retrieved chunk on disk. */
export interface ChunkFile {
  id: string;
  document_id?: string;
  uri?: string;
  score?: number;
  text?: string;
}

/** The on-disk shape of {@link RateLimitRecord}. */
export interface RateLimitFile {
  rate_limited_calls: number;
  concurrency_final: number;
  concurrency_min: number;
}

/** The on-disk shape of one sample (snake_case). */
export interface SampleFile {
  sample_id?: string;
  question: string;
  status: SampleStatus;
  scores: Record<string, number | null>;
  answer: string | null;
  /** Format 2: the chunks; `null` when a query engine returned none. */
  retrieved?: ChunkFile[] | null;
  /** Format 1 (derived from `retrieved` in format 2). */
  retrieved_ids?: string[];
  /** Format 1 (derived from `retrieved` in format 2). */
  retrieved_uris?: (string | null)[];
  latency_ms: number | null;
  usage?: UsageFile;
  cached?: true;
  judge_usage?: JudgeUsageFile;
  /** Format 2: what the judge metrics asked and were told, by metric (DESIGN §11). */
  judgments?: JudgmentsFile;
  error: string | null;
  error_stack?: string;
  attempts?: number;
  expected_answers?: string[];
  relevant_ids?: string[];
  relevance?: Record<string, number>;
  metadata?: Metadata;
  /** Format 2, in results run with `trials: n` (n > 1): each trial's record, in trial order. */
  trials?: TrialFile[];
}

/** The on-disk shape of one trial of a sample (run with `trials: n`, n > 1). */
export interface TrialFile {
  status: SampleStatus;
  scores: Record<string, number | null>;
  answer: string | null;
  retrieved: ChunkFile[] | null;
  latency_ms: number | null;
  usage?: UsageFile;
  cached?: true;
  judge_usage?: JudgeUsageFile;
  judgments?: JudgmentsFile;
  error: string | null;
  error_stack?: string;
  attempts?: number;
}

/** One judge step on disk: the same fields as {@link JudgmentStep}. */
export interface JudgmentStepFile {
  step: string;
  attempt: number;
  about?: string;
  key: string;
  reply: Record<string, unknown>;
}

/** A sample's judgments on disk: metric name → its steps. */
export type JudgmentsFile = Record<string, JudgmentStepFile[]>;
