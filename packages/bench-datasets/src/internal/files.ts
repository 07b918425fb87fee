import { readFile, stat } from "node:fs/promises";
import { inputError, messageOf } from "./problems.js";
import { decodeUtf8 } from "./utf8.js";

/**
 * Reads a whole UTF-8 text file (BOM dropped); a missing or unreadable file, or one that is not
 * valid UTF-8, is a ConfigurationError.
 */
export async function readTextFile(path: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw fileError(path, error);
  }
  return decodeUtf8(bytes, path);
}

/** A ConfigurationError for a file that cannot be opened or read. */
export function fileError(path: string, error: unknown): Error {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ENOENT") return inputError(path, "no such file or directory", error);
  if (code === "EISDIR") return inputError(path, "is a directory, expected a file", error);
  return inputError(path, `cannot read: ${messageOf(error)}`, error);
}

/** True when `path` is a directory; a missing path is a ConfigurationError. */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch (error) {
    throw fileError(path, error);
  }
}
