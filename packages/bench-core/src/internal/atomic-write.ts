import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Writes `chunks` to `path` atomically: into a temporary file beside it, flushed to disk, then
 * renamed over the target. Readers see the old file or the new one, never half of one.
 */
export async function writeFileAtomic(
  path: string,
  chunks: () => Iterable<string> | AsyncIterable<string>,
): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const handle = await open(tmp, "w");
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
    throw error;
  }
}
