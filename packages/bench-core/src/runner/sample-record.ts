// Sample records: what a finished sample keeps, scored or errored.

import { errorMessage } from "../error-message.js";
import { setOwn } from "../internal/validate.js";
import type {
  EvalSample,
  JudgeUsage,
  Judgments,
  Metadata,
  Metric,
  RetrievedChunk,
  SampleResult,
  SampleStatus,
  Usage,
} from "../types.js";
import type { PipelineOutput } from "./check-output.js";
import { CANCELLED, type Outcome, type SampleContext } from "./sample-context.js";

export function erroredRecord<M extends Metadata>(
  ctx: SampleContext<M>,
  sample: EvalSample<M>,
  question: string,
  sampleId: string | undefined,
  error: unknown,
  attempts: number | undefined,
): SampleResult {
  const metrics = ctx.metrics;
  const scores: Record<string, number | null> = {};
  for (let m = 0; m < metrics.length; m++) setOwn(scores, (metrics[m] as Metric<M>).name, null);
  const message = errorMessage(error);
  const record = sampleRecord(
    question,
    sampleId,
    "errored",
    scores,
    null,
    [],
    [],
    null,
    message,
    attempts,
  );
  keepReference(record, sample);
  const stack = errorStack(error);
  if (stack !== undefined) record.errorStack = stack;
  return record;
}

export function scoredRecord<M extends Metadata>(
  ctx: SampleContext<M>,
  sample: EvalSample<M>,
  question: string,
  sampleId: string | undefined,
  output: PipelineOutput,
  scores: Record<string, number | null>,
  errors: string | null,
  incomplete: boolean,
  latencyMs: number,
  attempts: number | undefined,
  retrieved: RetrievedChunk[] | null,
  judgeUsage: JudgeUsage | undefined,
  judgments?: Judgments,
): Outcome {
  // Aborted while scoring (a judge cut short): not finished, leave it for a resume.
  if (incomplete && ctx.signal?.aborted) return CANCELLED;
  const status: SampleStatus = incomplete ? "incomplete" : "successful";
  const usage = keptUsage(output.usage);
  const judged = judgeUsage !== undefined && judgeUsage.calls > 0;
  if (attempts === undefined && usage === undefined && !judged && judgments === undefined) {
    // The usual record, built as one literal in the order the general path below gives its keys:
    // adding `retrieved` and the reference fields one by one cost a property-store allocation
    // (and its growth) per sample (issue 27's runner bench).
    const { answer, ids: retrievedIds, uris: retrievedUris } = output;
    const { expectedAnswers, relevantIds } = sample;
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
            error: errors,
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
            error: errors,
            sampleId,
            retrieved,
            expectedAnswers,
            relevantIds,
          };
    keepOptionalReference(record, sample);
    return record;
  }
  const record = sampleRecord(
    question,
    sampleId,
    status,
    scores,
    output.answer,
    output.ids,
    output.uris,
    latencyMs,
    errors,
    attempts,
  );
  record.retrieved = retrieved;
  if (usage !== undefined) record.usage = usage;
  if (judged) record.judgeUsage = judgeUsage;
  if (judgments !== undefined) record.judgments = judgments;
  keepReference(record, sample);
  return record;
}

type MutableRecord = { -readonly [K in keyof SampleResult]: SampleResult[K] };

/**
 * A sample's record, `sampleId` and `attempts` last where present. Built as one literal with its
 * `sampleId`: adding the id to a built record cost a map transition and a property store per
 * sample. `question` and `sampleId` are as read when the sample started, never re-read from a
 * sample the target may have edited.
 */
export function sampleRecord(
  question: string,
  sampleId: string | undefined,
  status: SampleStatus,
  scores: Record<string, number | null>,
  answer: string | null,
  retrievedIds: string[],
  retrievedUris: (string | null)[],
  latencyMs: number | null,
  error: string | null,
  attempts: number | undefined,
): MutableRecord {
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
      // The usual chunk, built as one literal: adding fields one by one to `{ id }` cost a map
      // transition and a property-store allocation per chunk (issue 27's runner bench).
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

/** A per-sample accumulator of the usage metrics report, and the function they report through. */
export class JudgeUsageMeter {
  calls = 0;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  totalTokens: number | undefined;
  cost: number | undefined;
  /** Handed to every metric of the sample as `MetricInput.reportUsage`. */
  readonly report = (usage: Usage): void => {
    this.calls++;
    if (usage === null || typeof usage !== "object") return;
    const { inputTokens, outputTokens, totalTokens, cost } = usage;
    if (typeof inputTokens === "number" && Number.isFinite(inputTokens))
      this.inputTokens = (this.inputTokens ?? 0) + inputTokens;
    if (typeof outputTokens === "number" && Number.isFinite(outputTokens))
      this.outputTokens = (this.outputTokens ?? 0) + outputTokens;
    if (typeof totalTokens === "number" && Number.isFinite(totalTokens))
      this.totalTokens = (this.totalTokens ?? 0) + totalTokens;
    if (typeof cost === "number" && Number.isFinite(cost)) this.cost = (this.cost ?? 0) + cost;
  };

  /** What was reported, or undefined when nothing was. */
  total(): JudgeUsage | undefined {
    if (this.calls === 0) return undefined;
    const out: { -readonly [K in keyof JudgeUsage]: JudgeUsage[K] } = { calls: this.calls };
    if (this.inputTokens !== undefined) out.inputTokens = this.inputTokens;
    if (this.outputTokens !== undefined) out.outputTokens = this.outputTokens;
    if (this.totalTokens !== undefined) out.totalTokens = this.totalTokens;
    if (this.cost !== undefined) out.cost = this.cost;
    return out;
  }
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
