import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** A file of ../shared/data, read in place. */
export function sharedData(relative: string): string {
  return fileURLToPath(new URL(`../../../../../shared/data/${relative}`, import.meta.url));
}

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
