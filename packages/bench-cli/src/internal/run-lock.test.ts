import { spawn, spawnSync } from "node:child_process";
import { existsSync, utimesSync } from "node:fs";
import { mkdir, mkdtemp, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LockWaitInterruptedError, TargetLocks, takeOver } from "./run-lock.js";
import { TargetLockedError } from "./target-locked-error.js";

const dir = await mkdtemp(join(tmpdir(), "fastrag-lock-"));

afterEach(() => {
  vi.useRealTimers();
});

/** This machine's id as the lock module writes it (read back from a lock it made). */
async function thisMachine(): Promise<string> {
  const lock = join(dir, "machine", "probe.lock");
  const locks = await TargetLocks.acquire([{ name: "probe", lock }], { onNote: () => {} });
  const { machine } = JSON.parse(await readFile(lock, "utf8"));
  await locks.release();
  return machine;
}

async function writeLock(
  lock: string,
  holder: { pid: number; host?: string; machine?: string; token?: string; processStart?: string },
  ageMs = 0,
): Promise<void> {
  await mkdir(dirname(lock), { recursive: true });
  await writeFile(
    lock,
    JSON.stringify({
      host: hostname(),
      machine: "elsewhere|boot|pid:[1]",
      started: "2026-01-01T00:00:00.000Z",
      token: "theirs",
      ...holder,
    }),
  );
  if (ageMs > 0) {
    const then = new Date(Date.now() - ageMs);
    await utimes(lock, then, then);
  }
}

const quick = { refreshMs: 200, staleMs: 1_000 };

describe("TargetLocks", () => {
  it("names the lock it cannot create under a file, never a raw file system error", async () => {
    const file = join(dir, "a-file");
    await writeFile(file, "");
    const lock = join(file, ".journal", "a.lock");
    const error = await TargetLocks.acquire([{ name: "a", lock }], { onNote: () => {} }).catch(
      (e) => e,
    );
    expect(error.name).toBe("ConfigurationError");
    expect(error.kind).toBe("unwritable-file");
    expect(error.path).toBe(lock);
    expect(error.message).toMatch(
      /a-file\/\.journal\/a\.lock: cannot create the lock of target "a": ENOTDIR.*is the output directory writable\?$/,
    );
  });

  it("keeps its lease fresh while held, and removes only its own locks", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const a = join(dir, "lease", "a.lock");
    const b = join(dir, "lease", "b.lock");
    const locks = await TargetLocks.acquire(
      [
        { name: "a", lock: a },
        { name: "b", lock: b },
      ],
      { onNote: () => {} },
    );
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(a, hourAgo, hourAgo);
    expect(Date.now() - (await stat(a)).mtimeMs).toBeGreaterThan(3_000_000);
    vi.advanceTimersByTime(15_000);
    // The refresh's utimes runs on the real file system: wait for it.
    await vi.waitFor(
      async () => {
        expect(Date.now() - (await stat(a)).mtimeMs).toBeLessThan(60_000);
      },
      { timeout: 10_000 },
    );
    // Someone deleted b and another run took it: release (and refresh) leave that lock alone.
    await writeLock(b, { pid: 1, host: "elsewhere" }, 3_600_000);
    const foreign = await readFile(b, "utf8");
    vi.advanceTimersByTime(15_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(Date.now() - (await stat(b)).mtimeMs).toBeGreaterThan(3_000_000);
    await locks.release();
    expect(existsSync(a)).toBe(false);
    expect(await readFile(b, "utf8")).toBe(foreign);
  });

  it("keeps the locks it took fresh while it watches a later one", async () => {
    const first = join(dir, "long-acquire", "first.lock");
    const watched = join(dir, "long-acquire", "watched.lock");
    await writeLock(watched, { pid: 1, host: "elsewhere" }, 3_600_000);
    const hourAgo = new Date(Date.now() - 3_600_000);
    const notes: string[] = [];
    const locks = await TargetLocks.acquire(
      [
        { name: "first", lock: first },
        { name: "watched", lock: watched },
      ],
      {
        onNote: (m) => {
          notes.push(m);
          // The watch of the second lock begins: the first one, taken already, looks an hour old.
          if (m.includes("watching")) utimesSync(first, hourAgo, hourAgo);
        },
        timings: quick,
      },
    );
    try {
      expect(notes[0]).toContain("watched: the lock");
      expect(notes.at(-1)).toContain("watched: took over the lock");
      // The watch lasted 2 refresh periods: the first lock was touched during it.
      expect(Date.now() - (await stat(first)).mtimeMs).toBeLessThan(60_000);
    } finally {
      await locks.release();
    }
  });

  it("releases the locks it took when a later one is held", async () => {
    const free = join(dir, "partial", "free.lock");
    const taken = join(dir, "partial", "taken.lock");
    const machine = await thisMachine();
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 5000)"]);
    try {
      await writeLock(taken, { pid: other.pid as number, machine });
      await expect(
        TargetLocks.acquire(
          [
            { name: "free", lock: free },
            { name: "taken", lock: taken },
          ],
          { onNote: () => {} },
        ),
      ).rejects.toMatchObject({
        name: "TargetLockedError",
        kind: "journal-in-use",
        path: taken,
        message: expect.stringContaining(`running target "taken"`),
      });
    } finally {
      other.kill();
    }
    expect(existsSync(free)).toBe(false);
    expect(existsSync(taken)).toBe(true);
  });

  it("on this machine, holds a lock exactly while its process lives, however old", async () => {
    const machine = await thisMachine();
    const lock = join(dir, "local", "t.lock");
    // A live process, its lock untouched for an hour (a suspended or busy run).
    const sleeper = spawn(process.execPath, ["-e", "setTimeout(() => {}, 5000)"]);
    try {
      await writeLock(lock, { pid: sleeper.pid as number, machine }, 3_600_000);
      await expect(
        TargetLocks.acquire([{ name: "t", lock }], { onNote: () => {}, timings: quick }),
      ).rejects.toThrow(`another fastrag-bench run (pid ${sleeper.pid} on ${hostname()}`);
    } finally {
      sleeper.kill();
    }
    // This very process's pid: a restarted container (pid 1 again) whose old run was killed.
    await writeLock(lock, { pid: process.pid, machine, token: "before-restart" });
    const restarted = await TargetLocks.acquire([{ name: "t", lock }], {
      onNote: () => {},
      timings: quick,
    });
    await restarted.release();
    // A live other process, its lock fresh: held.
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 5000)"]);
    try {
      await writeLock(lock, { pid: child.pid as number, machine });
      await expect(
        TargetLocks.acquire([{ name: "t", lock }], { onNote: () => {}, timings: quick }),
      ).rejects.toThrow(`(pid ${child.pid} on`);
    } finally {
      child.kill();
    }
    // An ended one, its lock fresh.
    const gone = spawnSync(process.execPath, ["-e", ""]).pid as number;
    await writeLock(lock, { pid: gone, machine });
    const notes: string[] = [];
    const locks = await TargetLocks.acquire([{ name: "t", lock }], {
      onNote: (m) => notes.push(m),
      timings: quick,
    });
    expect(notes).toEqual([`t: took over the lock ${lock}, whose process (pid ${gone}) has ended`]);
    await locks.release();
  });

  it.runIf(process.platform === "linux")(
    "on this machine, takes over a lock whose pid now belongs to another process",
    async () => {
      const machine = await thisMachine();
      const lock = join(dir, "reused", "t.lock");
      const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 5000)"]);
      try {
        const pid = child.pid as number;
        const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]?.split(" ");
        const start = fields?.[19] as string;
        expect(start).toMatch(/^\d+$/);
        // The lock's holder is the live process that started then: held.
        await writeLock(lock, { pid, machine, processStart: start });
        await expect(
          TargetLocks.acquire([{ name: "t", lock }], { onNote: () => {}, timings: quick }),
        ).rejects.toThrow(`(pid ${pid} on`);
        // The lock's holder started at another time: its pid was given to this process since.
        await writeLock(lock, { pid, machine, processStart: String(Number(start) + 1) });
        const notes: string[] = [];
        const locks = await TargetLocks.acquire([{ name: "t", lock }], {
          onNote: (m) => notes.push(m),
          timings: quick,
        });
        expect(notes).toEqual([
          `t: took over the lock ${lock}, whose process (pid ${pid}) has ended (the pid now belongs to another process)`,
        ]);
        // And this run's lock records its own start, for the next run to check.
        const mine = JSON.parse(await readFile(lock, "utf8"));
        expect(mine.processStart).toMatch(/^\d+$/);
        await locks.release();
      } finally {
        child.kill();
      }
    },
  );

  it("from elsewhere, takes over only a lock that is old and stays untouched", async () => {
    const lock = join(dir, "remote", "t.lock");
    // Fresh by our clock: held, with no wait.
    await writeLock(lock, { pid: 42, host: "ci-runner-2" });
    await expect(
      TargetLocks.acquire([{ name: "t", lock }], { onNote: () => {}, timings: quick }),
    ).rejects.toThrow("(pid 42 on ci-runner-2, since 2026-01-01T00:00:00.000Z)");
    // Old by our clock, but its holder (whose clock is behind) still touches it: held.
    // The holder touches it (to a time still old by our clock) while the watch is on: the note
    // comes after the watch has read the lock's time.
    await writeLock(lock, { pid: 42, host: "ci-runner-2" }, 60_000);
    const notes: string[] = [];
    const touch = (m: string) => {
      notes.push(m);
      const then = new Date(Date.now() - 59_000);
      if (m.includes("watching")) utimesSync(lock, then, then);
    };
    await expect(
      TargetLocks.acquire([{ name: "t", lock }], { onNote: touch, timings: quick }),
    ).rejects.toThrow(/pid 42 on ci-runner-2/);
    expect(notes).toEqual([expect.stringMatching(/looks abandoned; watching it for 0 s/)]);
    // Old and left alone: taken over after the watch.
    await writeLock(lock, { pid: 42, host: "ci-runner-2" }, 60_000);
    notes.length = 0;
    const locks = await TargetLocks.acquire([{ name: "t", lock }], {
      onNote: (m) => notes.push(m),
      timings: quick,
    });
    expect(notes[1]).toMatch(/^t: took over the lock .*, not refreshed for 0 s/);
    expect(JSON.parse(await readFile(lock, "utf8")).pid).toBe(process.pid);
    await locks.release();
  });

  it("ends a watch when its signal aborts, releasing the locks taken before", async () => {
    const free = join(dir, "interrupted", "a.lock");
    const watched = join(dir, "interrupted", "b.lock");
    await writeLock(watched, { pid: 42, host: "ci-runner-2" }, 60_000);
    const controller = new AbortController();
    const notes: string[] = [];
    const acquiring = TargetLocks.acquire(
      [
        { name: "a", lock: free },
        { name: "b", lock: watched },
      ],
      {
        onNote: (m) => {
          notes.push(m);
          // Aborted as the watch (10 s with these timings) starts.
          setTimeout(() => controller.abort(), 50);
        },
        timings: { refreshMs: 5_000, staleMs: 1_000 },
        signal: controller.signal,
      },
    );
    const started = Date.now();
    const error = await acquiring.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LockWaitInterruptedError);
    expect((error as Error).message).toBe(
      `b: stopped while watching the lock ${watched}; no target ran`,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(notes).toEqual([expect.stringMatching(/^b: .* looks abandoned; watching it for 10 s/)]);
    expect(existsSync(free)).toBe(false);
    expect(JSON.parse(await readFile(watched, "utf8")).token).toBe("theirs");
    // Already aborted: no wait at all.
    const again = await TargetLocks.acquire([{ name: "b", lock: watched }], {
      onNote: () => {},
      timings: { refreshMs: 5_000, staleMs: 1_000 },
      signal: controller.signal,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(again).toBeInstanceOf(LockWaitInterruptedError);
  });

  it("lets exactly one of several runs take over one stale lock", async () => {
    const machine = await thisMachine();
    const gone = spawnSync(process.execPath, ["-e", ""]).pid as number;
    for (let trial = 0; trial < 10; trial++) {
      const lock = join(dir, "race", `t${trial}.lock`);
      await writeLock(lock, { pid: gone, machine });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 6 }, () =>
          TargetLocks.acquire([{ name: "t", lock }], { onNote: () => {}, timings: quick }),
        ),
      );
      const won = outcomes.filter((o) => o.status === "fulfilled");
      expect(won, `trial ${trial}`).toHaveLength(1);
      for (const o of outcomes) {
        if (o.status === "rejected") expect((o.reason as Error).name).toBe("TargetLockedError");
      }
      await (won[0] as PromiseFulfilledResult<TargetLocks>).value.release();
    }
  });

  it("refuses a lock held by another run in this same process, and takes it once released", async () => {
    // Two runs in one process (two main() calls) share its pid: the pid alone cannot tell the
    // live one from a restarted container's dead run.
    const lock = join(dir, "same-process", "t.lock");
    const first = await TargetLocks.acquire([{ name: "t", lock }], {
      onNote: () => {},
      timings: quick,
    });
    const second = await TargetLocks.acquire([{ name: "t", lock }], {
      onNote: () => {},
      timings: quick,
    }).catch((e: unknown) => e);
    expect(TargetLockedError.isInstance(second)).toBe(true);
    expect((second as Error).name).toBe("TargetLockedError");
    expect((second as Error).message).toContain(`(pid ${process.pid} on`);
    await first.release();
    const third = await TargetLocks.acquire([{ name: "t", lock }], {
      onNote: () => {},
      timings: quick,
    });
    await third.release();
    expect(existsSync(lock)).toBe(false);
  });

  it("never removes a lock that changed hands after it was judged stale", async () => {
    // Run B judged the lock of an ended process stale; meanwhile run A took it over. B's takeover
    // must then leave A's lock alone (removing it would let both run).
    const lock = join(dir, "late", "t.lock");
    const staleHolder = { pid: 1, host: "h", machine: "m", started: "s", token: "stale" };
    await writeLock(lock, { pid: process.pid, token: "a-took-it" });
    const holderB = { pid: 2, host: "h", machine: "m", started: "s", token: "b" };
    expect(await takeOver(lock, staleHolder, "t", holderB)).toBe(false);
    expect(JSON.parse(await readFile(lock, "utf8")).token).toBe("a-took-it");
    // While another run holds the takeover guard, B does not take over either.
    await writeLock(lock, { pid: 1, token: "stale" });
    await writeFile(`${lock}.takeover`, "{}");
    expect(await takeOver(lock, staleHolder, "t", holderB)).toBe(false);
    expect(JSON.parse(await readFile(lock, "utf8")).token).toBe("stale");
    // A guard left by a crash (over 2 minutes old) is cleared, and the takeover goes ahead.
    const old = new Date(Date.now() - 121_000);
    await utimes(`${lock}.takeover`, old, old);
    expect(await takeOver(lock, staleHolder, "t", holderB)).toBe(true);
    expect(JSON.parse(await readFile(lock, "utf8")).token).toBe("b");
    expect(existsSync(`${lock}.takeover`)).toBe(false);
  });

  it("counts an unreadable lock from elsewhere as held while it is fresh", async () => {
    const lock = join(dir, "garbled", "t.lock");
    await mkdir(dirname(lock), { recursive: true });
    await writeFile(lock, "{half-writ");
    await expect(
      TargetLocks.acquire([{ name: "t", lock }], { onNote: () => {}, timings: quick }),
    ).rejects.toThrow(/another fastrag-bench run is running target "t"/);
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    const locks = await TargetLocks.acquire([{ name: "t", lock }], {
      onNote: () => {},
      timings: quick,
    });
    expect(JSON.parse(await readFile(lock, "utf8")).pid).toBe(process.pid);
    await locks.release();
  });
});
