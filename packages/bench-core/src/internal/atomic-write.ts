import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ConfigurationError } from "../errors.js";

/**
 * Writes `chunks` to `path` atomically: into a temporary file beside it, flushed to disk, then
 * renamed over the target. Readers see the old file or the new one, never half of one.
 *
 * @throws {ConfigurationError} when the file cannot be written (a parent that is a file, a
 * directory in its place, no permission, a full disk), naming the path and the system's reason;
 * an error thrown while producing `chunks` is rethrown as it is.
 */
export async function writeFileAtomic(
  path: string,
  chunks: () => Iterable<string> | AsyncIterable<string>,
): Promise<void> {
  const dir = dirname(path);
  let handle: Awaited<ReturnType<typeof open>>;
  let tmp: string;
  try {
    await makeDirectory(dir);
    tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
    handle = await open(tmp, "w");
  } catch (error) {
    throw writeError(path, error);
  }
  try {
    let pending = "";
    for await (const chunk of chunks()) {
      pending += chunk;
      if (pending.length >= 1 << 20) {
        await handle.write(pending);
        pending = "";
      }
    }
    if (pending.length > 0) await handle.write(pending);
    await handle.sync();
    await handle.close();
    await rename(tmp, path);
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(tmp, { force: true });
    throw writeError(path, error);
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
};

/** A system error (it has a `code` and a `syscall`) as a ConfigurationError naming `path`. */
function writeError(path: string, error: unknown): unknown {
  const e = error as { code?: unknown; syscall?: unknown; message?: unknown } | null;
  if (typeof e?.code !== "string" || typeof e.syscall !== "string") return error;
  const reason = Object.hasOwn(REASONS, e.code) ? REASONS[e.code] : String(e.message);
  return new ConfigurationError(`${path}: cannot write the file: ${reason} (${e.code})`, {
    cause: error,
  });
}
