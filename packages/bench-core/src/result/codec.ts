// The result file's codec: the on-disk (snake_case) shapes of a result and its samples, written
// from and read into the model, every field checked on the way in.
import { ConfigurationError } from "../errors.js";
import {
  describe,
  expectArray,
  expectBoolean,
  expectFiniteOrNull,
  expectNonNegativeInt,
  expectObject,
  expectString,
  expectStringOrNull,
  setOwn,
} from "../internal/validate.js";
import type {
  DistributionSummary,
  JudgeUsage,
  Metadata,
  RetrievedChunk,
  SampleResult,
  SampleStatus,
  SampleTrial,
  StatusCounts,
  Usage,
} from "../types.js";
import { SUMMARY_STATS } from "../types.js";
import { parseCreatedAt } from "./date.js";
import type {
  BenchmarkResult,
  BenchmarkResultInit,
  DatasetInfo,
  Provenance,
  RateLimitRecord,
} from "./model.js";
import { checkSampleTrials, trialOf } from "./trials.js";

/**
 * The format string written into every result file. Files of format 1 and 2 are read; files of
 * another major version are refused.
 */
export const RESULT_FORMAT = "fastrag-bench-result/2";
const READABLE: ReadonlySet<string> = new Set(["1", "2"]);
const FORMAT_RE = /^fastrag-bench-result\/(\d+)(?:\.\d+)*$/;
const STATUSES: ReadonlySet<string> = new Set(["successful", "incomplete", "errored"]);

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
  error: string | null;
  error_stack?: string;
  attempts?: number;
}

/** The header of a result file: every field but `samples`. */
export function headerOf(r: BenchmarkResult): Omit<ResultFile, "samples"> {
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

/**
 * Reads and checks the header of a result file (every field but `samples`).
 *
 * @throws {ConfigurationError} naming `source` and the offending field.
 */
export function parseHeader(data: unknown, source: string): Omit<BenchmarkResultInit, "samples"> {
  const obj = expectObject(data, source, "the top level");
  if (!("format" in obj) && !("samples" in obj)) {
    throw new ConfigurationError(
      `${source}: not a fastrag bench result: expected an object with "format" and "samples", found keys ${describeKeys(obj)}`,
    );
  }
  const format = expectString(obj.format, source, "format");
  const m = FORMAT_RE.exec(format);
  if (!m) {
    throw new ConfigurationError(
      `${source}: not a fastrag bench result: format is "${format}", expected "${RESULT_FORMAT}"`,
    );
  }
  if (!READABLE.has(m[1] as string)) {
    throw new ConfigurationError(
      `${source}: result format "${format}" is not supported by this version, which reads "fastrag-bench-result/1" and "${RESULT_FORMAT}"; upgrade @fastrag/bench-core`,
    );
  }
  const name = expectString(obj.name, source, "name");
  const createdAt = parseCreatedAt(expectString(obj.created_at, source, "created_at"), source);
  const durationS = expectFiniteOrNull(obj.duration_s, source, "duration_s");
  if (durationS === null || durationS < 0) {
    throw new ConfigurationError(
      `${source}: duration_s: expected a non-negative number, found ${describe(obj.duration_s)}`,
    );
  }
  const statusObj = expectObject(obj.status, source, "status");
  const status: StatusCounts = {
    successful: expectNonNegativeInt(statusObj.successful, source, "status.successful"),
    errored: expectNonNegativeInt(statusObj.errored, source, "status.errored"),
    incomplete: expectNonNegativeInt(statusObj.incomplete, source, "status.incomplete"),
  };
  const hib = expectObject(obj.higher_is_better, source, "higher_is_better");
  const higherIsBetter: Record<string, boolean> = {};
  for (const key of Object.keys(hib)) {
    setOwn(higherIsBetter, key, expectBoolean(hib[key], source, `higher_is_better["${key}"]`));
  }
  const summaryObj = expectObject(obj.summary, source, "summary");
  const summary: Record<string, DistributionSummary> = {};
  for (const key of Object.keys(summaryObj)) {
    setOwn(summary, key, parseSummary(summaryObj[key], source, `summary["${key}"]`));
    if (!Object.hasOwn(higherIsBetter, key)) {
      throw new ConfigurationError(
        `${source}: summary has metric "${key}" but higher_is_better does not say its direction`,
      );
    }
  }
  const out: {
    -readonly [K in keyof Omit<BenchmarkResultInit, "samples">]: Omit<
      BenchmarkResultInit,
      "samples"
    >[K];
  } = {
    name,
    createdAt,
    durationS,
    status,
    summary,
    higherIsBetter,
  };
  if (obj.dataset !== undefined && obj.dataset !== null) {
    const d = expectObject(obj.dataset, source, "dataset");
    out.dataset = {
      fingerprint: expectString(d.fingerprint, source, "dataset.fingerprint"),
      size: expectNonNegativeInt(d.size, source, "dataset.size"),
    };
  }
  if (obj.shard !== undefined && obj.shard !== null) {
    const s = expectObject(obj.shard, source, "shard");
    const index = expectNonNegativeInt(s.index, source, "shard.index");
    const count = expectNonNegativeInt(s.count, source, "shard.count");
    if (count < 1 || index >= count) {
      throw new ConfigurationError(
        `${source}: shard: expected 0 ≤ index < count, found index ${index}, count ${count}`,
      );
    }
    out.shard =
      s.samples_fingerprint === undefined
        ? { index, count }
        : {
            index,
            count,
            samplesFingerprint: expectString(
              s.samples_fingerprint,
              source,
              "shard.samples_fingerprint",
            ),
          };
  }
  if (obj.rate_limit !== undefined && obj.rate_limit !== null) {
    out.rateLimit = parseRateLimit(obj.rate_limit, source);
  }
  if (obj.keep_chunk_text !== undefined)
    out.keepChunkText = expectBoolean(obj.keep_chunk_text, source, "keep_chunk_text");
  if (obj.usage !== undefined && obj.usage !== null)
    out.usage = parseUsage(obj.usage, source, "usage");
  if (obj.judge_usage !== undefined && obj.judge_usage !== null)
    out.judgeUsage = parseJudgeUsage(obj.judge_usage, source, "judge_usage");
  const provenance: { -readonly [K in keyof Provenance]: Provenance[K] } = {};
  let hasProvenance = false;
  if (obj.config_hash !== undefined && obj.config_hash !== null) {
    provenance.configHash = expectString(obj.config_hash, source, "config_hash");
    hasProvenance = true;
  }
  if (obj.git_commit !== undefined && obj.git_commit !== null) {
    provenance.gitCommit = expectString(obj.git_commit, source, "git_commit");
    hasProvenance = true;
  }
  if (obj.params !== undefined && obj.params !== null) {
    provenance.params = expectObject(obj.params, source, "params");
    hasProvenance = true;
  }
  if (hasProvenance) out.provenance = provenance;
  if (obj.trials !== undefined && obj.trials !== null) {
    const trials = expectNonNegativeInt(obj.trials, source, "trials");
    if (trials < 1) {
      throw new ConfigurationError(
        `${source}: trials: expected a positive number of trials per sample, found ${trials}`,
        { kind: "invalid-input", field: "trials" },
      );
    }
    out.trials = trials;
  }
  return out;
}

const USAGE_KEYS = [
  ["input_tokens", "inputTokens"],
  ["output_tokens", "outputTokens"],
  ["total_tokens", "totalTokens"],
  ["cost", "cost"],
] as const;

function parseUsage(value: unknown, source: string, where: string): Usage {
  const o = expectObject(value, source, where);
  const out: { -readonly [K in keyof Usage]: Usage[K] } = {};
  for (const [file, key] of USAGE_KEYS) {
    const v = o[file];
    if (v === undefined || v === null) continue;
    const n = expectFiniteOrNull(v, source, `${where}.${file}`);
    if (n !== null) out[key] = n;
  }
  return out;
}

function parseJudgeUsage(value: unknown, source: string, where: string): JudgeUsage {
  const usage = parseUsage(value, source, where);
  const calls = expectNonNegativeInt(
    (value as Record<string, unknown>).calls,
    source,
    `${where}.calls`,
  );
  return { ...usage, calls };
}

function parseChunks(value: unknown, source: string, where: string): RetrievedChunk[] {
  const arr = expectArray(value, source, where);
  const out: RetrievedChunk[] = new Array(arr.length);
  for (let i = 0; i < arr.length; i++) {
    const at = `${where}[${i}]`;
    const c = expectObject(arr[i], source, at);
    const chunk: { -readonly [K in keyof RetrievedChunk]: RetrievedChunk[K] } = {
      id: expectString(c.id, source, `${at}.id`),
    };
    if (c.document_id !== undefined && c.document_id !== null)
      chunk.documentId = expectString(c.document_id, source, `${at}.document_id`);
    if (c.uri !== undefined && c.uri !== null) chunk.uri = expectString(c.uri, source, `${at}.uri`);
    if (c.score !== undefined && c.score !== null) {
      const score = expectFiniteOrNull(c.score, source, `${at}.score`);
      if (score !== null) chunk.score = score;
    }
    if (c.text !== undefined && c.text !== null)
      chunk.text = expectString(c.text, source, `${at}.text`);
    out[i] = chunk;
  }
  return out;
}

function parseStrings(value: unknown, source: string, where: string): string[] {
  const arr = expectArray(value, source, where);
  const out: string[] = new Array(arr.length);
  for (let i = 0; i < arr.length; i++) out[i] = expectString(arr[i], source, `${where}[${i}]`);
  return out;
}

function parseGrades(value: unknown, source: string, where: string): Record<string, number> {
  const o = expectObject(value, source, where);
  const out: Record<string, number> = {};
  for (const key of Object.keys(o)) {
    const g = expectFiniteOrNull(o[key], source, `${where}["${key}"]`);
    if (g === null) {
      throw new ConfigurationError(
        `${source}: ${where}["${key}"]: expected a number (a relevance grade), found null`,
      );
    }
    setOwn(out, key, g);
  }
  return out;
}

function parseRateLimit(value: unknown, source: string): RateLimitRecord {
  const o = expectObject(value, source, "rate_limit");
  return {
    rateLimitedCalls: expectNonNegativeInt(
      o.rate_limited_calls,
      source,
      "rate_limit.rate_limited_calls",
    ),
    concurrencyFinal: expectNonNegativeInt(
      o.concurrency_final,
      source,
      "rate_limit.concurrency_final",
    ),
    concurrencyMin: expectNonNegativeInt(o.concurrency_min, source, "rate_limit.concurrency_min"),
  };
}

function parseSummary(value: unknown, source: string, where: string): DistributionSummary {
  const o = expectObject(value, source, where);
  const out: Record<string, number | null> = {};
  for (const stat of SUMMARY_STATS) {
    const v = o[stat];
    // Only results run with trials have it: absent stays absent, so such a file saves as it was.
    if (stat === "trial_std") {
      if (v !== undefined) out[stat] = expectFiniteOrNull(v, source, `${where}.${stat}`);
      continue;
    }
    out[stat] =
      stat === "count"
        ? expectNonNegativeInt(v, source, `${where}.count`)
        : expectFiniteOrNull(v ?? null, source, `${where}.${stat}`);
  }
  return out as unknown as DistributionSummary;
}

/**
 * Validates one sample of a result file (or a journal line). `question`, `status`, `scores` and
 * `retrieved_ids` are required: without them a record says nothing about its sample. The
 * auxiliary fields `answer`, `latency_ms` and `error` read as `null` when absent, and
 * `retrieved_uris` (absent or `null`) as one `null` per retrieved id (every version of `save` writes them all, but a
 * file made by another tool may leave out what it did not record); `sample_id` and `attempts` are
 * optional. @internal
 */
export function parseSampleJson(value: unknown, source: string, where: string): SampleResult {
  const o = expectObject(value, source, where);
  const status = expectString(o.status, source, `${where}.status`);
  if (!STATUSES.has(status)) {
    throw new ConfigurationError(
      `${source}: ${where}.status: expected "successful", "incomplete" or "errored", found "${status}"`,
    );
  }
  const scoresObj = expectObject(
    requiredField(o, "scores", "an object of metric → score", source, where),
    source,
    `${where}.scores`,
  );
  const scores: Record<string, number | null> = {};
  for (const key in scoresObj) {
    if (!Object.hasOwn(scoresObj, key)) continue;
    const v = scoresObj[key];
    if (status === "errored" && v !== null) {
      throw new ConfigurationError(
        `${source}: ${where}.scores["${key}"]: an errored sample has no scores (every one is null: a failure is never scored), found ${describe(v)}`,
      );
    }
    setOwn(
      scores,
      key,
      v === null || (typeof v === "number" && Number.isFinite(v))
        ? v
        : expectFiniteOrNull(v, source, `${where}.scores["${key}"]`),
    );
  }
  let retrieved: RetrievedChunk[] | null | undefined;
  let retrievedIds: string[];
  let retrievedUris: (string | null)[];
  if (o.retrieved !== undefined) {
    // Format 2: the chunks; their ids and uris are derived.
    retrieved =
      o.retrieved === null ? null : parseChunks(o.retrieved, source, `${where}.retrieved`);
    const chunks = retrieved ?? [];
    retrievedIds = new Array(chunks.length);
    retrievedUris = new Array(chunks.length);
    for (let i = 0; i < chunks.length; i++) {
      const c = chunks[i] as RetrievedChunk;
      retrievedIds[i] = c.id;
      retrievedUris[i] = c.uri ?? null;
    }
  } else {
    if (o.retrieved_ids === undefined) {
      throw new ConfigurationError(
        `${source}: ${where}.retrieved: missing, expected an array of chunks { id, … } (format 2), or retrieved_ids (format 1)`,
      );
    }
    const ids = expectArray(
      requiredField(
        o,
        "retrieved_ids",
        "an array of strings (format 1), or retrieved (format 2)",
        source,
        where,
      ),
      source,
      `${where}.retrieved_ids`,
    );
    retrievedIds = new Array(ids.length);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      retrievedIds[i] =
        typeof id === "string" ? id : expectString(id, source, `${where}.retrieved_ids[${i}]`);
    }
    const uris =
      o.retrieved_uris === undefined || o.retrieved_uris === null
        ? new Array<null>(ids.length).fill(null)
        : expectArray(o.retrieved_uris, source, `${where}.retrieved_uris`);
    if (uris.length !== ids.length) {
      throw new ConfigurationError(
        `${source}: ${where}.retrieved_uris: expected one entry per retrieved id (${ids.length}, null where a chunk has no uri), found ${uris.length}`,
      );
    }
    retrievedUris = new Array(uris.length);
    for (let i = 0; i < uris.length; i++) {
      const u = uris[i];
      retrievedUris[i] =
        u === null || typeof u === "string"
          ? u
          : expectStringOrNull(u, source, `${where}.retrieved_uris[${i}]`);
    }
  }
  const sample: {
    -readonly [K in keyof SampleResult]: SampleResult[K];
  } = {
    question: expectString(o.question, source, `${where}.question`),
    status: status as SampleStatus,
    scores,
    answer: expectStringOrNull(o.answer ?? null, source, `${where}.answer`),
    retrievedIds,
    retrievedUris,
    latencyMs: expectFiniteOrNull(o.latency_ms ?? null, source, `${where}.latency_ms`),
    error: expectStringOrNull(o.error ?? null, source, `${where}.error`),
  };
  if (o.sample_id !== undefined && o.sample_id !== null) {
    sample.sampleId =
      typeof o.sample_id === "number"
        ? String(o.sample_id)
        : expectString(o.sample_id, source, `${where}.sample_id`);
  }
  if (o.attempts !== undefined)
    sample.attempts = expectNonNegativeInt(o.attempts, source, `${where}.attempts`);
  // An errored sample has no output: its `retrieved` is written empty and read as absent.
  if (retrieved !== undefined && status !== "errored") sample.retrieved = retrieved;
  if (o.usage !== undefined && o.usage !== null)
    sample.usage = parseUsage(o.usage, source, `${where}.usage`);
  if (o.cached !== undefined && o.cached !== null) {
    if (expectBoolean(o.cached, source, `${where}.cached`)) sample.cached = true;
  }
  if (o.judge_usage !== undefined && o.judge_usage !== null)
    sample.judgeUsage = parseJudgeUsage(o.judge_usage, source, `${where}.judge_usage`);
  if (o.error_stack !== undefined && o.error_stack !== null)
    sample.errorStack = expectString(o.error_stack, source, `${where}.error_stack`);
  if (o.expected_answers !== undefined && o.expected_answers !== null)
    sample.expectedAnswers = parseStrings(o.expected_answers, source, `${where}.expected_answers`);
  if (o.relevant_ids !== undefined && o.relevant_ids !== null)
    sample.relevantIds = parseStrings(o.relevant_ids, source, `${where}.relevant_ids`);
  if (o.relevance !== undefined && o.relevance !== null)
    sample.relevance = parseGrades(o.relevance, source, `${where}.relevance`);
  if (o.metadata !== undefined && o.metadata !== null)
    sample.metadata = expectObject(o.metadata, source, `${where}.metadata`);
  if (o.trials !== undefined && o.trials !== null) {
    const raw = expectArray(o.trials, source, `${where}.trials`);
    const trials: SampleTrial[] = new Array(raw.length);
    for (let k = 0; k < raw.length; k++) {
      const at = `${where}.trials[${k}]`;
      const t = expectObject(raw[k], source, at);
      // A trial is read as a sample without the dataset's fields: the same checks, one parser.
      trials[k] = trialOf(parseSampleJson({ ...t, question: "" }, source, at));
    }
    sample.trials = trials;
    checkSampleTrials(sample, source, where);
  }
  return sample;
}

/** A sample field the format requires: its value, or a ConfigurationError saying it is missing. */
function requiredField(
  o: Record<string, unknown>,
  key: string,
  expected: string,
  source: string,
  where: string,
): unknown {
  const v = o[key];
  if (v === undefined) {
    throw new ConfigurationError(`${source}: ${where}.${key}: missing, expected ${expected}`);
  }
  return v;
}

function describeKeys(obj: Record<string, unknown>): string {
  const keys = Object.keys(obj);
  return keys.length === 0
    ? "(none)"
    : keys
        .slice(0, 8)
        .map((k) => JSON.stringify(k))
        .join(", ");
}
