import { createReadStream } from "node:fs";
import { fileError } from "./files.js";
import { maybeGunzip } from "./gzip.js";
import { completePrefixLength, firstInvalidUtf8, invalidUtf8, strictUtf8 } from "./utf8.js";

/**
 * Streams a UTF-8 text file line by line, without holding it as one string (decompressed as it
 * is read when the file is gzip). Calls `onLine` with each line (without its `\n` or `\r\n`)
 * and its 1-based number; the BOM is dropped.
 *
 * @throws ConfigurationError when the file cannot be opened or read, or is not valid UTF-8 (naming
 *   the line, column and byte; lines before it have been passed to `onLine`).
 */
export async function forEachLine(
  path: string,
  onLine: (line: string, lineNumber: number) => void,
): Promise<void> {
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  let pending = "";
  let lineNumber = 0;
  // Whether the text's first character was looked at (for a BOM, to drop).
  let started = false;
  // Bytes of a multi-byte sequence cut by the chunk boundary, and the file offset of `bytes`.
  let carry: Buffer | undefined;
  let offset = 0;
  try {
    for await (const chunk of maybeGunzip(stream as AsyncIterable<Buffer>, path)) {
      const bytes = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
      const end = completePrefixLength(bytes);
      carry = end === bytes.length ? undefined : Buffer.from(bytes.subarray(end));
      const body = end === bytes.length ? bytes : bytes.subarray(0, end);
      let bad = -1;
      let decoded: string;
      try {
        decoded = strictUtf8.decode(body);
      } catch {
        // Up to the bad byte, lines go out as usual: an earlier problem is reported first.
        bad = firstInvalidUtf8(body);
        decoded = body.toString("utf8", 0, bad);
      }
      let text = pending.length === 0 ? decoded : pending + decoded;
      // The BOM is dropped once decoded: its three bytes may come in chunks of their own (a pipe).
      if (!started && text.length > 0) {
        started = true;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      let start = 0;
      let newline = text.indexOf("\n", start);
      while (newline !== -1) {
        const stop = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
        onLine(text.slice(start, stop), ++lineNumber);
        start = newline + 1;
        newline = text.indexOf("\n", start);
      }
      pending = start === 0 ? text : text.slice(start);
      if (bad !== -1) {
        // `pending` now holds the bad line up to the bad byte.
        throw invalidUtf8(path, body.subarray(bad), 0, {
          byte: offset + bad,
          line: lineNumber + 1,
          column: pending.length + 1,
        });
      }
      offset += end;
    }
  } catch (error) {
    stream.destroy();
    if ((error as { code?: unknown } | null)?.code !== undefined) throw fileError(path, error);
    throw error;
  }
  if (carry !== undefined) {
    // The file ends inside a multi-byte sequence.
    throw invalidUtf8(path, carry, 0, {
      byte: offset,
      line: lineNumber + 1,
      column: pending.length + 1,
    });
  }
  if (pending.length > 0) {
    onLine(
      pending.charCodeAt(pending.length - 1) === 13 ? pending.slice(0, -1) : pending,
      ++lineNumber,
    );
  }
}

/** True for a line holding only whitespace. */
export function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}
