import { randomUUID } from "node:crypto";
import { readFileSync, readlinkSync, rmSync } from "node:fs";
import { link, mkdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { ConfigurationError, errorMessage } from "@fastrag/bench-core";
import { TargetLockedError } from "./target-locked-error.js";

// Two `run`s of one target into one directory at once would both make every call (paid API calls,
// twice) and write over each other's result file. So `run` holds a lock file per target beside
// its journal while it runs.
//
// Whether a lock left behind is stale:
// - A holder on this machine (same host name, boot and process namespace, so not a container
//   that shares the host name) holds it exactly as long as its process lives: no clock involved.
// - A holder elsewhere (another container, a CI runner on a shared file system) touches the lock
//   every REFRESH_MS. Its lock is stale once it looks STALE_MS old and then, watched for longer
//   than REFRESH_MS, does not change: clocks of two machines may disagree by minutes, so the age
//   alone never decides.
// A stale lock is taken over under a short-lived takeover lock, so that of two runs taking over
// at once, one wins.

const REFRESH_MS = 15_000;
const STALE_MS = 120_000;

/** What a lock file holds: who runs the target. */
interface Holder {
  readonly pid: number;
  readonly host: string;
  /** Host name, boot and pid namespace: equal only for processes that can see each other. */
  readonly machine: string;
  readonly started: string;
  readonly token: string;
  /**
   * When the holder's process started, as the kernel counts it (Linux `/proc/<pid>/stat`, in
   * clock ticks since boot): a live pid that started at another time is a reused pid. Absent
   * off Linux.
   */
  readonly processStart?: string;
}

/** Timings, overridable by tests. */
export interface LockTimings {
  readonly refreshMs: number;
  readonly staleMs: number;
}

const TIMINGS: LockTimings = { refreshMs: REFRESH_MS, staleMs: STALE_MS };

/** How {@link TargetLocks.acquire} reports, times and stops. */
export interface AcquireOptions {
  /** Told of each lock taken over, and of a wait to see whether another machine's lock is alive. */
  readonly onNote: (message: string) => void;
  /** The refresh and staleness periods (tests shorten them). */
  readonly timings?: LockTimings;
  /** Ends a wait on another machine's lock at once (the first Ctrl-C). */
  readonly signal?: AbortSignal;
}

/** One `acquire`'s claim: who takes the locks, and how it reports, times and stops. */
interface Claim {
  readonly holder: Holder;
  readonly onNote: (message: string) => void;
  readonly timings: LockTimings;
  readonly signal: AbortSignal | undefined;
}

/**
 * The tokens of the runs in this process that are taking or holding locks: a lock naming this
 * process's pid is another live run's when its token is here (two `main()` calls in one process),
 * and a dead run's otherwise (a restarted container given the same pid).
 */
const liveHere = new Set<string>();

/** The locks of the targets one `run` command runs, held until `release`. */
export class TargetLocks {
  private readonly paths: string[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly onExit = (): void => this.releaseSync();

  private constructor(
    private readonly token: string,
    private readonly timings: LockTimings,
  ) {}

  /** Holds `lock` from now on: refreshed from the first one taken, even while others are awaited. */
  private hold(lock: string): void {
    this.paths.push(lock);
    if (this.timer === undefined) {
      this.timer = setInterval(() => void this.refresh(), this.timings.refreshMs);
      this.timer.unref?.();
      // A second Ctrl-C ends the process at once: its locks go with it.
      process.once("exit", this.onExit);
    }
  }

  /**
   * Takes the lock at every path (each `<target>.lock`), taking over stale ones; `onNote` is told
   * of each one taken over, and of a wait to see whether another machine's lock is still alive.
   * If another live run holds one, the locks taken so far are released and a TargetLockedError
   * names that run and the lock file. When `signal` aborts during a wait (Ctrl-C while another
   * machine's lock is watched), the wait ends at once, the locks taken so far are released and a
   * {@link LockWaitInterruptedError} is thrown.
   */
  static async acquire(
    targets: readonly { readonly name: string; readonly lock: string }[],
    options: AcquireOptions,
  ): Promise<TargetLocks> {
    const timings = options.timings ?? TIMINGS;
    const token = randomUUID();
    const start = processStart(process.pid);
    const holder: Holder = {
      pid: process.pid,
      host: hostname(),
      machine: machineId(),
      started: new Date().toISOString(),
      token,
      ...(start === undefined ? {} : { processStart: start }),
    };
    const locks = new TargetLocks(token, timings);
    const claim: Claim = { holder, onNote: options.onNote, timings, signal: options.signal };
    // Before the first lock exists, so that no run in this process ever sees it as a dead run's.
    liveHere.add(token);
    try {
      for (const { name, lock } of targets) {
        await take(lock, name, claim);
        locks.hold(lock);
      }
    } catch (error) {
      await locks.release();
      throw error;
    }
    return locks;
  }

  /** Removes the locks that are still this run's. */
  async release(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    process.off("exit", this.onExit);
    try {
      for (const lock of this.paths) {
        if ((await readHolder(lock))?.token === this.token) await rm(lock, { force: true });
      }
    } finally {
      liveHere.delete(this.token);
    }
  }

  private releaseSync(): void {
    for (const lock of this.paths) {
      try {
        if (parseHolder(readFileSync(lock, "utf8"))?.token === this.token) rmSync(lock);
      } catch {
        // Gone already, or unreadable: nothing of ours to remove.
      }
    }
  }

  private async refresh(): Promise<void> {
    const now = new Date();
    for (const lock of this.paths) {
      // Only our own: a lock taken over by another run is that run's to refresh.
      if ((await readHolder(lock))?.token === this.token)
        await utimes(lock, now, now).catch(() => {});
    }
  }
}

async function take(lock: string, name: string, claim: Claim): Promise<void> {
  const { holder, onNote } = claim;
  for (let attempt = 0; ; attempt++) {
    if (await create(lock, holder, name)) return;
    const other = await readHolder(lock);
    const stale = await staleness(lock, other, name, claim);
    if (stale === "gone") {
      // Released meanwhile: try again (a few times, should other runs keep taking it first).
      if (attempt < 5) continue;
      throw held(lock, name, other);
    }
    if (stale === undefined || attempt >= 2) throw held(lock, name, other);
    if (!(await takeOver(lock, other, name, holder)))
      throw held(lock, name, await readHolder(lock));
    onNote(`${name}: took over the lock ${lock}, ${stale}`);
    return;
  }
}

/**
 * Creates the lock with `holder` in it, or returns false when it exists. The content is written
 * to a file of its own first and then linked into place: link fails when the lock exists, so of
 * two runs one wins, and a lock is never seen half-written (nor left empty by a crash).
 */
async function create(lock: string, holder: Holder, name: string): Promise<boolean> {
  const draft = `${lock}.${holder.token}`;
  const content = `${JSON.stringify(holder)}\n`;
  for (let attempt = 0; ; attempt++) {
    try {
      await mkdir(dirname(lock), { recursive: true });
      await writeFile(draft, content);
      try {
        await link(draft, lock);
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (code === "EEXIST") return false;
        // A file system without hard links: create-if-absent, content written after.
        if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS")
          throw error;
        try {
          await writeFile(lock, content, { flag: "wx" });
        } catch (fallback) {
          if ((fallback as { code?: unknown }).code === "EEXIST") return false;
          throw fallback;
        }
      }
      return true;
    } catch (error) {
      // Another run's last step removes the empty `.journal`: make it again.
      if ((error as { code?: unknown }).code === "ENOENT" && attempt < 5) continue;
      throw new ConfigurationError(
        `${lock}: cannot create the lock of target ${JSON.stringify(name)}: ${errorMessage(error)}; is the output directory writable?`,
        { kind: "unwritable-file", path: lock, cause: error },
      );
    } finally {
      // Where the draft could not be made (a path under a file, a name too long), removing it
      // fails alike: that must not hide the error above.
      await rm(draft, { force: true }).catch(() => {});
    }
  }
}

/**
 * Removes the stale lock of `other` and creates this run's, under a takeover lock so that no two
 * runs do it at once; false when the lock changed hands meanwhile. (Exported for tests.)
 */
export async function takeOver(
  lock: string,
  other: Holder | undefined,
  name: string,
  holder: Holder,
): Promise<boolean> {
  const guard = `${lock}.takeover`;
  const guardHolder: Holder = { ...holder, token: `${holder.token}-takeover` };
  if (!(await create(guard, guardHolder, name))) {
    // Another run is taking it over; or one crashed doing so, which leaves a guard behind.
    const age = await ageOf(guard);
    // Judged by age, so generously: a clock ahead by minutes must not clear a live guard.
    if (age === undefined || age < STALE_MS) return false;
    await rm(guard, { force: true });
    if (!(await create(guard, guardHolder, name))) return false;
  }
  try {
    const now = await readHolder(lock);
    // Still the lock judged stale (by its token, or still unreadable)?
    if (now?.token !== other?.token) return false;
    await rm(lock, { force: true });
    return await create(lock, holder, name);
  } finally {
    await rm(guard, { force: true });
  }
}

/**
 * Why a lock is stale; `undefined` when its holder may still be running; "gone" when the lock is
 * no longer there.
 */
async function staleness(
  lock: string,
  other: Holder | undefined,
  name: string,
  { onNote, timings, signal }: Claim,
): Promise<string | undefined | "gone"> {
  const before = await stat(lock).catch(() => undefined);
  if (before === undefined) return "gone";
  if (other !== undefined && other.machine === machineId()) {
    // This machine's: held exactly while its process lives. A pid that is this process's own
    // is another run's in this process while that run lives; otherwise a restarted container's
    // (pid namespaces and pids are reused), whose run has ended.
    if (other.pid === process.pid) {
      return liveHere.has(other.token)
        ? undefined
        : `whose pid (${other.pid}) is now this run's own`;
    }
    if (!isAlive(other.pid)) return `whose process (pid ${other.pid}) has ended`;
    // Alive, but perhaps another process that was given the ended run's pid.
    const start = other.processStart === undefined ? undefined : processStart(other.pid);
    if (start !== undefined && start !== other.processStart)
      return `whose process (pid ${other.pid}) has ended (the pid now belongs to another process)`;
    return undefined;
  }
  if (Date.now() - before.mtimeMs <= timings.staleMs) return undefined;
  // Looks old, but the clocks may disagree: watch whether its holder still touches it.
  const watch = timings.refreshMs + Math.min(5_000, timings.refreshMs);
  onNote(
    `${name}: the lock ${lock}${other === undefined ? "" : ` of pid ${other.pid} on ${other.host}`} looks abandoned; watching it for ${Math.round(watch / 1000)} s to be sure`,
  );
  // Ends early (rejecting, ignored here) when the signal aborts.
  await delay(watch, undefined, signal && { signal }).catch(() => {});
  if (signal?.aborted) throw new LockWaitInterruptedError(name, lock);
  const after = await stat(lock).catch(() => undefined);
  if (after === undefined) return "gone";
  if (after.mtimeMs !== before.mtimeMs || (await readHolder(lock))?.token !== other?.token) {
    return undefined;
  }
  return `not refreshed for ${Math.round(watch / 1000)} s (its holder refreshes it every ${timings.refreshMs / 1000} s)`;
}

/** Thrown by {@link TargetLocks.acquire} when its signal aborts while it waits on a lock. */
export class LockWaitInterruptedError extends Error {
  constructor(
    readonly target: string,
    readonly lock: string,
  ) {
    super(`${target}: stopped while watching the lock ${lock}; no target ran`);
    this.name = "LockWaitInterruptedError";
  }
}

let machine: string | undefined;

/**
 * This machine as its processes see it: the host name, plus on Linux the boot and the process
 * namespace (containers share a kernel's boot id but not its pid namespace; two hosts of one
 * name differ in boot id).
 */
function machineId(): string {
  if (machine === undefined) {
    let boot = "";
    let pids = "";
    try {
      boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    } catch {
      // Not Linux: the host name alone.
    }
    try {
      pids = readlinkSync("/proc/self/ns/pid");
    } catch {
      // Not Linux.
    }
    machine = `${hostname()}|${boot}|${pids}`;
  }
  return machine;
}

/**
 * When process `pid` started, in clock ticks since boot (field 22 of Linux `/proc/<pid>/stat`);
 * `undefined` off Linux or when it cannot be read. Together with the pid, it names one process.
 */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so count from the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = fields[19];
    return start !== undefined && /^\d+$/.test(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists, owned by another user.
    return (error as { code?: unknown }).code === "EPERM";
  }
}

function held(lock: string, name: string, other: Holder | undefined): TargetLockedError {
  const who =
    other === undefined
      ? "another fastrag-bench run"
      : `another fastrag-bench run (pid ${other.pid} on ${other.host}, since ${other.started})`;
  return new TargetLockedError(
    `${who} is running target ${JSON.stringify(name)} into this directory; wait for it to finish, or give this run another --out-dir. If no such run is going on, delete ${lock}`,
    { path: lock },
  );
}

async function readHolder(lock: string): Promise<Holder | undefined> {
  try {
    return parseHolder(await readFile(lock, "utf8"));
  } catch {
    return undefined; // gone, or not ours to read
  }
}

function parseHolder(text: string): Holder | undefined {
  try {
    const value = JSON.parse(text) as Partial<Holder> | null;
    if (
      typeof value?.pid === "number" &&
      typeof value.host === "string" &&
      typeof value.started === "string" &&
      typeof value.token === "string"
    ) {
      const { processStart: start, ...rest } = value;
      return {
        ...rest,
        machine: typeof value.machine === "string" ? value.machine : "",
        ...(typeof start === "string" ? { processStart: start } : {}),
      } as Holder;
    }
  } catch {
    // Not a lock of this format.
  }
  return undefined;
}

/** How long ago the lock was last touched; `undefined` when it is gone. */
async function ageOf(lock: string): Promise<number | undefined> {
  try {
    return Date.now() - (await stat(lock)).mtimeMs;
  } catch {
    return undefined;
  }
}
