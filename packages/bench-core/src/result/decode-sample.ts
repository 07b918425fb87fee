// One sample of a result file (or a journal line) read into a record: every field checked, with
// messages naming the file, the sample and the field; format 1's retrieved ids and uris and
// format 2's chunks both read.

import { describeValue } from "../describe-value.js";
import { ConfigurationError } from "../errors.js";
import {
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
  JudgeUsage,
  JudgmentStep,
  Judgments,
  RetrievedChunk,
  SampleResult,
  SampleStatus,
  SampleTrial,
  Usage,
} from "../types.js";
import { expectSampleTrials, trialOf } from "./trials.js";

const STATUSES: ReadonlySet<string> = new Set(["successful", "incomplete", "errored"]);

const USAGE_KEYS = [
  ["input_tokens", "inputTokens"],
  ["output_tokens", "outputTokens"],
  ["total_tokens", "totalTokens"],
  ["cost", "cost"],
] as const;

export function parseUsage(value: unknown, source: string, where: string): Usage {
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

export function parseJudgeUsage(value: unknown, source: string, where: string): JudgeUsage {
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
        { kind: "invalid-input", path: source, field: `${where}["${key}"]` },
      );
    }
    setOwn(out, key, g);
  }
  return out;
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
      { kind: "invalid-input", path: source, field: `${where}.status` },
    );
  }
  const scores = parseScores(o, status, source, where);
  // Format 2 keeps the chunks, whose ids and uris are derived; format 1 the ids and uris alone.
  const retrieved =
    o.retrieved === undefined
      ? undefined
      : o.retrieved === null
        ? null
        : parseChunks(o.retrieved, source, `${where}.retrieved`);
  const retrievedIds =
    retrieved === undefined ? formatOneIds(o, source, where) : idsOf(retrieved ?? []);
  const retrievedUris =
    retrieved === undefined
      ? formatOneUris(o, retrievedIds.length, source, where)
      : urisOf(retrieved ?? []);
  const sample: MutableSample = {
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
  addOptionalFields(sample, o, source, where);
  return sample;
}

type MutableSample = { -readonly [K in keyof SampleResult]: SampleResult[K] };

/** A sample's scores: finite numbers or `null`, all `null` in an errored sample. */
function parseScores(
  o: Record<string, unknown>,
  status: string,
  source: string,
  where: string,
): Record<string, number | null> {
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
        `${source}: ${where}.scores["${key}"]: an errored sample has no scores (every one is null: a failure is never scored), found ${describeValue(v)}`,
        { kind: "invalid-input", path: source, field: `${where}.scores` },
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
  return scores;
}

function idsOf(chunks: readonly RetrievedChunk[]): string[] {
  const ids: string[] = new Array(chunks.length);
  for (let i = 0; i < chunks.length; i++) ids[i] = (chunks[i] as RetrievedChunk).id;
  return ids;
}

function urisOf(chunks: readonly RetrievedChunk[]): (string | null)[] {
  const uris: (string | null)[] = new Array(chunks.length);
  for (let i = 0; i < chunks.length; i++) uris[i] = (chunks[i] as RetrievedChunk).uri ?? null;
  return uris;
}

/** A format-1 sample's `retrieved_ids` (a format-2 sample without `retrieved` is refused here). */
function formatOneIds(o: Record<string, unknown>, source: string, where: string): string[] {
  if (o.retrieved_ids === undefined) {
    throw new ConfigurationError(
      `${source}: ${where}.retrieved: missing, expected an array of chunks { id, … } (format 2), or retrieved_ids (format 1)`,
      { kind: "invalid-input", path: source, field: `${where}.retrieved` },
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
  const out: string[] = new Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    out[i] = typeof id === "string" ? id : expectString(id, source, `${where}.retrieved_ids[${i}]`);
  }
  return out;
}

/** A format-1 sample's `retrieved_uris`, one per id (`null` throughout when absent). */
function formatOneUris(
  o: Record<string, unknown>,
  count: number,
  source: string,
  where: string,
): (string | null)[] {
  const uris =
    o.retrieved_uris === undefined || o.retrieved_uris === null
      ? new Array<null>(count).fill(null)
      : expectArray(o.retrieved_uris, source, `${where}.retrieved_uris`);
  if (uris.length !== count) {
    throw new ConfigurationError(
      `${source}: ${where}.retrieved_uris: expected one entry per retrieved id (${count}, null where a chunk has no uri), found ${uris.length}`,
      { kind: "invalid-input", path: source, field: `${where}.retrieved_uris` },
    );
  }
  const out: (string | null)[] = new Array(uris.length);
  for (let i = 0; i < uris.length; i++) {
    const u = uris[i];
    out[i] =
      u === null || typeof u === "string"
        ? u
        : expectStringOrNull(u, source, `${where}.retrieved_uris[${i}]`);
  }
  return out;
}

/**
 * The fields a sample has only when it has them, in the order `save` writes them: usage, cache
 * flag, judge usage and judgments, the error's stack, the dataset sample's reference fields, and
 * the trials (checked against the sample).
 */
function addOptionalFields(
  sample: MutableSample,
  o: Record<string, unknown>,
  source: string,
  where: string,
): void {
  if (o.usage !== undefined && o.usage !== null)
    sample.usage = parseUsage(o.usage, source, `${where}.usage`);
  if (o.cached !== undefined && o.cached !== null) {
    if (expectBoolean(o.cached, source, `${where}.cached`)) sample.cached = true;
  }
  if (o.judge_usage !== undefined && o.judge_usage !== null)
    sample.judgeUsage = parseJudgeUsage(o.judge_usage, source, `${where}.judge_usage`);
  if (o.judgments !== undefined && o.judgments !== null)
    sample.judgments = parseJudgments(o.judgments, source, `${where}.judgments`);
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
    expectSampleTrials(sample, source, where);
  }
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
    throw new ConfigurationError(`${source}: ${where}.${key}: missing, expected ${expected}`, {
      kind: "invalid-input",
      path: source,
      field: `${where}.${key}`,
    });
  }
  return v;
}

/** `judgments`: metric name → [{ step, attempt, about?, key, reply }], every field checked. */
function parseJudgments(value: unknown, source: string, where: string): Judgments {
  const o = expectObject(value, source, where);
  const out: Record<string, readonly JudgmentStep[]> = {};
  for (const metric of Object.keys(o)) {
    const at = `${where}[${JSON.stringify(metric)}]`;
    const raw = expectArray(o[metric], source, at);
    const steps: JudgmentStep[] = new Array(raw.length);
    for (let i = 0; i < raw.length; i++) {
      const w = `${at}[${i}]`;
      const s = expectObject(raw[i], source, w);
      const name = expectString(s.step, source, `${w}.step`);
      const attempt = expectNonNegativeInt(s.attempt, source, `${w}.attempt`);
      const key = expectString(s.key, source, `${w}.key`);
      const reply = expectObject(s.reply, source, `${w}.reply`);
      // In the order the runner writes them, so a loaded record prints as the run's did.
      steps[i] =
        s.about === undefined || s.about === null
          ? { step: name, attempt, key, reply }
          : { step: name, attempt, about: expectString(s.about, source, `${w}.about`), key, reply };
    }
    Object.defineProperty(out, metric, {
      value: steps,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
