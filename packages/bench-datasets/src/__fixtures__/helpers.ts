import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A file of ../shared/data, read in place. */
export { sharedData } from "../../../../test-support/shared-data.js";

/** A fresh temporary directory. */
export function tempDir(prefix = "datasets-"): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Writes `content` to a new temporary file named `name` and returns its path. */
export async function tempFile(name: string, content: string | Uint8Array): Promise<string> {
  const path = join(await tempDir(), name);
  await writeFile(path, content);
  return path;
}

/** The error a promise rejects with (fails when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
}
