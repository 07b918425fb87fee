import type { ResponseCache } from "./cache.js";
import { modelCacheKey } from "./cache-key.js";
import { describeValue } from "./describe-value.js";
import { ConfigurationError } from "./errors.js";
import { schemaProblem } from "./internal/json-schema.js";
import { expectSpecificationVersion } from "./internal/specification-version.js";
import type { JsonSchema, JudgeReply, Usage } from "./types.js";

/**
 * The second argument of a model function that {@link cached} wraps: the shape of
 * `@fastrag/bench-metrics`' `ModelCallOptions` (core does not depend on metrics).
 */
export interface CachedCallOptions {
  readonly signal?: AbortSignal;
  /** A judge step's reply schema: only replies that parse and match it are stored. */
  readonly schema?: JsonSchema;
  /** A judge step's attempt: attempts of one prompt are stored apart. */
  readonly attempt?: number;
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
) => JudgeReply | Promise<JudgeReply>;

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
): (prompt: string, options: O) => Promise<JudgeReply>;
export function cached<O extends CachedCallOptions>(
  fn: CachableEmbed<O>,
  options: CachedOptions,
): (texts: readonly string[], options: O) => Promise<readonly number[][]>;
export function cached<O extends CachedCallOptions>(
  fn: CachableJudge<O> | CachableEmbed<O>,
  options: CachedOptions,
): (input: string & readonly string[], options: O) => Promise<JudgeReply | readonly number[][]> {
  if (typeof fn !== "function") {
    throw new ConfigurationError(
      `cached: expected a judge or embed function, got ${describeValue(fn)}`,
      { kind: "invalid-option" },
    );
  }
  if (typeof options !== "object" || options === null) {
    throw new ConfigurationError(
      `cached: expected options { cache, key }, got ${describeValue(options)}`,
      { kind: "invalid-option" },
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
      { kind: "invalid-option", option: "cache" },
    );
  }
  expectSpecificationVersion(cache.specificationVersion, {
    where: "cached: the cache",
    contract: "response caches",
    kind: "invalid-option",
    option: "cache",
  });
  const own = (fn as { cacheKey?: unknown }).cacheKey;
  const modelKey = options.key ?? own;
  if (typeof modelKey !== "string" || modelKey === "") {
    throw new ConfigurationError(
      options.key !== undefined
        ? `cached: option "key" must be a non-empty string naming the model, got ${describeValue(options.key)}`
        : `cached: no model key: pass { key: "<provider>:<model>" } (for example "openai:gpt-4o-mini"), or give the function a cacheKey string property; ${fn.name === "" ? "the function" : `function ${fn.name}`} has ${own === undefined ? "none" : `cacheKey ${describeValue(own)}`}`,
      { kind: "invalid-option", option: "key" },
    );
  }
  const call = fn as (input: unknown, options: O) => unknown;
  return async (input, callOptions) => {
    const attempt = typeof input === "string" ? callOptions?.attempt : undefined;
    const key = modelCacheKey(modelKey, input, attempt);
    const hit = await cache.get(key);
    if (hit !== undefined) {
      if (hasReplyShape(input, hit)) return hit as JudgeReply | number[][];
      // Only this wrapper writes model keys, so another shape is a damaged or foreign store:
      // calling again would pay silently for what the store claims to hold.
      throw new ConfigurationError(
        `cached: the store's entry for model ${JSON.stringify(modelKey)} (key ${key}) is not a ${typeof input === "string" ? "judge reply (a string or an object)" : "list of vectors"}; the store holds something else under this key: clear it`,
        { kind: "invalid-input" },
      );
    }
    const reply = await call(input, callOptions);
    if (typeof input === "string") {
      if (storableReply(reply, callOptions?.schema)) await cache.set(key, reply);
      return reply as JudgeReply;
    }
    const vectors = plainVectors(reply);
    if (vectors === undefined) return reply as number[][];
    await cache.set(key, vectors);
    return vectors;
  };
}

/**
 * Whether a judge reply may be stored: text or an object, and with a step's `schema`, one that
 * parses (one JSON object, optionally in a ```json fence) and matches it. A reply the metric
 * will refuse is never stored, so fixing the judge fixes the next run.
 */
function storableReply(reply: unknown, schema: JsonSchema | undefined): boolean {
  const object = typeof reply === "string" ? jsonObjectOf(reply) : reply;
  if (schema === undefined) return typeof reply === "string" || isPlainObject(object);
  return isPlainObject(object) && schemaProblem(object, schema) === undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const FENCED = /^```(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n?```$/;

function jsonObjectOf(text: string): unknown {
  let body = text.trim();
  const fenced = FENCED.exec(body);
  if (fenced !== null) body = (fenced[1] as string).trim();
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** Whether a stored value has the shape of a reply to `input`. */
function hasReplyShape(input: unknown, value: unknown): boolean {
  if (typeof input === "string") return typeof value === "string" || isPlainObject(value);
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
