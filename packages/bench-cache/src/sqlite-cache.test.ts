import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigurationError, cached } from "@fastrag/bench-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CACHE_FILE_NAME, CACHE_FORMAT, openCache, SqliteCache } from "./sqlite-cache.js";

const Database = createRequire(import.meta.url)("better-sqlite3") as new (
  path: string,
) => {
  exec(sql: string): void;
  prepare(sql: string): {
    run(...a: unknown[]): unknown;
    pluck(): { get(...a: unknown[]): unknown };
  };
  close(): void;
};

let dir: string;
const open: SqliteCache[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "bench-cache-"));
});
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});
function track(cache: SqliteCache): SqliteCache {
  open.push(cache);
  return cache;
}

describe("openCache", () => {
  it("creates the directory and the store file, and keeps values across reopenings", () => {
    const where = join(dir, "results", ".cache");
    const cache = openCache(where);
    expect(cache.path).toBe(join(where, CACHE_FILE_NAME));
    expect(existsSync(join(where, "cache.sqlite"))).toBe(true);
    cache.set("target:a", {
      answer: "Paris",
      chunks: [{ id: "d1", score: 0.25 }],
      usage: undefined,
    });
    cache.set("model:b", "PASS");
    cache.close();

    const again = track(openCache(where));
    expect(again.get("target:a")).toEqual({ answer: "Paris", chunks: [{ id: "d1", score: 0.25 }] });
    expect(again.get("model:b")).toBe("PASS");
    expect(again.get("model:missing")).toBeUndefined();
    expect(again.size).toBe(2);
  });

  it("overwrites a key (a --refresh) and keeps one entry for it", () => {
    const cache = track(openCache(dir));
    cache.set("k", "old");
    cache.set("k", "new");
    expect(cache.get("k")).toBe("new");
    expect(cache.size).toBe(1);
  });

  it("keeps values exactly: unicode, long text, numbers to the last bit", () => {
    const cache = track(openCache(dir));
    const value = {
      text: "naïve café — 東京 🚀 \u0000 end",
      long: "x".repeat(1_000_000),
      numbers: [0.1 + 0.2, -1 / 3, 5e-324, 1.7976931348623157e308],
    };
    cache.set("k", value);
    expect(cache.get("k")).toEqual(value);
  });

  it("refuses a directory path that is a file, naming it", () => {
    writeFileSync(join(dir, "file"), "x");
    expect(() => openCache(join(dir, "file", "sub"))).toThrow(ConfigurationError);
    expect(() => openCache(join(dir, "file", "sub"))).toThrow(
      /cache directory .*file\/sub cannot be created/,
    );
  });

  it("refuses values JSON cannot hold, before touching the file", () => {
    const cache = track(openCache(dir));
    expect(() => cache.set("k", { n: 2n })).toThrow(
      /cache value for key "k" is not JSON-serializable/,
    );
    expect(cache.size).toBe(0);
  });

  it("refuses use after close", () => {
    const cache = openCache(dir);
    cache.close();
    cache.close();
    expect(() => cache.get("k")).toThrow(/cache store .*cache\.sqlite: get after close\(\)/);
  });
});

describe("a store that cannot be used is a ConfigurationError naming the file", () => {
  it("a file that is not SQLite", () => {
    const file = join(dir, CACHE_FILE_NAME);
    writeFileSync(file, "this is not a database at all\n".repeat(200));
    const attempt = () => openCache(dir);
    expect(attempt).toThrow(ConfigurationError);
    expect(attempt).toThrow(
      `cache store ${file}: the file is not a SQLite database (SQLITE_NOTADB)`,
    );
    expect(attempt).toThrow(/delete it to start an empty cache/);
  });

  it("another application's SQLite database, left untouched", () => {
    const file = join(dir, "app.sqlite");
    const other = new Database(file);
    other.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)");
    other.close();
    expect(() => new SqliteCache(file)).toThrow(
      `cache store ${file}: the file is a SQLite database with the tables "users", not a fastrag bench cache`,
    );
    const check = new Database(file);
    const tables = check
      .prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'")
      .pluck()
      .get();
    check.close();
    expect(tables).toBe(1);
  });

  it("a store of another format", () => {
    const cache = openCache(dir);
    cache.close();
    const db = new Database(join(dir, CACHE_FILE_NAME));
    db.prepare("UPDATE fastrag_cache_meta SET value = ? WHERE name = 'format'").run(
      "fastrag-bench-cache/9",
    );
    db.close();
    expect(() => openCache(dir)).toThrow(
      `format "fastrag-bench-cache/9", expected ${JSON.stringify(CACHE_FORMAT)}`,
    );
  });

  it("a path that is a directory", () => {
    mkdirSync(join(dir, "d"));
    expect(() => new SqliteCache(join(dir, "d"))).toThrow(
      new RegExp(`cache store ${join(dir, "d")}: the file cannot be opened \\(SQLITE_CANTOPEN`),
    );
  });

  it("each says its kind and the file, for code", () => {
    const thrown = (attempt: () => unknown) => {
      try {
        attempt();
      } catch (error) {
        return error;
      }
      throw new Error("expected a throw");
    };
    writeFileSync(join(dir, CACHE_FILE_NAME), "not a database\n".repeat(300));
    expect(thrown(() => openCache(dir))).toMatchObject({
      kind: "invalid-input",
      path: join(dir, CACHE_FILE_NAME),
    });
    mkdirSync(join(dir, "d"));
    expect(thrown(() => new SqliteCache(join(dir, "d")))).toMatchObject({
      kind: "unreadable-file",
      path: join(dir, "d"),
    });
    writeFileSync(join(dir, "file"), "x");
    expect(thrown(() => openCache(join(dir, "file", "sub")))).toMatchObject({
      kind: "unwritable-file",
      path: join(dir, "file", "sub"),
    });
    expect(
      thrown(() => new SqliteCache(join(dir, "c.sqlite"), { busyTimeoutMs: -1 })),
    ).toMatchObject({
      kind: "invalid-option",
      option: "busyTimeoutMs",
    });
  });

  it("damaged pages: every read gives the stored value or the error, never a crash or a miss", () => {
    const cache = openCache(dir);
    const n = 3000;
    for (let i = 0; i < n; i++) cache.set(`key-${i}`, { i, text: `value ${i} `.repeat(10) });
    cache.close(); // the last close folds the WAL into the main file
    const file = join(dir, CACHE_FILE_NAME);
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(64 * 4096);
    // Overwrite 16 pages in the middle of the file with a byte no page header starts with.
    const fd = openSync(file, "r+");
    const start = Math.floor(size / 2 / 4096) * 4096;
    writeSync(fd, Buffer.alloc(16 * 4096, 0xab), 0, 16 * 4096, start);
    closeSync(fd);

    let good = 0;
    let refused = 0;
    let other = 0;
    let damaged: SqliteCache | undefined;
    try {
      damaged = new SqliteCache(file);
    } catch (error) {
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain(file);
      return;
    }
    for (let i = 0; i < n; i++) {
      try {
        const value = damaged.get(`key-${i}`) as { i: number } | undefined;
        if (value?.i === i) good++;
        else other++;
      } catch (error) {
        if (
          ConfigurationError.isInstance(error) &&
          error.message.startsWith(
            `cache store ${file}: reading key "key-${i}": the file is damaged (SQLITE_CORRUPT`,
          )
        ) {
          refused++;
        } else {
          other++;
        }
      }
    }
    damaged.close();
    expect(other).toBe(0);
    expect(refused).toBeGreaterThan(0);
    expect(good + refused).toBe(n);
  });

  it("a value that is not JSON", () => {
    const cache = openCache(dir);
    cache.close();
    const db = new Database(join(dir, CACHE_FILE_NAME));
    db.prepare("INSERT INTO fastrag_cache_entries (key, value, stored_at) VALUES (?, ?, 0)").run(
      "k",
      "{not json",
    );
    db.close();
    const reopened = track(openCache(dir));
    expect(() => reopened.get("k")).toThrow(
      /the value of key "k" is not JSON .*the file is damaged/,
    );
  });

  it("a bad busyTimeoutMs", () => {
    expect(() => openCache(dir, { busyTimeoutMs: -1 })).toThrow(
      /busyTimeoutMs must be a non-negative integer \(milliseconds\), got -1/,
    );
  });
});

describe("with cached()", () => {
  it("a judge answers from the file in a later session, without a call", async () => {
    let calls = 0;
    const judge = async (prompt: string) => {
      calls++;
      return `score for ${prompt}: 4`;
    };
    const signal = new AbortController().signal;
    const first = openCache(dir);
    expect(await cached(judge, { cache: first, key: "fake:judge" })("p", { signal })).toBe(
      "score for p: 4",
    );
    first.close();
    const second = track(openCache(dir));
    expect(await cached(judge, { cache: second, key: "fake:judge" })("p", { signal })).toBe(
      "score for p: 4",
    );
    expect(calls).toBe(1);
  });
});
