import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, fixtures, scratchDir } from "../__fixtures__/cli-process.js";

// End-to-end: these tests start the built binary as a child process, as a user or CI would.

let dir: string;
beforeAll(async () => {
  dir = await scratchDir();
});

describe("fastrag-bench merge", () => {
  it("runs shards and merges them into the whole run", async () => {
    const shardOut = join(dir, "shards");
    for (const s of ["1/3", "2/3", "3/3"]) {
      expect(
        cli(["run", join(fixtures, "demo.config.mjs"), "--out-dir", shardOut, "--shard", s]).code,
      ).toBe(0);
    }
    const merged = join(dir, "merged-strong.json");
    const r = cli(["merge", join(shardOut, "strong.shard-*.json"), "--out", merged]);
    expect(r.code, r.stderr).toBe(0);
    const m = JSON.parse(await readFile(merged, "utf8"));
    expect(m.samples).toHaveLength(40);
    expect(m.samples.map((s: { sample_id: string }) => s.sample_id)).toEqual(
      Array.from({ length: 40 }, (_, i) => `q${i}`),
    );
    const incomplete = cli(["merge", join(shardOut, "strong.shard-1-of-3.json"), "--out", merged]);
    expect(incomplete.code).toBe(2);
    expect(incomplete.stderr).toMatch(/missing shard/);
    const blocked = join(dir, "not-a-dir");
    await writeFile(blocked, "");
    const unwritable = cli([
      "merge",
      join(shardOut, "strong.shard-*.json"),
      "--out",
      join(blocked, "m.json"),
    ]);
    expect(unwritable.code, unwritable.stderr).toBe(2);
    expect(unwritable.stderr).toContain("cannot write the file: a parent of it is a file");
    expect(unwritable.stderr).not.toMatch(/\n\s+at /);
    expect(cli(["run", join(fixtures, "demo.config.mjs"), "--shard", "4/3"]).code).toBe(2);
  });
});
