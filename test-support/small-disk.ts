// Test helpers for a disk that fills up: a small tmpfs, and a file size limit (`ulimit -f`). The
// packages whose tests need one (core's journal and atomic writes, the CLI's I/O faults) share
// these, read from their tests by relative path as shared-data.ts is.
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A small tmpfs of this test's own: a real disk that fills up. */
export interface SmallDisk {
  readonly dir: string;
  /** Unmounts it and removes its mount point. */
  readonly remove: () => Promise<void>;
}

/**
 * Mounts a tmpfs of `size` (e.g. "2m") on a new directory, or says why it cannot: mounting needs
 * root (CI runs as root) and a kernel that lets this container mount. A test skips with that
 * reason, and only then.
 */
export async function mountSmallDisk(size: string): Promise<SmallDisk | string> {
  const dir = await mkdtemp(join(tmpdir(), "fastrag-small-disk-"));
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], {
    encoding: "utf8",
  });
  if (r.error !== undefined || r.status !== 0) {
    await rm(dir, { recursive: true, force: true });
    const why = r.error?.message ?? r.stderr.trim();
    return `cannot mount a ${size} tmpfs here (${why || `exit ${r.status}`}); needs root`;
  }
  return {
    dir,
    remove: async () => {
      spawnSync("umount", [dir]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Whether `ulimit -f` works in a child shell here: the reason it does not, or undefined. A file
 * size limit needs no privilege, but a shell must be there to set it.
 */
export function fileSizeLimitUnavailable(): string | undefined {
  const r = spawnSync("sh", ["-c", "ulimit -f 100 && ulimit -f"], { encoding: "utf8" });
  if (r.error !== undefined) return `no sh to set ulimit -f in (${r.error.message})`;
  if (r.status !== 0 || r.stdout.trim() !== "100")
    return `ulimit -f does not take effect here (${r.stderr.trim() || r.stdout.trim()})`;
  return undefined;
}
