import { constants as bufferConstants } from "node:buffer";
import { readFile, stat } from "node:fs/promises";
import { decodeUtf8 } from "@fastrag/bench-core/internal/base";
import {
  type ByteLineParser,
  CHUNK,
  feedReads,
  type OpenFile,
  openFile,
  readBuffer,
} from "./byte-lines.js";
import { fileError } from "./file-error.js";
import { gunzipBytes, gunzipReader, isGzip } from "./gzip.js";
import { count, isTooLarge, textLimit, tooLargeError } from "./text-limit.js";

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
  // Node's own UTF-8 decoding is the fastest (docs/decisions/datasets-reading.md), but it turns
  // invalid bytes into U+FFFD. So a text holding U+FFFD (never, in nearly every file: V8 answers
  // at once for a one-byte string) is decoded again, strictly.
  let text: string;
  try {
    text = bytes.toString("utf8");
  } catch (error) {
    if (isTooLarge(error)) throw tooLargeError(path, size, fix, error);
    throw error;
  }
  if (text.length > textLimit.maxChars) throw tooLargeError(path, size, fix);
  if (text.indexOf("\uFFFD") !== -1) return decodeUtf8(bytes, path);
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

/** A file's bytes, decompressed when it is gzip. */
export async function readFileBytes(path: string): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw fileError(path, error);
  }
  return isGzip(bytes) ? gunzipBytes(bytes, path) : bytes;
}

/** True when `path` is a directory; a missing path is a ConfigurationError. */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch (error) {
    throw fileError(path, error);
  }
}

/**
 * Feeds a UTF-8 text file to `parser` in whole lines (see `feedReads`), decompressed as it is
 * read when it is gzip.
 *
 * @throws ConfigurationError when the file cannot be read, is not valid gzip or not valid UTF-8
 *   (naming line, column and byte), or whatever `parser` throws.
 */
export async function feedFile(path: string, parser: ByteLineParser): Promise<void> {
  const file = await openFile(path);
  let closeGunzip: (() => void) | undefined;
  try {
    const buffer = readBuffer(file.size);
    const filled = await readHead(file, buffer, path);
    if (isGzip(buffer, filled)) {
      // Compressed: the bytes fed are the decompressed ones, whose size is not known.
      const gunzip = gunzipReader(Buffer.from(buffer.subarray(0, filled)), file.read, path, CHUNK);
      closeGunzip = gunzip.close;
      await feedReads(gunzip.read, parser, { path, size: 0 });
    } else {
      await feedReads(file.read, parser, { path, size: file.size, head: { buffer, filled } });
    }
  } finally {
    closeGunzip?.();
    await file.close();
  }
}

/**
 * Reads the first bytes of a file into `head`, enough to tell gzip (all of it when it is that
 * short); returns how many.
 */
async function readHead(file: OpenFile, head: Buffer, path: string): Promise<number> {
  let filled = 0;
  // A pipe may hand over one byte at a time.
  while (filled < 2) {
    let count: number;
    try {
      count = await file.read(head, filled, head.length - filled);
    } catch (error) {
      throw fileError(path, error);
    }
    if (count === 0) break;
    filled += count;
  }
  return filled;
}
