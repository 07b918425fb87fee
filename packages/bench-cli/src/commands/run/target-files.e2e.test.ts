import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, fixtures, scratchDir } from "../../__fixtures__/cli-process.js";

// End-to-end: these tests start the built binary as a child process, as a user or CI would.

let dir: string;
beforeAll(async () => {
  dir = await scratchDir();
});

describe("fastrag-bench run: the targets' result files", () => {
  it("refuses two targets that would overwrite one result file", () => {
    const r = cli(["run", join(fixtures, "collide.config.mjs"), "--out-dir", join(dir, "collide")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/targets "a\/b" and "a_b" would both be saved as a_b\.json/);
    expect(existsSync(join(dir, "collide"))).toBe(false);
  });

  it("refuses target names that collide only in case, or are too long for a file", () => {
    const to = join(dir, "target-names");
    const run = (names: string[]) =>
      cli(["run", join(fixtures, "named.config.mjs"), "--out-dir", to], {
        FASTRAG_TEST_TARGETS: JSON.stringify(names),
      });
    // One file on macOS and Windows, whose file systems ignore case.
    const cased = run(["BM25", "bm25"]);
    expect(cased.code).toBe(2);
    expect(cased.stderr).toMatch(
      /targets "BM25" and "bm25" would both be saved as bm25\.json on a case-insensitive file system/,
    );
    const long = run(["x".repeat(300)]);
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(
      /target "x{40}…" has a name too long for its result file \(300 characters once file-safe; at most 160\)/,
    );
    for (const r of [cased, long]) expect(r.stderr).not.toMatch(/\n\s+at |unexpected error/);
    expect(existsSync(to)).toBe(false);
    // At the limit, it runs.
    const longest = run(["y".repeat(160)]);
    expect(longest.code, longest.stderr).toBe(0);
    expect(existsSync(join(to, `${"y".repeat(160)}.json`))).toBe(true);
  });

  it("refuses an output directory that is a file, or under one, in one line", async () => {
    const file = join(dir, "not-a-dir");
    await writeFile(file, "");
    for (const [to, found] of [
      [file, "is a file"],
      [join(file, "sub"), "lies under a file"],
    ] as const) {
      const r = cli(["run", join(fixtures, "demo.config.mjs"), "--out-dir", to]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`error: --out-dir ${to} ${found}`);
      expect(r.stderr).not.toMatch(/\n\s+at |unexpected error/);
    }
  });
});
