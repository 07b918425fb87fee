// A result file's header read into the model: every field but `samples`, each checked, with
// messages naming the file and the field.

import { describeValue } from "../describe-value.js";
import { ConfigurationError } from "../errors.js";
import {
  expectBoolean,
  expectFiniteOrNull,
  expectNonNegativeInt,
  expectObject,
  expectString,
  setOwn,
} from "../internal/validate.js";
import type { DistributionSummary, StatusCounts } from "../types.js";
import { SUMMARY_STATS } from "../types.js";
import { RESULT_FORMAT } from "./codec.js";
import { parseCreatedAt } from "./date.js";
import { parseJudgeUsage, parseUsage } from "./decode-sample.js";
import type {
  BenchmarkResultInit,
  Provenance,
  RateLimitRecord,
  ResultShard,
} from "./result-init.js";

const READABLE: ReadonlySet<string> = new Set(["1", "2"]);
const FORMAT_RE = /^fastrag-bench-result\/(\d+)(?:\.\d+)*$/;

/**
 * Reads and checks the header of a result file (every field but `samples`).
 *
 * @throws {ConfigurationError} naming `source` and the offending field.
 */
export function parseHeader(data: unknown, source: string): Header {
  const obj = expectObject(data, source, "the top level");
  expectFormat(obj, source);
  const name = expectString(obj.name, source, "name");
  const createdAt = parseCreatedAt(expectString(obj.created_at, source, "created_at"), source);
  const durationS = expectFiniteOrNull(obj.duration_s, source, "duration_s");
  if (durationS === null || durationS < 0) {
    throw new ConfigurationError(
      `${source}: duration_s: expected a non-negative number, found ${describeValue(obj.duration_s)}`,
      { kind: "invalid-input", path: source, field: "duration_s" },
    );
  }
  const statusObj = expectObject(obj.status, source, "status");
  const status: StatusCounts = {
    successful: expectNonNegativeInt(statusObj.successful, source, "status.successful"),
    errored: expectNonNegativeInt(statusObj.errored, source, "status.errored"),
    incomplete: expectNonNegativeInt(statusObj.incomplete, source, "status.incomplete"),
  };
  const higherIsBetter = parseDirections(obj, source);
  const summary = parseSummaries(obj, higherIsBetter, source);
  const out: { -readonly [K in keyof Header]: Header[K] } = {
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
  if (obj.shard !== undefined && obj.shard !== null) out.shard = parseShard(obj.shard, source);
  if (obj.rate_limit !== undefined && obj.rate_limit !== null) {
    out.rateLimit = parseRateLimit(obj.rate_limit, source);
  }
  if (obj.keep_chunk_text !== undefined)
    out.keepChunkText = expectBoolean(obj.keep_chunk_text, source, "keep_chunk_text");
  if (obj.usage !== undefined && obj.usage !== null)
    out.usage = parseUsage(obj.usage, source, "usage");
  if (obj.judge_usage !== undefined && obj.judge_usage !== null)
    out.judgeUsage = parseJudgeUsage(obj.judge_usage, source, "judge_usage");
  const provenance = parseProvenance(obj, source);
  if (provenance !== undefined) out.provenance = provenance;
  if (obj.trials !== undefined && obj.trials !== null) {
    const trials = expectNonNegativeInt(obj.trials, source, "trials");
    if (trials < 1) {
      throw new ConfigurationError(
        `${source}: trials: expected a positive number of trials per sample, found ${trials}`,
        { kind: "invalid-input", path: source, field: "trials" },
      );
    }
    out.trials = trials;
  }
  return out;
}

type Header = Omit<BenchmarkResultInit, "samples">;

/** A result of a format version this core reads (1 and 2). */
function expectFormat(obj: Record<string, unknown>, source: string): void {
  if (!("format" in obj) && !("samples" in obj)) {
    throw new ConfigurationError(
      `${source}: not a fastrag bench result: expected an object with "format" and "samples", found keys ${describeKeys(obj)}`,
      { kind: "invalid-input", path: source },
    );
  }
  const format = expectString(obj.format, source, "format");
  const m = FORMAT_RE.exec(format);
  if (!m) {
    throw new ConfigurationError(
      `${source}: not a fastrag bench result: format is "${format}", expected "${RESULT_FORMAT}"`,
      { kind: "invalid-input", path: source, field: "format" },
    );
  }
  if (!READABLE.has(m[1] as string)) {
    throw new ConfigurationError(
      `${source}: result format "${format}" is not supported by this version, which reads "fastrag-bench-result/1" and "${RESULT_FORMAT}"; upgrade @fastrag/bench-core`,
      { kind: "invalid-input", path: source, field: "format" },
    );
  }
}

/** `higher_is_better`: metric → direction, in the run's metric order. */
function parseDirections(obj: Record<string, unknown>, source: string): Record<string, boolean> {
  const hib = expectObject(obj.higher_is_better, source, "higher_is_better");
  const higherIsBetter: Record<string, boolean> = {};
  for (const key of Object.keys(hib)) {
    setOwn(higherIsBetter, key, expectBoolean(hib[key], source, `higher_is_better["${key}"]`));
  }
  return higherIsBetter;
}

/** `summary`: metric → its statistics, each of a metric whose direction the file says. */
function parseSummaries(
  obj: Record<string, unknown>,
  higherIsBetter: Readonly<Record<string, boolean>>,
  source: string,
): Record<string, DistributionSummary> {
  const summaryObj = expectObject(obj.summary, source, "summary");
  const summary: Record<string, DistributionSummary> = {};
  for (const key of Object.keys(summaryObj)) {
    setOwn(summary, key, parseSummary(summaryObj[key], source, `summary["${key}"]`));
    if (!Object.hasOwn(higherIsBetter, key)) {
      throw new ConfigurationError(
        `${source}: summary has metric "${key}" but higher_is_better does not say its direction`,
        { kind: "invalid-input", path: source, field: "summary" },
      );
    }
  }
  return summary;
}

function parseShard(value: unknown, source: string): ResultShard {
  const s = expectObject(value, source, "shard");
  const index = expectNonNegativeInt(s.index, source, "shard.index");
  const count = expectNonNegativeInt(s.count, source, "shard.count");
  if (count < 1 || index >= count) {
    throw new ConfigurationError(
      `${source}: shard: expected 0 ≤ index < count, found index ${index}, count ${count}`,
      { kind: "invalid-input", path: source, field: "shard" },
    );
  }
  if (s.samples_fingerprint === undefined) return { index, count };
  return {
    index,
    count,
    samplesFingerprint: expectString(s.samples_fingerprint, source, "shard.samples_fingerprint"),
  };
}

/** `config_hash`, `git_commit` and `params`, when the file has any of them. */
function parseProvenance(obj: Record<string, unknown>, source: string): Provenance | undefined {
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
  return hasProvenance ? provenance : undefined;
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

function describeKeys(obj: Record<string, unknown>): string {
  const keys = Object.keys(obj);
  return keys.length === 0
    ? "(none)"
    : keys
        .slice(0, 8)
        .map((k) => JSON.stringify(k))
        .join(", ");
}
