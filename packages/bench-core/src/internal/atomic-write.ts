import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { ConfigurationError } from "../errors.js";
import { type WriteAsync, writeAll } from "./write-all.js";

/**
 * Writes `chunks` to `path` atomically: into a temporary file beside it, flushed to disk, then
 * renamed over the target. Readers see the old file or the new one, never half of one.
 *
 * Every write loops until all of its bytes are written: a short write (a full disk, a file size
 * limit) is followed by another, and the system's error on that one fails the save. A failed save
 * removes its temporary file and leaves the old file at `path` as it was.
 *
 * Temporary files left by a process that was killed mid-save (`.<name>.<host>-<pid>.<random>.tmp`)
 * are removed by the next save of the same file, once their process is gone.
 *
 * @throws {ConfigurationError} when the file cannot be written (a parent that is a file, a
 * directory in its place, no permission, a full disk, a file size limit), naming the path and the
 * system's reason; its `cause` is the system error (with its `code`). An error thrown while
 * producing `chunks` is rethrown as it is.
 */
export async function writeFileAtomic(
  path: string,
  chunks: () => Iterable<string> | AsyncIterable<string>,
): Promise<void> {
  return writeFileAtomicWith(path, chunks, undefined);
}

/**
 * {@link writeFileAtomic} with the write call replaceable: tests hand in one that returns short
 * counts, as a full disk does, on any machine.
 * @internal
 */
export async function writeFileAtomicWith(
  path: string,
  chunks: () => Iterable<string> | AsyncIterable<string>,
  write:
    | ((fd: number, buffer: Uint8Array, offset: number, length: number) => Promise<number>)
    | undefined,
): Promise<void> {
  const dir = dirname(path);
  let handle: Awaited<ReturnType<typeof open>>;
  let tmp: string;
  try {
    await makeDirectory(dir);
    await removeOrphans(dir, basename(path));
    tmp = join(
      dir,
      `.${basename(path)}.${HOST}-${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
    );
    handle = await open(tmp, "w");
  } catch (error) {
    throw writeError(path, error);
  }
  const h = handle;
  const put: WriteAsync =
    write === undefined
      ? async (buffer, offset, length) => (await h.write(buffer, offset, length)).bytesWritten
      : (buffer, offset, length) => write(h.fd, buffer, offset, length);
  let written = 0;
  try {
    let pending = "";
    for await (const chunk of chunks()) {
      pending += chunk;
      if (pending.length >= 1 << 20) {
        const bytes = Buffer.from(pending, "utf8");
        pending = "";
        await writeAll(bytes, put);
        written += bytes.length;
      }
    }
    if (pending.length > 0) {
      const bytes = Buffer.from(pending, "utf8");
      await writeAll(bytes, put);
      written += bytes.length;
    }
    await handle.sync();
    // What the file system holds must be what was written before it may replace the old file.
    const size = (await handle.stat()).size;
    if (size !== written) {
      throw Object.assign(
        new Error(`the temporary file holds ${size} bytes after writing ${written}`),
        { code: "EIO", syscall: "write" },
      );
    }
    await handle.close();
    await rename(tmp, path);
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(tmp, { force: true }).catch(() => {});
    throw writeError(path, error, true);
  }
}

/** A short tag of this machine in temporary names: another machine's live pid is not ours. */
const HOST = createHash("sha256").update(hostname()).digest("hex").slice(0, 8);

/** `.<name>.<host>-<pid>.<random>.tmp`, and the older `.<name>.<pid>.<random>.tmp`. */
const TMP = /^(?:([0-9a-f]{8})-)?(\d+)\.[0-9a-f]{8}\.tmp$/;

/** An orphan of another machine, or of the older naming, is removed only when this old. */
const FOREIGN_ORPHAN_MS = 24 * 3600 * 1000;

/**
 * Removes the temporary files of earlier saves of `name` in `dir` whose writer is gone: a kill
 * between the open and the rename leaves one behind, and nothing else ever removes it. A writer of
 * this machine is gone when its pid is; one of another machine (a shared directory), or of the
 * older naming without the machine, when its file has not changed for a day.
 */
async function removeOrphans(dir: string, name: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return;
  }
  const prefix = `.${name}.`;
  for (const entry of entries) {
    if (!entry.startsWith(prefix)) continue;
    const m = TMP.exec(entry.slice(prefix.length));
    if (m === null) continue;
    const pid = Number(m[2]);
    const file = join(dir, entry);
    let orphan: boolean;
    if (m[1] === HOST) orphan = pid !== process.pid && !isAlive(pid);
    else {
      const s = await stat(file).catch(() => undefined);
      orphan = s !== undefined && Date.now() - s.mtimeMs > FOREIGN_ORPHAN_MS;
    }
    if (orphan) await rm(file, { force: true }).catch(() => {});
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as { code?: unknown }).code !== "ESRCH";
  }
}

/**
 * `mkdir -p`: creates `dir` and its missing parents. Node's `mkdir(dir, { recursive: true })`
 * never returns under a directory that refuses entries with ENOENT (`/proc`): it retries the same
 * parent forever at full CPU. Here each level is made once, and its error is thrown.
 */
export async function makeDirectory(dir: string): Promise<void> {
  try {
    await mkdir(dir);
    return;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "EEXIST") {
      // A directory already there is fine; a file in its place is the caller's error.
      if ((await stat(dir).catch(() => undefined))?.isDirectory()) return;
      throw error;
    }
    const parent = dirname(dir);
    if (code !== "ENOENT" || parent === dir) throw error;
  }
  await makeDirectory(dirname(dir));
  try {
    await mkdir(dir);
  } catch (error) {
    // Made meanwhile by another writer: as good as made here.
    if ((error as { code?: unknown }).code === "EEXIST" && (await stat(dir)).isDirectory()) return;
    throw error;
  }
}

/** Plain words for the system errors a write most often meets; others keep Node's message. */
const REASONS: Readonly<Record<string, string>> = {
  EEXIST: "a parent of it is a file, not a directory",
  ENOTDIR: "a parent of it is a file, not a directory",
  EISDIR: "it is a directory",
  EACCES: "permission denied",
  EPERM: "permission denied",
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is used up",
  EFBIG: "the file would exceed the size limit of this process (ulimit -f) or of the file system",
  EROFS: "the file system is read-only",
  EIO: "an input/output error",
};

/**
 * The plain reason of a system error, with its code: "no space left on the device (ENOSPC)".
 * Anything else gives its message.
 */
export function systemReason(error: unknown): string {
  const e = error as { code?: unknown; errno?: unknown; message?: unknown } | null;
  if (typeof e?.code !== "string") return String(e?.message ?? error);
  const reason =
    typeof e.errno === "number" && Object.hasOwn(REASONS, e.code)
      ? REASONS[e.code]
      : String(e.message);
  return `${reason} (${e.code})`;
}

/**
 * A system error (it has a `code` and a `syscall`) as a ConfigurationError naming `path`. With
 * `started`, the message also says that the file at `path` was left as it was.
 */
export function writeError(path: string, error: unknown, started = false): unknown {
  const e = error as {
    code?: unknown;
    errno?: unknown;
    syscall?: unknown;
    message?: unknown;
  } | null;
  if (typeof e?.code !== "string" || typeof e.syscall !== "string") return error;
  // Node's own errors get plain words; one made here (a write that made no progress) says itself.
  const kept = started ? "; nothing was replaced (a file already there is unchanged)" : "";
  return new ConfigurationError(`${path}: cannot write the file: ${systemReason(error)}${kept}`, {
    kind: "unwritable-file",
    path,
    cause: error,
  });
}
