// Sample records: what a finished sample keeps, scored or errored.

import { errorMessage } from "../error-message.js";
import { setOwn } from "../internal/validate.js";
import type {
  EvalSample,
  JudgeUsage,
  Metadata,
  Metric,
  RetrievedChunk,
  SampleResult,
  SampleStatus,
  Usage,
} from "../types.js";
import type { PipelineOutput } from "./check-output.js";
import type { SampleJudging } from "./judging.js";
import { CANCELLED, type Outcome, type SampleContext } from "./sample-context.js";

/** The record of the sample at dataset position `i` whose pipeline failed with `error`. */
export function erroredRecord<M extends Metadata>(
  ctx: SampleContext<M>,
  i: number,
  error: unknown,
  attempts: number | undefined,
): SampleResult {
  const metrics = ctx.metrics;
  const scores: Record<string, number | null> = {};
  for (let m = 0; m < metrics.length; m++) setOwn(scores, (metrics[m] as Metric<M>).name, null);
  const record = sampleRecord({
    question: ctx.questions[i] as string,
    sampleId: ctx.ids[i],
    status: "errored",
    scores,
    answer: null,
    retrievedIds: [],
    retrievedUris: [],
    latencyMs: null,
    error: errorMessage(error),
    attempts,
  });
  keepReference(record, ctx.samples[i] as EvalSample<M>);
  const stack = errorStack(error);
  if (stack !== undefined) record.errorStack = stack;
  return record;
}

/** What a scored sample's record is made of (the scoring of score-sample.ts). */
export interface ScoredSample {
  /** The sample's dataset position. */
  readonly i: number;
  readonly output: PipelineOutput;
  readonly scores: Record<string, number | null>;
  /** The metrics' reasons, or null when none failed. */
  readonly errors: string | null;
  readonly latencyMs: number;
  readonly attempts: number | undefined;
  /** The chunks as the record keeps them (see {@link keptChunks}). */
  readonly kept: RetrievedChunk[] | null;
  readonly judgeUsage: JudgeUsage | undefined;
  /** The sample's judging context: what its judge metrics kept. */
  readonly judging: SampleJudging;
}

/**
 * The record of a scored sample: `incomplete` when a metric failed, else `successful`; or
 * {@link CANCELLED} when a metric failed because the run was aborted while it scored (a judge cut
 * short), so that a resume scores it again.
 */
export function scoredRecord<M extends Metadata>(ctx: SampleContext<M>, s: ScoredSample): Outcome {
  const incomplete = s.errors !== null;
  if (incomplete && ctx.signal?.aborted) return CANCELLED;
  const status: SampleStatus = incomplete ? "incomplete" : "successful";
  const { output, i } = s;
  const sample = ctx.samples[i] as EvalSample<M>;
  const question = ctx.questions[i] as string;
  const sampleId = ctx.ids[i];
  const usage = keptUsage(output.usage);
  const judgeUsage = s.judgeUsage;
  const judged = judgeUsage !== undefined && judgeUsage.calls > 0;
  const judgments = s.judging.judgments(metricNames(ctx.metrics));
  if (s.attempts === undefined && usage === undefined && !judged && judgments === undefined) {
    // The usual record, built as one literal in the key order of the general path below: adding
    // `retrieved` and the reference fields one by one costs a property-store allocation, and its
    // growth, per sample (docs/decisions/core-hot-paths.md).
    const { answer, ids: retrievedIds, uris: retrievedUris } = output;
    const { expectedAnswers, relevantIds } = sample;
    const { scores, errors: error, latencyMs, kept: retrieved } = s;
    const record: MutableRecord =
      sampleId === undefined
        ? {
            question,
            status,
            scores,
            answer,
            retrievedIds,
            retrievedUris,
            latencyMs,
            error,
            retrieved,
            expectedAnswers,
            relevantIds,
          }
        : {
            question,
            status,
            scores,
            answer,
            retrievedIds,
            retrievedUris,
            latencyMs,
            error,
            sampleId,
            retrieved,
            expectedAnswers,
            relevantIds,
          };
    keepOptionalReference(record, sample);
    return record;
  }
  const record = sampleRecord({
    question,
    sampleId,
    status,
    scores: s.scores,
    answer: output.answer,
    retrievedIds: output.ids,
    retrievedUris: output.uris,
    latencyMs: s.latencyMs,
    error: s.errors,
    attempts: s.attempts,
  });
  record.retrieved = s.kept;
  if (usage !== undefined) record.usage = usage;
  if (judged) record.judgeUsage = judgeUsage;
  if (judgments !== undefined) record.judgments = judgments;
  keepReference(record, sample);
  return record;
}

const NAMES = new WeakMap<readonly unknown[], readonly string[]>();

/** The metrics' names, computed once per metric list. */
function metricNames<M extends Metadata>(metrics: readonly Metric<M>[]): readonly string[] {
  let names = NAMES.get(metrics);
  if (names === undefined) {
    names = metrics.map((m) => m.name);
    NAMES.set(metrics, names);
  }
  return names;
}

type MutableRecord = { -readonly [K in keyof SampleResult]: SampleResult[K] };

/** The first fields of every record, as {@link sampleRecord} lays them out. */
export interface RecordHead {
  readonly question: string;
  readonly sampleId: string | undefined;
  readonly status: SampleStatus;
  readonly scores: Record<string, number | null>;
  readonly answer: string | null;
  readonly retrievedIds: string[];
  readonly retrievedUris: (string | null)[];
  readonly latencyMs: number | null;
  readonly error: string | null;
  readonly attempts: number | undefined;
}

/**
 * A sample's record, `sampleId` and `attempts` last where present (absent, not undefined, where
 * not). Built as one literal with its `sampleId`: adding the id to a built record cost a map
 * transition and a property store per sample. `question` and `sampleId` are as read when the
 * sample started, never re-read from a sample the target may have edited.
 */
export function sampleRecord(head: RecordHead): MutableRecord {
  const { question, sampleId, status, scores, answer, retrievedIds, retrievedUris } = head;
  const { latencyMs, error, attempts } = head;
  const record: MutableRecord =
    sampleId === undefined
      ? { question, status, scores, answer, retrievedIds, retrievedUris, latencyMs, error }
      : {
          question,
          status,
          scores,
          answer,
          retrievedIds,
          retrievedUris,
          latencyMs,
          error,
          sampleId,
        };
  if (attempts !== undefined) record.attempts = attempts;
  return record;
}

/**
 * The dataset sample's gold answers, relevant ids, graded relevance and metadata, kept on its
 * record (result format 2) so that a result alone says why a sample failed, can be sliced by a
 * metadata field, and can be rescored without the dataset. The arrays are the dataset's own
 * (datasets are treated as immutable, as the fingerprint already assumes): no copy per sample.
 */
function keepReference<M extends Metadata>(record: MutableRecord, sample: EvalSample<M>): void {
  record.expectedAnswers = sample.expectedAnswers;
  record.relevantIds = sample.relevantIds;
  keepOptionalReference(record, sample);
}

/** {@link keepReference}'s optional fields: the graded relevance and metadata, when present. */
function keepOptionalReference<M extends Metadata>(
  record: MutableRecord,
  sample: EvalSample<M>,
): void {
  if (sample.relevance !== undefined && sample.relevance !== null)
    record.relevance = sample.relevance;
  if (sample.metadata !== undefined && sample.metadata !== null) record.metadata = sample.metadata;
}

/**
 * The chunks as the record keeps them: a copy of the fields a metric can read (id, document id,
 * uri, finite score), with `text` only when the run keeps chunk text. A copy, so the record holds
 * what the target returned even if it (or a metric) edits its chunks later, and no chunk text
 * unless asked. Taken before the metrics run. `null` when a query engine returned no chunks.
 */
export function keptChunks(output: PipelineOutput, keepText: boolean): RetrievedChunk[] | null {
  if (!output.chunksReported) return null;
  const chunks = output.chunks;
  const ids = output.ids;
  const uris = output.uris;
  const n = ids.length;
  const out: RetrievedChunk[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const c = chunks[i] as RetrievedChunk;
    const id = ids[i] as string;
    const documentId = c.documentId;
    const uri = uris[i];
    const score = c.score;
    const text = keepText ? c.text : undefined;
    const hasUri = uri !== null && uri !== undefined;
    const hasScore = typeof score === "number" && Number.isFinite(score);
    if (typeof documentId !== "string" && typeof text !== "string") {
      // The usual chunk, built as one literal: adding fields one by one to `{ id }` costs a map
      // transition and a property-store allocation per chunk (docs/decisions/core-hot-paths.md).
      out[i] = hasUri
        ? hasScore
          ? { id, uri, score }
          : { id, uri }
        : hasScore
          ? { id, score }
          : { id };
      continue;
    }
    const kept: { -readonly [K in keyof RetrievedChunk]: RetrievedChunk[K] } = { id };
    if (typeof documentId === "string") kept.documentId = documentId;
    if (hasUri) kept.uri = uri;
    if (hasScore) kept.score = score;
    if (typeof text === "string") kept.text = text;
    out[i] = kept;
  }
  return out;
}

const USAGE_FIELDS = ["inputTokens", "outputTokens", "totalTokens", "cost"] as const;

/** The target's usage, its four numeric fields as reported (finite numbers only). */
export function keptUsage(usage: Usage | undefined): Usage | undefined {
  if (usage === undefined || usage === null) return undefined;
  let out: { -readonly [K in keyof Usage]: Usage[K] } | undefined;
  for (const key of USAGE_FIELDS) {
    const v = usage[key];
    if (typeof v === "number" && Number.isFinite(v)) {
      out ??= {};
      out[key] = v;
    }
  }
  return out;
}

/** The stack of a thrown Error, when it has a readable one. Never throws. */
function errorStack(error: unknown): string | undefined {
  try {
    if (error instanceof Error && typeof error.stack === "string" && error.stack !== "")
      return error.stack;
  } catch {
    // a stack getter that throws: keep the message alone
  }
  return undefined;
}
