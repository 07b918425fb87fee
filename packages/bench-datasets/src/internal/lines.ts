import { createReadStream } from "node:fs";
import { fileError } from "./files.js";

/**
 * Streams a UTF-8 text file line by line, without holding it as one string. Calls `onLine` with
 * each line (without its `\n` or `\r\n`) and its 1-based number; the BOM is dropped.
 *
 * @throws ConfigurationError when the file cannot be opened or read.
 */
export async function forEachLine(
  path: string,
  onLine: (line: string, lineNumber: number) => void,
): Promise<void> {
  const stream = createReadStream(path, { encoding: "utf8", highWaterMark: 1 << 20 });
  let pending = "";
  let lineNumber = 0;
  let first = true;
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      let text = pending.length === 0 ? chunk : pending + chunk;
      if (first) {
        first = false;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      let start = 0;
      let newline = text.indexOf("\n", start);
      while (newline !== -1) {
        const end = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
        onLine(text.slice(start, end), ++lineNumber);
        start = newline + 1;
        newline = text.indexOf("\n", start);
      }
      pending = start === 0 ? text : text.slice(start);
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
