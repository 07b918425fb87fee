// Cache keys: what a target's answer for a sample, or a model call, is stored under (a hash of
// canonical JSON, so that equal inputs meet).
import { createHash } from "node:crypto";
import { describeValue } from "./describe-value.js";
import { ConfigurationError } from "./errors.js";
import type { EvalSample } from "./types.js";

/** What {@link targetCacheKey} reads. */
export interface TargetCacheKeyInput {
  /**
   * The target's `cacheKey`: a string the user changes when the pipeline changes (a new prompt,
   * model or index), so that its outputs are no longer reused. When absent, the run name is used.
   */
  readonly cacheKey?: string | undefined;
  /** The run's name: the key when the target has no `cacheKey`. */
  readonly runName: string;
  /** The sample: its id, question and metadata are part of the key (not its expected answers). */
  readonly sample: Pick<EvalSample, "id" | "question" | "metadata">;
  /** The trial number, from 0 (the default). */
  readonly trial?: number;
}

/**
 * The cache key of a target's output for one sample: the target's `cacheKey` (else the run
 * name), the sample's id, question and metadata, and the trial number, hashed (SHA-256). It is
 * the same in every process and on every machine, and metadata's key order does not change it,
 * so a re-run, a resume elsewhere or another shard finds what an earlier run stored. Editing a
 * question, its id or its metadata gives a new key (that sample is called again); editing its
 * expected answers or relevant ids does not (they change scores, not the pipeline's output).
 *
 * The key reads `target:` followed by 64 hex digits.
 *
 * @throws ConfigurationError when `cacheKey` or `runName` is not a non-empty string, `trial` is
 * not a non-negative integer, or metadata holds what JSON cannot say (a `bigint`, a `Map`, a
 * `Set`, a cycle): two different values would otherwise share a key.
 *
 * @example
 * ```ts
 * const key = targetCacheKey({ cacheKey: "rag-v3", runName: "baseline", sample, trial: 0 });
 * ```
 */
export function targetCacheKey(input: TargetCacheKeyInput): string {
  const { cacheKey, runName, sample } = input;
  const trial = input.trial ?? 0;
  if (cacheKey !== undefined && (typeof cacheKey !== "string" || cacheKey === "")) {
    throw new ConfigurationError(
      `cacheKey: expected a non-empty string, got ${describeValue(cacheKey)}`,
      { kind: "invalid-option", option: "cacheKey" },
    );
  }
  if (typeof runName !== "string" || runName === "") {
    throw new ConfigurationError(
      `run name: expected a non-empty string for the cache key, got ${describeValue(runName)}`,
      { kind: "invalid-option", option: "runName" },
    );
  }
  if (!Number.isSafeInteger(trial) || trial < 0) {
    throw new ConfigurationError(
      `trial: expected a non-negative integer, got ${describeValue(trial)}`,
      { kind: "invalid-option", option: "trial" },
    );
  }
  const where = sampleLabel(sample);
  const parts =
    `[${JSON.stringify(cacheKey ?? runName)},${JSON.stringify(sample.id ?? null)},` +
    `${JSON.stringify(sample.question)},${canonicalJson(sample.metadata ?? null, `${where} metadata`)},${trial}]`;
  return `target:${createHash("sha256").update(parts).digest("hex")}`;
}

/**
 * The cache key of one model call: the model key (`"openai:gpt-4o-mini"`), the input (a judge
 * prompt, or an embedding call's texts) and a judge step's attempt (when above 0), hashed (SHA-256). It reads `model:` followed by 64 hex
 * digits; a prompt and a one-text embedding call never share a key.
 */
export function modelCacheKey(
  modelKey: string,
  input: string | readonly string[],
  attempt?: number,
): string {
  // Attempt 0 (and none) keys as before, so existing stores still hit.
  const parts =
    attempt === undefined || attempt === 0
      ? `[${JSON.stringify(modelKey)},${JSON.stringify(input)}]`
      : `[${JSON.stringify(modelKey)},${JSON.stringify(input)},${attempt}]`;
  return `model:${createHash("sha256").update(parts).digest("hex")}`;
}

/**
 * The key of one judge step (DESIGN §11): the judge's model key (its `cacheKey`, `null` for a
 * judge without one), the step's name, its structured input, the attempt and (optionally) the
 * prompt's wording, hashed (SHA-256)
 * over a canonical JSON (object keys sorted), so the same question asked by two metrics, or in
 * two runs, has one key. It reads `judge:` followed by 64 hex digits.
 *
 * @throws {ConfigurationError} when `input` holds what JSON cannot tell apart (a bigint, a Map).
 */
export function judgeStepKey(
  modelKey: string | null,
  step: string,
  input: unknown,
  attempt: number,
  prompt?: string,
): string {
  // `prompt` names the prompt's wording (a version, or a custom prompt's text): replies to one
  // wording are not taken for another's.
  const parts = `[${JSON.stringify(modelKey)},${JSON.stringify(step)},${canonicalJson(input, `step ${step} input`)},${attempt}${prompt === undefined ? "" : `,${JSON.stringify(prompt)}`}]`;
  return `judge:${createHash("sha256").update(parts).digest("hex")}`;
}

function sampleLabel(sample: Pick<EvalSample, "id" | "question">): string {
  return sample.id !== undefined
    ? `sample ${JSON.stringify(sample.id)}`
    : `sample ${JSON.stringify(String(sample.question).slice(0, 60))}`;
}

/**
 * JSON with object keys sorted at every depth, so two metadata objects that differ only in key
 * order give one text. It follows `JSON.stringify` otherwise (`toJSON`, `undefined` properties
 * left out, `undefined` in arrays as `null`), and refuses what JSON would blur into another
 * value: a `bigint`, a `Map` or `Set` (both print `{}`), a function in an array, a cycle.
 */
function canonicalJson(value: unknown, where: string, seen: unknown[] = []): string {
  if (
    value !== null &&
    typeof value === "object" &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  ) {
    value = (value as { toJSON(key: string): unknown }).toJSON("");
  }
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "null";
    case "undefined":
    case "function":
    case "symbol":
      return "null";
    case "bigint":
      throw new ConfigurationError(
        `${where}: a bigint cannot be part of a cache key; store it as a string or number`,
        { kind: "invalid-input", field: "metadata" },
      );
  }
  if (value === null) return "null";
  if (value instanceof Map || value instanceof Set) {
    throw new ConfigurationError(
      `${where}: a ${value instanceof Map ? "Map" : "Set"} cannot be part of a cache key (JSON prints every one as {}); use a plain object or array`,
      { kind: "invalid-input", field: "metadata" },
    );
  }
  if (seen.includes(value)) {
    throw new ConfigurationError(`${where}: a cycle cannot be part of a cache key`, {
      kind: "invalid-input",
      field: "metadata",
    });
  }
  seen.push(value);
  let text: string;
  if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    const items = Array.isArray(value) ? value : Array.from(value as unknown as ArrayLike<unknown>);
    text = "[";
    for (let i = 0; i < items.length; i++) {
      if (i > 0) text += ",";
      text += canonicalJson(items[i], `${where}[${i}]`, seen);
    }
    text += "]";
  } else {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    text = "{";
    let first = true;
    for (const key of keys) {
      const item = record[key];
      if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
      if (!first) text += ",";
      first = false;
      text += `${JSON.stringify(key)}:${canonicalJson(item, `${where}.${key}`, seen)}`;
    }
    text += "}";
  }
  seen.pop();
  return text;
}
