import { ConfigurationError } from "./errors.js";

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
  /**
   * Which version of this contract the store implements. Omitted means `"v1"`, the contract
   * here: `get`, `set` and `close` of JSON values by string key, each answering now or with a
   * promise. A later version (batched reads, entries that expire) will get a new value; the runner
   * and {@link cached} go on using a `"v1"` or unversioned store exactly as they do today, and
   * refuse, up front, a version they do not know.
   */
  readonly specificationVersion?: ResponseCacheSpecificationVersion;
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

/** The versions of the {@link ResponseCache} contract; today only `"v1"`. */
export type ResponseCacheSpecificationVersion = "v1";

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
  readonly specificationVersion = "v1" as const;
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
      throw new ConfigurationError(`MemoryCache.${method}: the cache was closed`, {
        kind: "invalid-option",
        option: method,
      });
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
      { kind: "invalid-input", cause: error },
    );
  }
  if (text === undefined) {
    throw new ConfigurationError(
      `cache value for key ${JSON.stringify(key)} is not JSON-serializable: got ${typeof value}, expected a JSON value`,
      { kind: "invalid-input" },
    );
  }
  return text;
}
