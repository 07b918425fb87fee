import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Vitest global setup: each test run gets a temporary directory of its own as `TMPDIR`, inherited
 * by the test workers and by the processes tests start, and removed when the run ends. So the
 * files and directories that tests create under `os.tmpdir()` never pile up in the system's,
 * whether or not each test cleans up after itself (a failing one often cannot).
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "fastrag-test-"));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
}
