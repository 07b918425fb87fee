import type { JudgeUsage, RetrievedChunk, SampleResult, SampleTrial, Usage } from "../types.js";
import {
  type ChunkFile,
  type JudgeUsageFile,
  type JudgmentsFile,
  RESULT_FORMAT,
  type ResultFile,
  type SampleFile,
  type TrialFile,
  type UsageFile,
} from "./codec.js";
import type { ResultData } from "./result-init.js";

/** The header of a result file: every field but `samples`. */
export function headerOf(r: ResultData): Omit<ResultFile, "samples"> {
  const out: Omit<ResultFile, "samples"> = {
    format: RESULT_FORMAT,
    name: r.name,
    created_at: r.createdAt.toISOString(),
    duration_s: r.durationS,
    status: {
      successful: r.status.successful,
      errored: r.status.errored,
      incomplete: r.status.incomplete,
    },
    summary: { ...r.summary },
    higher_is_better: { ...r.higherIsBetter },
  };
  if (r.dataset) out.dataset = { fingerprint: r.dataset.fingerprint, size: r.dataset.size };
  if (r.shard) {
    out.shard = { index: r.shard.index, count: r.shard.count };
    if (r.shard.samplesFingerprint !== undefined)
      out.shard.samples_fingerprint = r.shard.samplesFingerprint;
  }
  out.keep_chunk_text = r.keepChunkText;
  const usage = r.usage;
  if (usage !== undefined) out.usage = usageToJson(usage);
  const judge = r.judgeUsage;
  if (judge !== undefined) out.judge_usage = judgeUsageToJson(judge);
  const p = r.provenance;
  if (p !== undefined) {
    if (p.configHash !== undefined) out.config_hash = p.configHash;
    if (p.gitCommit !== undefined) out.git_commit = p.gitCommit;
    if (p.params !== undefined) out.params = { ...p.params };
  }
  if (r.rateLimit) {
    out.rate_limit = {
      rate_limited_calls: r.rateLimit.rateLimitedCalls,
      concurrency_final: r.rateLimit.concurrencyFinal,
      concurrency_min: r.rateLimit.concurrencyMin,
    };
  }
  if (r.trials > 1) out.trials = r.trials;
  return out;
}

function usageToJson(u: Usage): UsageFile {
  const out: UsageFile = {};
  if (u.inputTokens !== undefined) out.input_tokens = u.inputTokens;
  if (u.outputTokens !== undefined) out.output_tokens = u.outputTokens;
  if (u.totalTokens !== undefined) out.total_tokens = u.totalTokens;
  if (u.cost !== undefined) out.cost = u.cost;
  return out;
}

function judgeUsageToJson(u: JudgeUsage): JudgeUsageFile {
  return { ...usageToJson(u), calls: u.calls };
}

function chunkToJson(c: RetrievedChunk): ChunkFile {
  const out: ChunkFile = { id: c.id };
  if (c.documentId !== undefined) out.document_id = c.documentId;
  if (c.uri !== undefined && c.uri !== null) out.uri = c.uri;
  if (c.score !== undefined && c.score !== null) out.score = c.score;
  if (c.text !== undefined && c.text !== null) out.text = c.text;
  return out;
}

/**
 * Converts a sample record to its format-2 file shape. `retrieved_ids`/`retrieved_uris` are not
 * written: they are `retrieved`'s ids and uris, and writing both would double the ids of every
 * file and let the two disagree. A record read from format 1 (no `retrieved`) gets chunks of its
 * ids and uris.
 */
export function sampleToJson(s: SampleResult): SampleFile {
  // Built in the file's key order: the lazy reader's fast path expects id, question, status and
  // scores first.
  const out = (
    s.sampleId === undefined
      ? { question: s.question, status: s.status, scores: {}, answer: s.answer }
      : {
          sample_id: s.sampleId,
          question: s.question,
          status: s.status,
          scores: {},
          answer: s.answer,
        }
  ) as SampleFile;
  out.scores = s.scores as Record<string, number | null>;
  out.retrieved = retrievedOf(s);
  out.latency_ms = s.latencyMs;
  if (s.usage !== undefined) out.usage = usageToJson(s.usage);
  if (s.cached === true) out.cached = true;
  if (s.judgeUsage !== undefined) out.judge_usage = judgeUsageToJson(s.judgeUsage);
  if (s.judgments !== undefined) out.judgments = s.judgments as JudgmentsFile;
  out.error = s.error;
  if (s.errorStack !== undefined) out.error_stack = s.errorStack;
  if (s.attempts !== undefined) out.attempts = s.attempts;
  if (s.expectedAnswers !== undefined) out.expected_answers = s.expectedAnswers as string[];
  if (s.relevantIds !== undefined) out.relevant_ids = s.relevantIds as string[];
  if (s.relevance !== undefined) out.relevance = s.relevance as Record<string, number>;
  if (s.metadata !== undefined) out.metadata = s.metadata;
  if (s.trials !== undefined) out.trials = s.trials.map(trialToJson);
  return out;
}

function trialToJson(t: SampleTrial): TrialFile {
  const out: TrialFile = {
    status: t.status,
    scores: t.scores as Record<string, number | null>,
    answer: t.answer,
    retrieved: retrievedOf(t),
    latency_ms: t.latencyMs,
    error: t.error,
  };
  if (t.usage !== undefined) out.usage = usageToJson(t.usage);
  if (t.cached === true) out.cached = true;
  if (t.judgeUsage !== undefined) out.judge_usage = judgeUsageToJson(t.judgeUsage);
  if (t.judgments !== undefined) out.judgments = t.judgments as JudgmentsFile;
  if (t.errorStack !== undefined) out.error_stack = t.errorStack;
  if (t.attempts !== undefined) out.attempts = t.attempts;
  return out;
}

function retrievedOf(s: SampleTrial): ChunkFile[] | null {
  const r = s.retrieved;
  if (r === null) return null;
  if (r !== undefined) return r.map(chunkToJson);
  const ids = s.retrievedIds;
  const uris = s.retrievedUris;
  const out: ChunkFile[] = new Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const uri = uris[i];
    out[i] =
      uri === null || uri === undefined ? { id: ids[i] as string } : { id: ids[i] as string, uri };
  }
  return out;
}
