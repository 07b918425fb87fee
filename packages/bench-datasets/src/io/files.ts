import { constants as bufferConstants } from "node:buffer";
import { readFile, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { inputError, messageOf } from "../records/problems.js";
import { gunzipBytes, isGzip } from "./gzip.js";
import { count, isTooLarge, textLimit, tooLargeError } from "./text-limit.js";
import { decodeUtf8 } from "./utf8.js";

/**
 * Reads a whole UTF-8 text file (BOM dropped), decompressed when it is gzip; a missing or
 * unreadable file, or one that is not valid UTF-8 or valid gzip, is a ConfigurationError.
 *
 * A file whose text is longer than a string can hold (V8's limit, about 537 million characters)
 * is a ConfigurationError naming its size, the limit and `fix` (what to do instead), never
 * Node's raw "Cannot create a string longer than 0x1fffffe8 characters".
 */
export async function readTextFile(
  path: string,
  fix = "this format is read whole: split it into smaller files",
): Promise<string> {
  // Read once: a pipe (`<(zcat topics.gz)`) cannot be read again.
  let raw: Buffer;
  try {
    raw = await readFile(path);
  } catch (error) {
    // Over 2 GiB, Node 20 refuses to read a file into one Buffer.
    if (isTooLarge(error)) throw tooLargeError(path, await sizeOf(path), fix, error);
    throw fileError(path, error);
  }
  const gzip = isGzip(raw);
  let bytes: Buffer;
  try {
    bytes = gzip ? await gunzipBytes(raw, path) : raw;
  } catch (error) {
    // Unpacked, it is larger than a Buffer can be (4 GiB): its size is not known.
    if (isTooLarge(error)) {
      const most = count(bufferConstants.MAX_LENGTH);
      throw tooLargeError(
        path,
        `${count(raw.length)} bytes of gzip unpacking to more than ${most} bytes`,
        fix,
        error,
      );
    }
    throw error;
  }
  const size = gzip
    ? `${count(bytes.length)} bytes unpacked (${count(raw.length)} bytes of gzip)`
    : `${count(bytes.length)} bytes`;
  // Node's own UTF-8 decoding is the fastest (docs/decisions/datasets-reading.md), but it turns invalid
  // bytes into U+FFFD. So a text holding U+FFFD (never, in nearly every file: V8 answers at once
  // for a one-byte string) is decoded again, strictly.
  let text: string;
  try {
    text = bytes.toString("utf8");
  } catch (error) {
    if (isTooLarge(error)) throw tooLargeError(path, size, fix, error);
    throw error;
  }
  if (text.length > textLimit.maxChars) throw tooLargeError(path, size, fix);
  if (text.indexOf("\uFFFD") !== -1) text = decodeUtf8(bytes, path);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The size of a file, for a message (`"unknown size"` when it cannot be had). */
async function sizeOf(path: string): Promise<string> {
  try {
    return `${count((await stat(path)).size)} bytes`;
  } catch {
    return "unknown size";
  }
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
