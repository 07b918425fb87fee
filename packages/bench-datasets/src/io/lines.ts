import { createReadStream } from "node:fs";
import { invalidUtf8 } from "@fastrag/bench-core/internal/base";
import { fileError } from "./file-error.js";
import { maybeGunzip } from "./gzip.js";
import { utf8Pieces } from "./utf8.js";

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
  // The line being read, in the pieces it came in: joined once, when its "\n" arrives, so a long
  // line costs linear time (docs/decisions/datasets-reading.md).
  const parts: string[] = [];
  let partsLength = 0;
  let lineNumber = 0;
  const emit = (line: string) => {
    onLine(line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line, ++lineNumber);
  };
  try {
    for await (const piece of utf8Pieces(maybeGunzip(stream as AsyncIterable<Buffer>, path))) {
      const text = piece.text;
      let start = 0;
      let newline = text.indexOf("\n");
      while (newline !== -1) {
        if (parts.length === 0) emit(text.slice(start, newline));
        else {
          parts.push(text.slice(start, newline));
          const line = parts.join("");
          parts.length = 0;
          partsLength = 0;
          emit(line);
        }
        start = newline + 1;
        newline = text.indexOf("\n", start);
      }
      if (start < text.length) {
        parts.push(start === 0 ? text : text.slice(start));
        partsLength += text.length - start;
      }
      if (piece.invalid !== undefined) {
        // Up to the bad byte, lines went out as usual: an earlier problem is reported first.
        // `parts` now holds the bad line up to the bad byte.
        throw invalidUtf8(path, piece.invalid, 0, {
          byte: piece.byte,
          line: lineNumber + 1,
          column: partsLength + 1,
        });
      }
    }
  } catch (error) {
    stream.destroy();
    if ((error as { code?: unknown } | null)?.code !== undefined) throw fileError(path, error);
    throw error;
  }
  if (parts.length > 0) emit(parts.join(""));
}

/** True for a line holding only whitespace. */
export function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}
