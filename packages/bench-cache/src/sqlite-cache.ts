import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import {
  ConfigurationError,
  type ConfigurationErrorKind,
  cacheValueText,
  type ResponseCache,
} from "@fastrag/bench-core";

/** The file name of the store inside the directory given to {@link openCache}. */
export const CACHE_FILE_NAME = "cache.sqlite";

/**
 * The format of the store's tables, kept in the file (table `fastrag_cache_meta`). A store of
 * another format is refused with a `ConfigurationError`, never misread.
 */
export const CACHE_FORMAT = "fastrag-bench-cache/1";

/** Options of {@link openCache} and {@link SqliteCache}. */
export interface SqliteCacheOptions {
  /**
   * How long a read or write waits for another process that holds the store's write lock, in
   * milliseconds (default 10,000). Writes are short (one row each), so waiting this long means
   * the other process is stuck; the call then throws a `ConfigurationError` naming the file.
   */
  readonly busyTimeoutMs?: number;
}

/**
 * Opens (creating it when needed) the response cache stored in `dir`, as the file
 * `dir/cache.sqlite` ({@link CACHE_FILE_NAME}). The directory is created too. This is the store
 * `fastrag-bench run --cache` uses, at `<outDir>/.cache/`.
 *
 * @throws ConfigurationError when the directory cannot be made, or the file is not a readable
 * store (see {@link SqliteCache}).
 *
 * @example
 * ```ts
 * import { cached } from "@fastrag/bench-core";
 * import { openCache } from "@fastrag/bench-cache";
 *
 * const cache = openCache("results/.cache");
 * const judge = cached(myJudge, { cache, key: "openai:gpt-4o-mini" });
 * // ... run, rescore ...
 * cache.close();
 * ```
 */
export function openCache(dir: string, options?: SqliteCacheOptions): SqliteCache {
  if (typeof dir !== "string" || dir === "") {
    throw new ConfigurationError(
      `openCache: expected a directory path, got ${dir === "" ? '""' : typeof dir}`,
      { kind: "invalid-option", option: "dir" },
    );
  }
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new ConfigurationError(
      `cache directory ${resolve(dir)} cannot be created: ${(error as Error).message}; expected a writable directory`,
      { kind: "unwritable-file", path: resolve(dir), cause: error },
    );
  }
  return new SqliteCache(join(dir, CACHE_FILE_NAME), options);
}

/** The part of better-sqlite3's API this store uses (it is loaded on first use). */
interface Database {
  pragma(source: string, options?: { simple?: boolean }): unknown;
  prepare(source: string): Statement;
  exec(source: string): void;
  transaction(fn: () => void): { immediate(): void };
  close(): void;
}
interface Statement {
  get(...params: unknown[]): unknown;
  run(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  pluck(toggle?: boolean): Statement;
}
type DatabaseConstructor = new (path: string, options?: { timeout?: number }) => Database;

let driver: DatabaseConstructor | undefined;

/** better-sqlite3, loaded once; a missing or unbuilt native module is explained, with the fix. */
function loadDriver(): DatabaseConstructor {
  if (driver !== undefined) return driver;
  try {
    driver = createRequire(import.meta.url)("better-sqlite3") as DatabaseConstructor;
  } catch (error) {
    const message = (error as Error).message;
    // Node's dlopen error has one code (ERR_DLOPEN_FAILED) for every cause: only its text tells
    // a module built for another Node.js from a missing one, and only the hint depends on it.
    const hint = /NODE_MODULE_VERSION|was compiled against/.test(message)
      ? "it was built for another Node.js version: run `npm rebuild better-sqlite3` (or reinstall)"
      : "its native module is missing or was not built: pnpm 10 skips install scripts unless allowed, so add better-sqlite3 to `onlyBuiltDependencies` in pnpm-workspace.yaml (or run `pnpm approve-builds`) and reinstall; building from source needs python3, make and a C++ compiler";
    // No kind says "a dependency cannot load": its native module is a file that cannot be loaded.
    throw new ConfigurationError(
      `@fastrag/bench-cache cannot load better-sqlite3 (${message.split("\n")[0]}): ${hint}`,
      { kind: "unreadable-file", cause: error },
    );
  }
  return driver;
}

/** SQLite result codes that mean the file, not the caller, is at fault. */
function describeSqliteError(error: unknown, busyTimeoutMs: number): string {
  const code = (error as { code?: unknown }).code;
  const message = (error as Error).message;
  if (typeof code !== "string") return message;
  if (code === "SQLITE_NOTADB") {
    return "is not a SQLite database (SQLITE_NOTADB); expected a fastrag bench cache";
  }
  if (code.startsWith("SQLITE_CORRUPT")) {
    return `is damaged (${code}: ${message})`;
  }
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return `stayed locked by another process for more than ${busyTimeoutMs} ms (${code}); expected writers to release it within busyTimeoutMs`;
  }
  if (code.startsWith("SQLITE_CANTOPEN")) {
    return `cannot be opened (${code}: ${message}); expected a readable and writable file in an existing directory`;
  }
  if (code.startsWith("SQLITE_READONLY") || code.startsWith("SQLITE_PERM")) {
    return `is not writable (${code}: ${message})`;
  }
  if (code.startsWith("SQLITE_IOERR") || code === "SQLITE_FULL") {
    return `cannot be read or written (${code}: ${message})`;
  }
  return `failed (${code}: ${message})`;
}

/**
 * The kind of a SQLite error, by its code: damage is bad content, a refused write a file that
 * cannot be written, anything else (cannot open, locked for too long, I/O) a file that cannot be
 * read or written, as the call was doing.
 */
function kindOfSqliteError(error: unknown, writing: boolean): ConfigurationErrorKind {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT")) return "invalid-input";
    if (code.startsWith("SQLITE_READONLY") || code.startsWith("SQLITE_PERM"))
      return "unwritable-file";
    if (code === "SQLITE_FULL") return "unwritable-file";
  }
  return writing ? "unwritable-file" : "unreadable-file";
}

const FIX =
  "move the file away or delete it to start an empty cache (it only holds replies that can be fetched again)";

/**
 * The default {@link ResponseCache}: one SQLite database file (through better-sqlite3), values
 * kept as JSON text. Every method is synchronous; a hit costs a few microseconds.
 *
 * - **Processes.** Several processes may use one file at once (two shards of a run on one
 *   machine): the database runs in WAL mode, so readers never wait, and each `set` is its own
 *   short transaction; a writer waits up to `busyTimeoutMs` for another. Not for a network file
 *   system (NFS, SMB), where SQLite's locks are not reliable: keep the store on a local disk.
 * - **Durability.** Each `set` is committed when it returns; a process killed at any point
 *   leaves the store whole (SQLite's journal), losing at most the write in progress.
 * - **Damage.** A file that is not SQLite, another application's SQLite database, a store of
 *   another format, or one whose pages are damaged is a `ConfigurationError` naming the file and
 *   what to do: never a silent miss (which would quietly pay for every call again) and never a
 *   crash. Damage inside one value's bytes that leaves its JSON valid cannot be told apart.
 *
 * @throws ConfigurationError from the constructor and from every method, as described.
 *
 * @example
 * ```ts
 * import { SqliteCache } from "@fastrag/bench-cache";
 *
 * const cache = new SqliteCache("/var/cache/rag-eval.sqlite", { busyTimeoutMs: 30_000 });
 * ```
 */
export class SqliteCache implements ResponseCache {
  /** Absolute path of the database file. */
  readonly path: string;
  readonly #busyTimeoutMs: number;
  #db: Database | undefined;
  readonly #select: Statement;
  readonly #upsert: Statement;
  readonly #count: Statement;

  constructor(path: string, options: SqliteCacheOptions = {}) {
    if (typeof path !== "string" || path === "") {
      throw new ConfigurationError(
        `SqliteCache: expected a file path, got ${path === "" ? '""' : typeof path}`,
        { kind: "invalid-option", option: "path" },
      );
    }
    const busy = options.busyTimeoutMs ?? 10_000;
    if (!Number.isSafeInteger(busy) || busy < 0) {
      throw new ConfigurationError(
        `SqliteCache: busyTimeoutMs must be a non-negative integer (milliseconds), got ${String(busy)}`,
        { kind: "invalid-option", option: "busyTimeoutMs" },
      );
    }
    this.path = resolve(path);
    this.#busyTimeoutMs = busy;
    const Driver = loadDriver();
    let db: Database | undefined;
    try {
      db = new Driver(this.path, { timeout: busy });
      // Reading the journal mode is the first read of the file: a file that is not SQLite
      // fails here. WAL lets readers of one process go on while another writes.
      useWal(db, busy);
      db.pragma("synchronous = NORMAL");
      const ready = db;
      ready.transaction(() => prepareSchema(ready, this.path)).immediate();
      this.#select = db.prepare("SELECT value FROM fastrag_cache_entries WHERE key = ?").pluck();
      this.#upsert = db.prepare(
        "INSERT INTO fastrag_cache_entries (key, value, stored_at) VALUES (?, ?, ?) " +
          "ON CONFLICT (key) DO UPDATE SET value = excluded.value, stored_at = excluded.stored_at",
      );
      this.#count = db.prepare("SELECT count(*) FROM fastrag_cache_entries").pluck();
    } catch (error) {
      try {
        db?.close();
      } catch {
        // The open error below says what is wrong; a failing close adds nothing.
      }
      if (ConfigurationError.isInstance(error)) throw error;
      throw this.#error("", error, false);
    }
    this.#db = db;
  }

  /** The stored value, or `undefined` when `key` has none. */
  get(key: string): unknown {
    this.#open("get");
    let text: unknown;
    try {
      text = this.#select.get(key);
    } catch (error) {
      throw this.#error(`reading key ${JSON.stringify(key)}: `, error, false);
    }
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text as string);
    } catch (error) {
      throw new ConfigurationError(
        `cache store ${this.path}: the value of key ${JSON.stringify(key)} is not JSON (${(error as Error).message}); the file is damaged: ${FIX}`,
        { kind: "invalid-input", path: this.path, cause: error },
      );
    }
  }

  /** Stores `value` as JSON under `key`, replacing what was there; committed on return. */
  set(key: string, value: unknown): void {
    this.#open("set");
    const text = cacheValueText(value, key);
    try {
      this.#upsert.run(key, text, Date.now());
    } catch (error) {
      throw this.#error(`writing key ${JSON.stringify(key)}: `, error, true);
    }
  }

  /** The number of stored entries. */
  get size(): number {
    this.#open("size");
    try {
      return this.#count.get() as number;
    } catch (error) {
      throw this.#error("counting entries: ", error, false);
    }
  }

  /** Closes the file. Later calls throw; closing twice is harmless. */
  close(): void {
    const db = this.#db;
    this.#db = undefined;
    db?.close();
  }

  #open(method: string): void {
    if (this.#db === undefined) {
      // Misuse of the store rather than of an option: the closest kind.
      throw new ConfigurationError(`cache store ${this.path}: ${method} after close()`, {
        kind: "invalid-option",
        option: method,
        path: this.path,
      });
    }
  }

  #error(doing: string, error: unknown, writing: boolean): ConfigurationError {
    return new ConfigurationError(
      `cache store ${this.path}: ${doing}the file ${describeSqliteError(error, this.#busyTimeoutMs)}; ${FIX}`,
      { kind: kindOfSqliteError(error, writing), path: this.path, cause: error },
    );
  }
}

const nap = new Int32Array(new SharedArrayBuffer(4));

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/**
 * Switches the file to WAL mode, waiting up to `busyTimeoutMs` for other processes. The switch
 * rewrites the file's header from inside a read, and SQLite answers SQLITE_BUSY at once, without
 * waiting as its timeout says, when another connection reads the file meanwhile: processes
 * opening a new store together (two shards of a run) meet that (how often: docs/decisions/
 * cache-store.md). So the switch is retried, with pauses of 1 ms doubling to 50 ms, until the
 * timeout. A store already in WAL mode needs no switch and no write.
 */
function useWal(db: Database, busyTimeoutMs: number): void {
  const deadline = performance.now() + busyTimeoutMs;
  for (let pause = 1; ; pause = Math.min(2 * pause, 50)) {
    try {
      db.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      const left = deadline - performance.now();
      if (!isBusy(error) || left <= 0) throw error;
      Atomics.wait(nap, 0, 0, Math.min(pause, left));
    }
  }
}

/**
 * Creates the tables in an empty database, or checks those of an existing store. Runs inside an
 * immediate transaction, so two processes creating one store at once take turns.
 */
function prepareSchema(db: Database, path: string): void {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .pluck()
    .all() as string[];
  if (tables.length === 0) {
    db.exec(
      "CREATE TABLE fastrag_cache_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;" +
        "CREATE TABLE fastrag_cache_entries (key TEXT PRIMARY KEY, value TEXT NOT NULL, stored_at INTEGER NOT NULL) WITHOUT ROWID;",
    );
    db.prepare("INSERT INTO fastrag_cache_meta (name, value) VALUES ('format', ?)").run(
      CACHE_FORMAT,
    );
    return;
  }
  if (!tables.includes("fastrag_cache_meta") || !tables.includes("fastrag_cache_entries")) {
    throw new ConfigurationError(
      `cache store ${path}: the file is a SQLite database with the tables ${tables.map((t) => JSON.stringify(t)).join(", ")}, not a fastrag bench cache (expected the tables "fastrag_cache_meta" and "fastrag_cache_entries"); point the cache at another file or directory`,
      { kind: "invalid-input", path },
    );
  }
  const format = db
    .prepare("SELECT value FROM fastrag_cache_meta WHERE name = 'format'")
    .pluck()
    .get();
  if (format !== CACHE_FORMAT) {
    throw new ConfigurationError(
      `cache store ${path}: format ${JSON.stringify(format ?? null)}, expected ${JSON.stringify(CACHE_FORMAT)} (written by another version of @fastrag/bench-cache); use a store of this version: ${FIX}`,
      { kind: "invalid-input", path },
    );
  }
}
