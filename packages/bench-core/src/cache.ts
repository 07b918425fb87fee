import { createHash } from "node:crypto";
import { ConfigurationError } from "./errors.js";
import { describeValue } from "./runner/describe-value.js";
import type { EvalSample, Usage } from "./types.js";

/**
 * A key-value store for paid model outputs: a pipeline's answer for a sample, a judge's reply to
 * a prompt, the vectors of an embedding call. Keys are the strings that {@link targetCacheKey}
 * and {@link cached} make; values are JSON-serializable and come back as their JSON round trip
 * (`undefined` properties dropped, non-finite numbers as `null`, typed arrays as whatever their
 * `toJSON` gives, so store plain arrays).
 *
 * Each method may answer synchronously or with a promise, so a store on a synchronous embedded
 * database pays no promise per hit and a remote one still fits; callers `await` every result.
 * Errors are the store's to report: a store that cannot be read throws (a `ConfigurationError`
 * naming its file, for the stores this toolkit ships), it never answers a silent miss.
 *
 * Implementations: {@link MemoryCache} here (tests, one process), and `openCache(dir)` in
 * `@fastrag/bench-cache` (SQLite on disk, shared by processes on one machine).
 */
export interface ResponseCache {
  /** The value stored under `key`, or `undefined` when there is none. */
  get(key: string): unknown | Promise<unknown>;
  /**
   * Stores `value` (JSON-serializable) under `key`, replacing any value there. A value that JSON
   * cannot hold (a `bigint`, a cycle) is refused with a `ConfigurationError`.
   */
  set(key: string, value: unknown): void | Promise<void>;
  /** Releases the store. Later calls to `get` or `set` throw. Closing twice is harmless. */
  close(): void | Promise<void>;
}

/**
 * A {@link ResponseCache} held in this process's memory: for tests, and for a library user who
 * wants one run to reuse its own model calls without a file. Values are kept as JSON text, so
 * they come back exactly as a persistent store would return them, and a caller that mutates a
 * value it got cannot change what is stored.
 *
 * @example
 * ```ts
 * const cache = new MemoryCache();
 * const judge = cached(myJudge, { cache, key: "openai:gpt-4o-mini" });
 * ```
 */
export class MemoryCache implements ResponseCache {
  readonly #entries = new Map<string, string>();
  #closed = false;

  /** Number of keys stored. */
  get size(): number {
    return this.#entries.size;
  }

  get(key: string): unknown {
    this.#checkOpen("get");
    const text = this.#entries.get(key);
    return text === undefined ? undefined : JSON.parse(text);
  }

  set(key: string, value: unknown): void {
    this.#checkOpen("set");
    this.#entries.set(key, cacheValueText(value, key));
  }

  close(): void {
    this.#closed = true;
    this.#entries.clear();
  }

  #checkOpen(method: string): void {
    if (this.#closed) {
      throw new ConfigurationError(`MemoryCache.${method}: the cache was closed`);
    }
  }
}

/**
 * The JSON text of a value to cache. A value JSON cannot hold is a `ConfigurationError` naming
 * the key; so is `undefined` (it has no JSON text, and `get` answers `undefined` for a miss).
 * Exported for the stores of other packages, which keep the same rules.
 *
 * @throws ConfigurationError when `value` has no JSON text.
 */
export function cacheValueText(value: unknown, key: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new ConfigurationError(
      `cache value for key ${JSON.stringify(key)} is not JSON-serializable: ${(error as Error).message}`,
      { cause: error },
    );
  }
  if (text === undefined) {
    throw new ConfigurationError(
      `cache value for key ${JSON.stringify(key)} is not JSON-serializable: got ${typeof value}, expected a JSON value`,
    );
  }
  return text;
}

// ----------------------------------------------------------------------------------- keys

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
    );
  }
  if (typeof runName !== "string" || runName === "") {
    throw new ConfigurationError(
      `run name: expected a non-empty string for the cache key, got ${describeValue(runName)}`,
    );
  }
  if (!Number.isSafeInteger(trial) || trial < 0) {
    throw new ConfigurationError(
      `trial: expected a non-negative integer, got ${describeValue(trial)}`,
    );
  }
  const where = sampleLabel(sample);
  const parts =
    `[${JSON.stringify(cacheKey ?? runName)},${JSON.stringify(sample.id ?? null)},` +
    `${JSON.stringify(sample.question)},${canonicalJson(sample.metadata ?? null, `${where} metadata`)},${trial}]`;
  return `target:${createHash("sha256").update(parts).digest("hex")}`;
}

/**
 * The cache key of one model call: the model key (`"openai:gpt-4o-mini"`) and the input (a judge
 * prompt, or an embedding call's texts), hashed (SHA-256). It reads `model:` followed by 64 hex
 * digits; a prompt and a one-text embedding call never share a key.
 */
export function modelCacheKey(modelKey: string, input: string | readonly string[]): string {
  const parts = `[${JSON.stringify(modelKey)},${JSON.stringify(input)}]`;
  return `model:${createHash("sha256").update(parts).digest("hex")}`;
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
      );
  }
  if (value === null) return "null";
  if (value instanceof Map || value instanceof Set) {
    throw new ConfigurationError(
      `${where}: a ${value instanceof Map ? "Map" : "Set"} cannot be part of a cache key (JSON prints every one as {}); use a plain object or array`,
    );
  }
  if (seen.includes(value)) {
    throw new ConfigurationError(`${where}: a cycle cannot be part of a cache key`);
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

// ------------------------------------------------------------------------- cached(fn)

/**
 * The second argument of a model function that {@link cached} wraps: the shape of
 * `@fastrag/bench-metrics`' `ModelCallOptions` (core does not depend on metrics).
 */
export interface CachedCallOptions {
  readonly signal?: AbortSignal;
  /** Called by the model function with what a call cost. {@link cached} never calls it on a hit. */
  readonly reportUsage?: (usage: Usage) => void;
}

/** Options of {@link cached}. */
export interface CachedOptions {
  /** Where replies are kept. */
  readonly cache: ResponseCache;
  /**
   * Names the model: `"<provider>:<modelId>"`, plus whatever else changes its replies
   * (temperature, a system prompt), so that a different model never answers from another's
   * entries. When absent, the wrapped function's own `cacheKey` string property is used (the AI
   * SDK adapters of `@fastrag/bench-ai` set one).
   */
  readonly key?: string;
}

/** A judge: a prompt in, the model's reply out (`JudgeFunction` of `@fastrag/bench-metrics`). */
export type CachableJudge<O extends CachedCallOptions> = (
  prompt: string,
  options: O,
) => string | Promise<string>;

/** An embedding model: texts in, one vector per text out (`EmbedFunction` of metrics). */
export type CachableEmbed<O extends CachedCallOptions> = (
  texts: readonly string[],
  options: O,
) => readonly ArrayLike<number>[] | Promise<readonly ArrayLike<number>[]>;

/**
 * Wraps a judge or an embedding function so that each distinct call is paid for once: the reply
 * is stored in `cache` under the model key and the input (the judge prompt, or the texts to
 * embed; see {@link modelCacheKey}), and the same call later answers from the store without
 * calling the model. Use it around the `judge` or `embed` you give to a metric.
 *
 * - Only replies are stored: a call that throws or rejects stores nothing and throws as before,
 *   so it is tried again next time. A judge reply that is not a string, or vectors that are not
 *   arrays of finite numbers, are handed back unstored (the metric reports them).
 * - Vectors come back from the store as plain `number[]` (a `Float32Array` reply is stored as
 *   its numbers, which JSON keeps exactly).
 * - Usage: on a miss the model function gets the caller's options, `reportUsage` included, and
 *   reports what it paid. A hit calls nothing and reports nothing: no tokens and no cost were
 *   spent, and a hit is not a model call in `judge_usage`'s `calls`.
 * - A store that cannot be read or written throws its error (the metric records it for that
 *   sample); it is never taken for a miss.
 * - Two identical calls in flight at once both call the model (each sample keeps its own
 *   `signal`); the second reply to land overwrites the first.
 *
 * @throws ConfigurationError when there is neither a `key` option nor a non-empty `cacheKey`
 * string on `fn`, or `cache` lacks `get`/`set`.
 *
 * @example
 * ```ts
 * const cache = openCache(".cache"); // @fastrag/bench-cache
 * const judge = cached(myJudge, { cache, key: "openai:gpt-4o-mini@t0" });
 * const metric = new AnswerCorrectness({ judge });
 * ```
 */
export function cached<O extends CachedCallOptions>(
  fn: CachableJudge<O>,
  options: CachedOptions,
): (prompt: string, options: O) => Promise<string>;
export function cached<O extends CachedCallOptions>(
  fn: CachableEmbed<O>,
  options: CachedOptions,
): (texts: readonly string[], options: O) => Promise<readonly number[][]>;
export function cached<O extends CachedCallOptions>(
  fn: CachableJudge<O> | CachableEmbed<O>,
  options: CachedOptions,
): (input: string & readonly string[], options: O) => Promise<string | readonly number[][]> {
  if (typeof fn !== "function") {
    throw new ConfigurationError(
      `cached: expected a judge or embed function, got ${describeValue(fn)}`,
    );
  }
  if (typeof options !== "object" || options === null) {
    throw new ConfigurationError(
      `cached: expected options { cache, key }, got ${describeValue(options)}`,
    );
  }
  const { cache } = options;
  if (
    typeof cache !== "object" ||
    cache === null ||
    typeof cache.get !== "function" ||
    typeof cache.set !== "function"
  ) {
    throw new ConfigurationError(
      `cached: option "cache" must be a ResponseCache (an object with get and set), got ${describeValue(cache)}`,
    );
  }
  const own = (fn as { cacheKey?: unknown }).cacheKey;
  const modelKey = options.key ?? own;
  if (typeof modelKey !== "string" || modelKey === "") {
    throw new ConfigurationError(
      options.key !== undefined
        ? `cached: option "key" must be a non-empty string naming the model, got ${describeValue(options.key)}`
        : `cached: no model key: pass { key: "<provider>:<model>" } (for example "openai:gpt-4o-mini"), or give the function a cacheKey string property; ${fn.name === "" ? "the function" : `function ${fn.name}`} has ${own === undefined ? "none" : `cacheKey ${describeValue(own)}`}`,
    );
  }
  const call = fn as (input: unknown, options: O) => unknown;
  return async (input, callOptions) => {
    const key = modelCacheKey(modelKey, input);
    const hit = await cache.get(key);
    if (hit !== undefined) {
      if (storable(input, hit)) return hit as string | number[][];
      // Only this wrapper writes model keys, so another shape is a damaged or foreign store:
      // calling again would pay silently for what the store claims to hold.
      throw new ConfigurationError(
        `cached: the store's entry for model ${JSON.stringify(modelKey)} (key ${key}) is not a ${typeof input === "string" ? "judge reply (a string)" : "list of vectors"}; the store holds something else under this key: clear it`,
      );
    }
    const reply = await call(input, callOptions);
    if (typeof input === "string") {
      if (typeof reply === "string") await cache.set(key, reply);
      return reply as string;
    }
    const vectors = plainVectors(reply);
    if (vectors === undefined) return reply as number[][];
    await cache.set(key, vectors);
    return vectors;
  };
}

/** Whether a stored value has the shape of a reply to `input`. */
function storable(input: unknown, value: unknown): boolean {
  if (typeof input === "string") return typeof value === "string";
  return plainVectors(value) !== undefined;
}

/** The vectors as plain finite-number arrays, or `undefined` when they are not vectors. */
function plainVectors(reply: unknown): number[][] | undefined {
  if (!Array.isArray(reply)) return undefined;
  const out: number[][] = new Array(reply.length);
  for (let i = 0; i < reply.length; i++) {
    const v = reply[i] as unknown;
    if (
      typeof v !== "object" ||
      v === null ||
      typeof (v as ArrayLike<number>).length !== "number"
    ) {
      return undefined;
    }
    const like = v as ArrayLike<unknown>;
    const row: number[] = new Array(like.length);
    for (let j = 0; j < like.length; j++) {
      const x = like[j];
      if (typeof x !== "number" || !Number.isFinite(x)) return undefined;
      row[j] = x;
    }
    out[i] = row;
  }
  return out;
}
