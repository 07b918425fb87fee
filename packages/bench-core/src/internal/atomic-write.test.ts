import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  BUILT,
  builtMissing,
  fileSizeLimitUnavailable,
  mountSmallDisk,
} from "../__fixtures__/small-disk.js";
import { ConfigurationError } from "../errors.js";
import { writeFileAtomic, writeFileAtomicWith } from "./atomic-write.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-atomic-"));
});

/** A system error as Node makes it (`code`, `errno`, `syscall`). */
function systemError(code: string, errno: number): Error {
  return Object.assign(new Error(`${code}: from the stub, write`), {
    code,
    errno,
    syscall: "write",
  });
}

/** 300,000 bytes in lines whose text says where they are: a torn copy cannot pass for whole. */
const BIG = Array.from(
  { length: 10_000 },
  (_, i) => `line ${String(i).padStart(6, "0")} ${"x".repeat(15)}\n`,
);

describe("writeFileAtomic: short writes (a stub, on any machine)", () => {
  it("loops over short writes until every byte is written", async () => {
    const path = join(dir, "short.txt");
    const counts: number[] = [];
    // A disk that takes at most 4,097 bytes a call, as a nearly full one or a slow pipe does.
    await writeFileAtomicWith(
      path,
      () => BIG,
      async (fd, buffer, offset, length) => {
        const n = Math.min(length, 4097);
        counts.push(n);
        const { writeSync } = await import("node:fs");
        return writeSync(fd, buffer, offset, n);
      },
    );
    expect(await readFile(path, "utf8")).toBe(BIG.join(""));
    expect(counts.length).toBeGreaterThan(BIG.join("").length / 4097 - 1);
  });

  it("fails on the error after a short write, keeping the old file and no temporary file", async () => {
    const sub = await mkdtemp(join(dir, "enospc-"));
    const path = join(sub, "result.json");
    await writeFile(path, "the old, good result\n");
    let calls = 0;
    const error = await writeFileAtomicWith(
      path,
      () => BIG,
      async (fd, buffer, offset, length) => {
        calls++;
        if (calls === 1) {
          const { writeSync } = await import("node:fs");
          return writeSync(fd, buffer, offset, Math.min(length, 1000));
        }
        throw systemError("ENOSPC", -28);
      },
    ).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toBe(
      `${path}: cannot write the file: no space left on the device (ENOSPC); nothing was replaced (a file already there is unchanged)`,
    );
    expect(((error as Error).cause as { bytesWritten?: number }).bytesWritten).toBe(1000);
    expect(await readFile(path, "utf8")).toBe("the old, good result\n");
    expect(await readdir(sub)).toEqual(["result.json"]);
  });

  it("fails on a write that makes no progress instead of looping forever", async () => {
    const path = join(dir, "zero.txt");
    const error = await writeFileAtomicWith(
      path,
      () => ["abc"],
      async () => 0,
    ).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `${path}: cannot write the file: the system wrote 0 of 3 bytes and then accepted no more (EIO); nothing was replaced (a file already there is unchanged)`,
    );
  });
});

describe("writeFileAtomic on a full disk (a 1 MiB tmpfs)", () => {
  it("fails with ENOSPC and keeps the old file whole", async (ctx) => {
    const disk = await mountSmallDisk("1m");
    if (typeof disk === "string") return ctx.skip(disk);
    try {
      const path = join(disk.dir, "result.json");
      const old = "old ".repeat(50_000);
      await writeFileAtomic(path, () => [old]);
      // 1.4 MB does not fit beside the 200 kB already there.
      const big = Array.from(
        { length: 40_000 },
        (_, i) => `{"i":${i},"pad":"${"y".repeat(20)}"}\n`,
      );
      const error = await writeFileAtomic(path, () => big).catch((e: unknown) => e);
      expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(
        /result\.json: cannot write the file: no space left on the device \(ENOSPC\); nothing was replaced/,
      );
      expect(await readFile(path, "utf8")).toBe(old);
      expect(await readdir(disk.dir)).toEqual(["result.json"]);
    } finally {
      await disk.remove();
    }
  });
});

describe("writeFileAtomic under ulimit -f (a child process)", () => {
  it("fails with EFBIG and keeps the old file whole", async (ctx) => {
    const why = fileSizeLimitUnavailable() ?? builtMissing();
    if (why !== undefined) return ctx.skip(why);
    const sub = await mkdtemp(join(dir, "ulimit-"));
    const path = join(sub, "result.json");
    await writeFile(path, "the old, good result\n");
    // 1,000 blocks (512 or 1,024 bytes each, by shell): the child writes 1,036,659 bytes, as in the issue.
    const script = `
      const { writeFileAtomic } = await import(${JSON.stringify(new URL("internal.js", BUILT).href)});
      const line = "z".repeat(1000) + "\\n";
      try {
        await writeFileAtomic(process.argv[1], function* () {
          for (let i = 0; i < 1035; i++) yield line;
          yield "x".repeat(1036659 - 1035 * 1001);
        });
        console.log("saved");
      } catch (e) { console.log("error: " + e.message); }`;
    const r = spawnSync(
      "sh",
      [
        "-c",
        'ulimit -f 1000 && exec "$0" --input-type=module -e "$1" "$2"',
        process.execPath,
        script,
        path,
      ],
      { encoding: "utf8" },
    );
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe(
      `error: ${path}: cannot write the file: the file would exceed the size limit of this process (ulimit -f) or of the file system (EFBIG); nothing was replaced (a file already there is unchanged)`,
    );
    expect(await readFile(path, "utf8")).toBe("the old, good result\n");
    expect(await readdir(sub)).toEqual(["result.json"]);
  });
});

describe("writeFileAtomic: temporary files of killed saves", () => {
  const host = createHash("sha256").update(hostname()).digest("hex").slice(0, 8);

  it("removes those of dead processes of this machine and old ones, and keeps the rest", async () => {
    const sub = await mkdtemp(join(dir, "orphans-"));
    const gone = spawnSync(process.execPath, ["-e", ""]).pid as number;
    const day = 24 * 3600;
    const files = {
      dead: `.result.json.${host}-${gone}.0badf00d.tmp`,
      live: `.result.json.${host}-${process.pid}.0123abcd.tmp`,
      otherHostNew: `.result.json.aaaaaaaa-${gone}.11111111.tmp`,
      otherHostOld: `.result.json.bbbbbbbb-${gone}.22222222.tmp`,
      legacyOld: `.result.json.${gone}.33333333.tmp`,
      legacyNew: `.result.json.${gone}.44444444.tmp`,
      otherFile: `.other.json.${host}-${gone}.55555555.tmp`,
    };
    for (const f of Object.values(files)) await writeFile(join(sub, f), "torn");
    const old = Date.now() / 1000 - 2 * day;
    await utimes(join(sub, files.otherHostOld), old, old);
    await utimes(join(sub, files.legacyOld), old, old);

    await writeFileAtomic(join(sub, "result.json"), () => ["{}"]);
    expect((await readdir(sub)).sort()).toEqual(
      ["result.json", files.live, files.otherHostNew, files.legacyNew, files.otherFile].sort(),
    );
  });
});
