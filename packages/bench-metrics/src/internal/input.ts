import type { EvalSample, MetricInput, RetrievedChunk, Usage } from "@fastrag/bench-core";
// The light entry: `fastrag-bench eval` loads the retrieval metrics without the runner.
import { ConfigurationError } from "@fastrag/bench-core/internal/base";
import { describeValue } from "./options.js";

// A metric called directly (`metric.score(input)` in a caller's own harness) gets whatever the
// caller built. These checks turn a malformed input into a ConfigurationError that names the
// metric and the field, instead of a TypeError from deep inside a kernel. They are O(1) per call;
// the per-element checks (ids, chunks, grades, expected answers) ride on loops that already walk
// those arrays. The runner validates all of this before any metric runs, so inside a Benchmark
// they never fire: what it passes through unchecked (usage counts, documentId) stays a per-sample
// MetricUnavailableError.

/**
 * The error for a malformed field of a metric's input: `Recall.score: input.retrieved must be an
 * array of chunks { id, … }, found undefined`.
 */
export function malformed(
  metric: string,
  field: string,
  expected: string,
  found: unknown,
): ConfigurationError {
  return new ConfigurationError(
    `${metric}.score: input.${field} must be ${expected}, found ${describeValue(found)}`,
    { kind: "invalid-input", field: `input.${field}` },
  );
}

/** The input, once known to be an object. */
export function inputOf(metric: string, input: MetricInput): MetricInput {
  if (typeof input !== "object" || input === null) {
    throw new ConfigurationError(
      `${metric}.score: expected a MetricInput object { sample, answer, retrieved, latencyMs }, found ${describeValue(input)}`,
      { kind: "invalid-input" },
    );
  }
  return input;
}

/** The input's sample, once the input and its sample are known to be objects. */
export function sampleOf(metric: string, input: MetricInput): EvalSample {
  inputOf(metric, input);
  const sample: unknown = input.sample;
  if (typeof sample !== "object" || sample === null) {
    throw malformed(metric, "sample", "an EvalSample object", sample);
  }
  return sample as EvalSample;
}

/** What every retrieval metric reads: the sample's relevant ids and the ranking, as arrays. */
export function expectRetrievalInput(metric: string, input: MetricInput): EvalSample {
  const sample = sampleOf(metric, input);
  if (!Array.isArray(sample.relevantIds)) {
    throw malformed(metric, "sample.relevantIds", "an array of id strings", sample.relevantIds);
  }
  expectRetrieved(metric, input.retrieved);
  return sample;
}

/** `input.retrieved` is an array (its chunks are checked where they are read). */
export function expectRetrieved(metric: string, retrieved: unknown): void {
  if (!Array.isArray(retrieved)) {
    throw malformed(metric, "retrieved", "an array of chunks { id, … }", retrieved);
  }
}

/** The chunk at `i`, which must be an object. */
export function chunkAt(
  metric: string,
  retrieved: readonly RetrievedChunk[],
  i: number,
): RetrievedChunk {
  const chunk: unknown = retrieved[i];
  if (typeof chunk !== "object" || chunk === null) {
    throw malformed(metric, `retrieved[${i}]`, "a chunk { id: string, … }", chunk);
  }
  return chunk as RetrievedChunk;
}

/** `sample.relevance`, when given, is an object of id → grade (its grades are checked where read). */
export function expectRelevance(metric: string, sample: EvalSample): void {
  const relevance: unknown = sample.relevance;
  if (
    relevance !== undefined &&
    (typeof relevance !== "object" || relevance === null || Array.isArray(relevance))
  ) {
    throw malformed(metric, "sample.relevance", "an object of id → grade", relevance);
  }
}

/**
 * The answer and expected answers a generation metric reads: `answer` a string, or `null` when
 * the target gives none (a bare retriever); `expectedAnswers` an array (its entries are checked
 * where they are read, with {@link expectedAnswerAt}).
 */
export function expectGenerationInput(metric: string, input: MetricInput): EvalSample {
  const sample = sampleOf(metric, input);
  answerOf(metric, input);
  if (!Array.isArray(sample.expectedAnswers)) {
    throw malformed(
      metric,
      "sample.expectedAnswers",
      "an array of strings",
      sample.expectedAnswers,
    );
  }
  return sample;
}

/** The answer: a string, or `null` when the target gives none (call after {@link sampleOf}). */
export function answerOf(metric: string, input: MetricInput): string | null {
  const answer: unknown = input.answer;
  if (answer !== null && typeof answer !== "string") {
    throw malformed(metric, "answer", "a string, or null when there is no answer", answer);
  }
  return answer;
}

/** The expected answer at `i`, which must be a string. */
export function expectedAnswerAt(metric: string, expected: readonly string[], i: number): string {
  const answer: unknown = expected[i];
  if (typeof answer !== "string") {
    throw malformed(metric, `sample.expectedAnswers[${i}]`, "a string", answer);
  }
  return answer;
}

/**
 * The engine's reported usage, `undefined` when it reported none (`undefined` or `null`). Its
 * counts are checked by the metrics that read them, as MetricUnavailableErrors: the runner passes
 * them on as the engine reported them.
 */
export function usageOf(metric: string, input: MetricInput): Usage | undefined {
  const usage: unknown = inputOf(metric, input).usage;
  if (usage === undefined || usage === null) return undefined;
  if (typeof usage !== "object" || Array.isArray(usage)) {
    throw malformed(metric, "usage", "an object such as { totalTokens, cost }", usage);
  }
  return usage as Usage;
}

/** The sample's question, for the metrics that put it in a prompt. */
export function questionOf(metric: string, sample: EvalSample): string {
  const question: unknown = sample.question;
  if (typeof question !== "string") {
    throw malformed(metric, "sample.question", "a string", question);
  }
  return question;
}
