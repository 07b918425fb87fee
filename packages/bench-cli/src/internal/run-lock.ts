import { randomUUID } from "node:crypto";
import { mkdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { ConfigurationError, errorMessage } from "@fastrag/bench-core";

// Two `run`s of one target into one directory at once would both make every call (paid API calls,
// twice) and write over each other's result file. So `run` holds a lock file per target beside
// its journal while it runs. A lock is a lease: its holder touches it every REFRESH_MS, so one left
// behind by a process killed with -9, on this machine or another (a container, a CI runner), is
// taken over once it is STALE_MS old. On this machine a holder whose process is gone is stale at
// once.

const REFRESH_MS = 15_000;
const STALE_MS = 120_000;

/** Another run holds a target's lock; the message names it and what to do. */
export class TargetLockedError extends ConfigurationError {
  constructor(message: string) {
    super(message);
    this.name = "TargetLockedError";
  }
}

/** What a lock file holds: who runs the target. */
interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly started: string;
  readonly token: string;
}

/** The locks of the targets one `run` command runs, held until `release`. */
export class TargetLocks {
  private timer: ReturnType<typeof setInterval> | undefined;

  private constructor(
    private readonly paths: readonly string[],
    private readonly token: string,
  ) {
    if (paths.length > 0) {
      this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
      this.timer.unref?.();
    }
  }

  /**
   * Takes the lock at every path (each `<target>.lock`), taking over stale ones; `onStale` is
   * told of each one taken over. If another live run holds one, the locks taken so far are
   * released and a ConfigurationError names that run and the lock file.
   */
  static async acquire(
    targets: readonly { readonly name: string; readonly lock: string }[],
    onStale: (message: string) => void,
  ): Promise<TargetLocks> {
    const token = randomUUID();
    const holder: Holder = {
      pid: process.pid,
      host: hostname(),
      started: new Date().toISOString(),
      token,
    };
    const taken: string[] = [];
    try {
      for (const { name, lock } of targets) {
        await take(lock, name, holder, onStale);
        taken.push(lock);
      }
    } catch (error) {
      await new TargetLocks(taken, token).release();
      throw error;
    }
    return new TargetLocks(taken, token);
  }

  /** Removes the locks that are still this run's. */
  async release(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    for (const lock of this.paths) {
      if ((await readHolder(lock))?.token === this.token) await rm(lock, { force: true });
    }
  }

  private async refresh(): Promise<void> {
    const now = new Date();
    for (const lock of this.paths) await utimes(lock, now, now).catch(() => {});
  }
}

async function take(
  lock: string,
  name: string,
  holder: Holder,
  onStale: (message: string) => void,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await mkdir(dirname(lock), { recursive: true });
      // "wx" creates the file only if it does not exist: of two runs racing for it, one wins. The
      // other may read it half-written; an unreadable lock counts as held while it is fresh.
      await writeFile(lock, `${JSON.stringify(holder)}\n`, { flag: "wx" });
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "EEXIST") {
        throw new ConfigurationError(
          `${lock}: cannot create the lock of target ${JSON.stringify(name)}: ${errorMessage(error)}; is the output directory writable?`,
          { cause: error },
        );
      }
    }
    const age = await ageOf(lock);
    const other = await readHolder(lock);
    if (age === undefined) {
      // Released meanwhile: try again (a few times, should other runs keep taking it first).
      if (attempt < 5) continue;
      throw held(lock, name, other);
    }
    const stale = staleness(other, age);
    if (stale === undefined || attempt >= 2) throw held(lock, name, other);
    onStale(`${name}: took over the lock ${lock}, ${stale}`);
    await rm(lock, { force: true });
  }
}

/** Why a lock is stale, or `undefined` when its holder may still be running. */
function staleness(other: Holder | undefined, ageMs: number): string | undefined {
  if (ageMs > STALE_MS) {
    return `untouched for ${Math.round(ageMs / 1000)} s (its holder refreshes it every ${REFRESH_MS / 1000} s)`;
  }
  if (other !== undefined && other.host === hostname() && !isAlive(other.pid)) {
    return `whose process (pid ${other.pid}) has ended`;
  }
  return undefined;
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
  );
}

async function readHolder(lock: string): Promise<Holder | undefined> {
  try {
    const value = JSON.parse(await readFile(lock, "utf8")) as Partial<Holder> | null;
    if (
      typeof value?.pid === "number" &&
      typeof value.host === "string" &&
      typeof value.started === "string" &&
      typeof value.token === "string"
    ) {
      return value as Holder;
    }
  } catch {
    // Missing or not ours to read: treated as a holder unknown.
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
