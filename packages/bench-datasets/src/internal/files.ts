import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { readFileBytes } from "./gzip.js";
import { inputError, messageOf } from "./problems.js";
import { decodeUtf8 } from "./utf8.js";

/**
 * Reads a whole UTF-8 text file (BOM dropped), decompressed when it is gzip; a missing or
 * unreadable file, or one that is not valid UTF-8 or valid gzip, is a ConfigurationError.
 */
export async function readTextFile(path: string): Promise<string> {
  // Read once: a pipe (`<(zcat topics.gz)`) cannot be read again.
  const bytes = await readFileBytes(path);
  // Node's own UTF-8 decoding is the fastest (about 2× the strict decoder), but it turns invalid
  // bytes into U+FFFD. So a text holding U+FFFD (never, in nearly every file: V8 answers at once
  // for a one-byte string) is decoded again, strictly.
  let text = bytes.toString("utf8");
  if (text.indexOf("\uFFFD") !== -1) text = decodeUtf8(bytes, path);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** A ConfigurationError for a file that cannot be opened or read. */
export function fileError(path: string, error: unknown): Error {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ENOENT") {
    // A relative path is read from the working directory: say which file that was.
    const where = isAbsolute(path) ? "" : ` (looked for ${resolve(path)})`;
    return inputError(path, `no such file or directory${where}`, error);
  }
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
