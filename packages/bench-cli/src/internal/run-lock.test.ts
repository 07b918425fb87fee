import { existsSync } from "node:fs";
import { mkdtemp, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TargetLocks } from "./run-lock.js";

const dir = await mkdtemp(join(tmpdir(), "fastrag-lock-"));

afterEach(() => {
  vi.useRealTimers();
});

describe("TargetLocks", () => {
  it("keeps its lease fresh while held, and removes only its own locks", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const a = join(dir, "lease", "a.lock");
    const b = join(dir, "lease", "b.lock");
    const locks = await TargetLocks.acquire(
      [
        { name: "a", lock: a },
        { name: "b", lock: b },
      ],
      () => {},
    );
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(a, hourAgo, hourAgo);
    expect(Date.now() - (await stat(a)).mtimeMs).toBeGreaterThan(3_000_000);
    vi.advanceTimersByTime(15_000);
    // The refresh's utimes runs on the real file system: wait for it.
    await vi.waitFor(async () => {
      expect(Date.now() - (await stat(a)).mtimeMs).toBeLessThan(60_000);
    });
    // Someone deleted b and another run took it: release leaves that run's lock alone.
    const foreign = '{"pid":1,"host":"elsewhere","started":"x","token":"theirs"}\n';
    await writeFile(b, foreign);
    await locks.release();
    expect(existsSync(a)).toBe(false);
    expect(await readFile(b, "utf8")).toBe(foreign);
  });

  it("releases the locks it took when a later one is held", async () => {
    const free = join(dir, "partial", "free.lock");
    const taken = join(dir, "partial", "taken.lock");
    const first = await TargetLocks.acquire([{ name: "taken", lock: taken }], () => {});
    await expect(
      TargetLocks.acquire(
        [
          { name: "free", lock: free },
          { name: "taken", lock: taken },
        ],
        () => {},
      ),
    ).rejects.toMatchObject({
      name: "TargetLockedError",
      message: expect.stringContaining(`running target "taken"`),
    });
    expect(existsSync(free)).toBe(false);
    expect(existsSync(taken)).toBe(true);
    await first.release();
    expect(existsSync(taken)).toBe(false);
  });

  it("counts an unreadable lock as held while it is fresh, and takes it over once stale", async () => {
    const lock = join(dir, "garbled", "t.lock");
    const other = await TargetLocks.acquire(
      [{ name: "other", lock: join(dir, "garbled", "other.lock") }],
      () => {},
    );
    await writeFile(lock, "{half-writ");
    await expect(TargetLocks.acquire([{ name: "t", lock }], () => {})).rejects.toThrow(
      /another fastrag-bench run is running target "t"/,
    );
    const old = new Date(Date.now() - 200_000);
    await utimes(lock, old, old);
    const notes: string[] = [];
    const locks = await TargetLocks.acquire([{ name: "t", lock }], (m) => notes.push(m));
    expect(notes).toEqual([expect.stringMatching(/^t: took over the lock .*untouched for 20\d s/)]);
    expect(JSON.parse(await readFile(lock, "utf8")).pid).toBe(process.pid);
    await locks.release();
    await other.release();
  });
});
