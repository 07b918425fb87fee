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
import type { DistributionSummary, SampleResult, SampleStatus, StatusCounts } from "../types.js";
import { SUMMARY_STATS } from "../types.js";
import { parseCreatedAt } from "./date.js";
import type { BenchmarkResult, BenchmarkResultInit, DatasetInfo, ShardSpec } from "./model.js";

/** The format string written into every result file. Files of another major version are refused. */
export const RESULT_FORMAT = "fastrag-bench-result/1";
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
  shard?: ShardSpec;
  samples: SampleFile[];
}

/** The on-disk shape of one sample (snake_case). */
export interface SampleFile {
  sample_id?: string;
  question: string;
  status: SampleStatus;
  scores: Record<string, number | null>;
  answer: string | null;
  retrieved_ids: string[];
  retrieved_uris: (string | null)[];
  latency_ms: number | null;
  error: string | null;
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
  if (r.shard) out.shard = { index: r.shard.index, count: r.shard.count };
  return out;
}

/** Converts a sample record to its snake_case file shape. */
export function sampleToJson(s: SampleResult): SampleFile {
  const out: SampleFile = {
    question: s.question,
    status: s.status,
    scores: s.scores as Record<string, number | null>,
    answer: s.answer,
    retrieved_ids: s.retrievedIds as string[],
    retrieved_uris: s.retrievedUris as (string | null)[],
    latency_ms: s.latencyMs,
    error: s.error,
  };
  if (s.sampleId !== undefined) return { sample_id: s.sampleId, ...out, ...attemptsOf(s) };
  return { ...out, ...attemptsOf(s) };
}

function attemptsOf(s: SampleResult): { attempts?: number } {
  return s.attempts === undefined ? {} : { attempts: s.attempts };
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
  if (m[1] !== "1") {
    throw new ConfigurationError(
      `${source}: result format "${format}" is not supported by this version, which reads "${RESULT_FORMAT}"; upgrade @fastrag/bench-core`,
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
    out.shard = { index, count };
  }
  return out;
}

function parseSummary(value: unknown, source: string, where: string): DistributionSummary {
  const o = expectObject(value, source, where);
  const out: Record<string, number | null> = {};
  for (const stat of SUMMARY_STATS) {
    const v = o[stat];
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
  const ids = expectArray(
    requiredField(o, "retrieved_ids", "an array of strings", source, where),
    source,
    `${where}.retrieved_ids`,
  );
  const retrievedIds: string[] = new Array(ids.length);
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
  const retrievedUris: (string | null)[] = new Array(uris.length);
  for (let i = 0; i < uris.length; i++) {
    const u = uris[i];
    retrievedUris[i] =
      u === null || typeof u === "string"
        ? u
        : expectStringOrNull(u, source, `${where}.retrieved_uris[${i}]`);
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
