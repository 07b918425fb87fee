// Sample records: what a finished sample keeps, scored or errored.
import { setOwn } from "../internal/validate.js";
import type { Metadata, Metric, SampleResult, SampleStatus } from "../types.js";
import type { PipelineOutput } from "./check-output.js";
import { errorMessage } from "./error-message.js";
import { CANCELLED, type Outcome, type SampleContext } from "./sample-context.js";

export function erroredRecord<M extends Metadata>(
  ctx: SampleContext<M>,
  question: string,
  sampleId: string | undefined,
  error: unknown,
  attempts: number | undefined,
): SampleResult {
  const metrics = ctx.metrics;
  const scores: Record<string, number | null> = {};
  for (let m = 0; m < metrics.length; m++) setOwn(scores, (metrics[m] as Metric<M>).name, null);
  const message = errorMessage(error);
  return sampleRecord(question, sampleId, "errored", scores, null, [], [], null, message, attempts);
}

export function scoredRecord<M extends Metadata>(
  ctx: SampleContext<M>,
  question: string,
  sampleId: string | undefined,
  output: PipelineOutput,
  scores: Record<string, number | null>,
  errors: string | null,
  incomplete: boolean,
  latencyMs: number,
  attempts: number | undefined,
): Outcome {
  // Aborted while scoring (a judge cut short): not finished, leave it for a resume.
  if (incomplete && ctx.signal?.aborted) return CANCELLED;
  const status: SampleStatus = incomplete ? "incomplete" : "successful";
  return sampleRecord(
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
}

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
): SampleResult {
  const record: { -readonly [K in keyof SampleResult]: SampleResult[K] } =
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
