import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { fileSizeLimitUnavailable, mountSmallDisk } from "../../../test-support/small-disk.js";

// End-to-end, as a user or CI runs it: the built binary in a child process. Faults of the
// machine (a full disk, a file size limit) and of the config (a promise nothing settles).
const bin = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
const fixtures = fileURLToPath(new URL("./__fixtures__/", import.meta.url));

function cli(args: string[], env: Record<string, string> = {}, limitBlocks?: number) {
  const command =
    limitBlocks === undefined
      ? [process.execPath, bin, ...args]
      : ["sh", "-c", `ulimit -f ${limitBlocks} && exec "$@"`, "sh", process.execPath, bin, ...args];
  const r = spawnSync(command[0] as string, command.slice(1), {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-cli-io-"));
});

describe("no exit without a message", () => {
  it("says so when the config's default export is a promise nothing settles (was: exit 13, nothing on stderr)", () => {
    const config = join(fixtures, "never-resolves.config.mjs");
    const r = cli(["run", config, "--out-dir", join(dir, "never")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `fastrag-bench: error: ${config}: the config's default export is a promise that never settles, but nothing is left that could settle it (no timer, no I/O, no pending call): it would wait forever. Make it resolve to defineConfig({ dataset, metrics, targets }) (or reject with the reason it cannot).\n`,
    );
  });

  it("says so when every call in flight waits on a promise nothing settles, keeping the finished samples", async () => {
    const out = join(dir, "stuck");
    const journal = join(out, ".journal", "stuck.jsonl");
    const r = cli(["run", join(fixtures, "stuck-target.config.mjs"), "--out-dir", out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `error: target "stuck": 3 of 5 samples finished, and the rest wait on a target call or a metric whose promise never settles, but nothing is left that could settle it`,
    );
    expect(r.stderr).toContain(`Finished samples are kept in ${journal}.`);
    const lines = (await readFile(journal, "utf8")).trim().split("\n");
    expect(lines.slice(1).map((l) => JSON.parse(l).sample.sample_id)).toEqual(["q0", "q1", "q2"]);
  });
});

describe("a save that cannot be written", () => {
  it("on a full disk (a 2 MiB tmpfs): exits 2 naming the file and the cause, keeps the old result and the journal", async (ctx) => {
    const disk = await mountSmallDisk("2m");
    if (typeof disk === "string") return ctx.skip(disk);
    try {
      const config = join(fixtures, "big-answers.config.mjs");
      const file = join(disk.dir, "big.json");
      const journal = join(disk.dir, ".journal", "big.jsonl");
      // About 0.85 MB of result: the first run fits (journal and result), and leaves the result.
      const env = { FASTRAG_TEST_SAMPLES: "500", FASTRAG_TEST_ANSWER: "1500" };
      const first = cli(["run", config, "--out-dir", disk.dir], env);
      expect(first.code, first.stderr).toBe(0);
      const old = await readFile(file, "utf8");
      // The second: its journal and the old result leave no room for the new result.
      const second = cli(["run", config, "--out-dir", disk.dir], {
        ...env,
        FASTRAG_TEST_ANSWER: "1600",
      });
      expect(second.code).toBe(2);
      const [error, hint] = second.stderr.trim().split("\n").slice(-2);
      expect(error).toBe(
        `error: ${file}: cannot write the file: no space left on the device (ENOSPC); nothing was replaced (a file already there is unchanged). "big" was not saved; its 500 finished samples are kept in ${journal}, and the same command run again saves the result from it without calling the target again`,
      );
      expect(hint).toBe("free space on that disk (or write somewhere else), then run again");
      expect(second.stderr).not.toMatch(/✓/);
      expect(await readFile(file, "utf8")).toBe(old);
      const kept = (await readFile(journal, "utf8")).trim().split("\n");
      expect(kept).toHaveLength(501);
      // No temporary file is left behind on the full disk.
      expect((await readdir(disk.dir)).sort()).toEqual([".journal", "big.json"]);
    } finally {
      await disk.remove();
    }
  });

  it("under ulimit -f: exits 2 with EFBIG and its own hint, never ✓ and exit 0", async (ctx) => {
    const why = fileSizeLimitUnavailable();
    if (why !== undefined) return ctx.skip(why);
    const out = join(dir, "ulimit");
    const config = join(fixtures, "big-answers.config.mjs");
    // One sample with a 1,023,500-character answer: its journal (1,023,870 bytes) fits under a
    // limit of 2,000 blocks of 512 bytes (1,024,000), and its result (1,024,198) does not.
    const r = cli(
      ["run", config, "--out-dir", out],
      { FASTRAG_TEST_SAMPLES: "1", FASTRAG_TEST_ANSWER: "1023500" },
      2000,
    );
    const file = join(out, "big.json");
    const journal = join(out, ".journal", "big.jsonl");
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/✓/);
    expect(r.stderr.trim().split("\n")).toEqual([
      `error: ${file}: cannot write the file: the file would exceed the size limit of this process (ulimit -f) or of the file system (EFBIG); nothing was replaced (a file already there is unchanged). "big" was not saved; its 1 finished sample is kept in ${journal}, and the same command run again saves the result from it without calling the target again`,
      "raise the file size limit (`ulimit -f unlimited`) or write to a file system that allows larger files, then run again",
    ]);
    expect((await readFile(journal, "utf8")).trim().split("\n")).toHaveLength(2);
    expect(existsSync(join(out, "big.json"))).toBe(false);
  });
});

describe("target names", () => {
  it("refuses a name that ends like a shard's file: it would overwrite shard 1/2 of another target", () => {
    const to = join(dir, "shard-names");
    const config = join(fixtures, "named.config.mjs");
    for (const [name, of] of [
      ["t1.shard-1-of-2", 'shard 1 of 2 of target "t1"'],
      ["T1.SHARD-2-of-2", 'shard 2 of 2 of target "T1"'],
    ] as const) {
      const r = cli(["run", config, "--out-dir", to], {
        FASTRAG_TEST_TARGETS: JSON.stringify(["t1", name]),
      });
      expect(r.code).toBe(2);
      expect(r.stderr.split("\n")[0]).toBe(
        `error: ${config}: target ${JSON.stringify(name)} ends like a shard's result file (.shard-N-of-COUNT): its result would overwrite ${of}; rename it`,
      );
    }
    expect(existsSync(to)).toBe(false);
    // A name that only looks close runs.
    const ok = cli(["run", config, "--out-dir", to], {
      FASTRAG_TEST_TARGETS: JSON.stringify(["t1.shard-1-of-2x"]),
    });
    expect(ok.code, ok.stderr).toBe(0);
  });
});

describe("a journal that cannot be written (a 64 KiB tmpfs as <outDir>/.journal)", () => {
  it("stops the run at once with exit 2, keeping finished samples; --continue-without-journal goes on", async (ctx) => {
    const out = join(dir, "journal-disk");
    await mkdir(out, { recursive: true });
    const journalDir = join(out, ".journal");
    const disk = await mountSmallDisk("64k");
    if (typeof disk === "string") return ctx.skip(disk);
    try {
      // The tmpfs is mounted where the journal goes; the result goes beside it, on a disk with room.
      await rm(journalDir, { recursive: true, force: true });
      await symlink(disk.dir, journalDir);
      const config = join(fixtures, "big-answers.config.mjs");
      const journal = join(journalDir, "big.jsonl");
      const env = { FASTRAG_TEST_SAMPLES: "300", FASTRAG_TEST_ANSWER: "1000" };
      const stopped = cli(["run", config, "--out-dir", out], env);
      expect(stopped.code).toBe(2);
      const [error, hint] = stopped.stderr.trim().split("\n").slice(-2);
      const kept = Number(/lost: (\d+) finished samples are kept in /.exec(error as string)?.[1]);
      expect(kept).toBeGreaterThan(10);
      expect(error).toBe(
        `error: ${journal}: cannot write the checkpoint journal: no space left on the device (ENOSPC); the run stopped at once, with ${300 - kept - 1} of 300 samples not run. Nothing finished is lost: ${kept} finished samples are kept in ${journal}, and the same command run again resumes from them (the 1 sample whose line could not be written is in this error's partial result only); or run again with --continue-without-journal to go on without a journal`,
      );
      expect(hint).toBe("free space on that disk (or write somewhere else), then run again");
      expect(existsSync(join(out, "big.json"))).toBe(false);

      const goes = cli(["run", config, "--out-dir", out, "--continue-without-journal"], env);
      expect(goes.code, goes.stderr).toBe(0);
      const warnings = goes.stderr.split("\n").filter((l) => l.startsWith("warning: "));
      expect(warnings).toHaveLength(2);
      // The line the first run tore, then the journal given up.
      expect(warnings[0]).toMatch(
        /big\.jsonl:\d+: dropped the last line, cut short by an interrupted write/,
      );
      expect(warnings[1]).toMatch(
        /big\.jsonl: cannot write the checkpoint journal: no space left on the device \(ENOSPC\); going on without a journal \(continueWithoutJournal\)/,
      );
      const saved = JSON.parse(await readFile(join(out, "big.json"), "utf8"));
      expect(saved.samples).toHaveLength(300);
    } finally {
      await rm(journalDir, { force: true });
      await disk.remove();
    }
  });
});
