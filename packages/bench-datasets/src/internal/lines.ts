import { createReadStream } from "node:fs";
import { fileError } from "./files.js";
import { maybeGunzip } from "./gzip.js";
import { invalidUtf8, utf8Pieces } from "./utf8.js";

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
  try {
    for await (const piece of utf8Pieces(maybeGunzip(stream as AsyncIterable<Buffer>, path))) {
      const text = pending.length === 0 ? piece.text : pending + piece.text;
      let start = 0;
      let newline = text.indexOf("\n", start);
      while (newline !== -1) {
        const stop = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
        onLine(text.slice(start, stop), ++lineNumber);
        start = newline + 1;
        newline = text.indexOf("\n", start);
      }
      pending = start === 0 ? text : text.slice(start);
      if (piece.invalid !== undefined) {
        // Up to the bad byte, lines went out as usual: an earlier problem is reported first.
        // `pending` now holds the bad line up to the bad byte.
        throw invalidUtf8(path, piece.invalid, 0, {
          byte: piece.byte,
          line: lineNumber + 1,
          column: pending.length + 1,
        });
      }
    }
  } catch (error) {
    stream.destroy();
    if ((error as { code?: unknown } | null)?.code !== undefined) throw fileError(path, error);
    throw error;
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
