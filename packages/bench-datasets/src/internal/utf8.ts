import { TextDecoder } from "node:util";
import { inputError } from "./problems.js";

/** Decodes UTF-8, throwing a TypeError on invalid bytes; keeps a BOM (callers drop it). */
export const strictUtf8: TextDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Decodes UTF-8 strictly. Invalid bytes are a ConfigurationError naming the line, column and byte,
 * never silently replaced by U+FFFD: a replaced byte corrupts an id or a question without a word,
 * and the sample then matches nothing. A leading BOM is kept (callers drop it).
 */
export function decodeUtf8(bytes: Buffer, source: string): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    const start = hasBom(bytes) ? 3 : 0;
    const body = bytes.subarray(start);
    throw invalidUtf8(source, body, firstInvalidUtf8(body), { byte: start, line: 1, column: 1 });
  }
}

/** True when `bytes` starts with the UTF-8 byte order mark. */
export function hasBom(bytes: Uint8Array): boolean {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/**
 * Where `bytes` begins in its file, for messages: its byte offset, and the line and column (in
 * characters) its first byte is at.
 */
export interface Utf8Origin {
  readonly byte: number;
  readonly line: number;
  readonly column: number;
}

/**
 * The error for invalid UTF-8 at `offset` of `bytes` (which begins at `origin` in the file):
 * `<source>: line L, column C: invalid UTF-8 at byte B; expected a UTF-8 text file`.
 */
export function invalidUtf8(
  source: string,
  bytes: Buffer,
  offset: number,
  origin: Utf8Origin,
): Error {
  let line = origin.line;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  // Everything before `offset` is valid, so it decodes to the characters that precede the bad byte.
  const before = bytes.toString("utf8", lineStart, offset).length;
  const column = (line === origin.line ? origin.column : 1) + before;
  // The bad byte and the continuation bytes that follow it: the sequence that does not decode.
  let stop = offset + 1;
  while (stop < bytes.length && stop < offset + 4 && ((bytes[stop] as number) & 0xc0) === 0x80)
    stop++;
  let found = "";
  for (let i = offset; i < stop; i++) {
    found += `${i === offset ? "" : " "}0x${(bytes[i] as number).toString(16).padStart(2, "0")}`;
  }
  return inputError(
    `${source}: line ${line}, column ${column}`,
    `invalid UTF-8 at byte ${origin.byte + offset} (found ${found}); expected a UTF-8 text file`,
  );
}

/**
 * Offset of the first byte of `bytes` that does not start or continue a valid UTF-8 sequence
 * (overlong forms, surrogates and code points above U+10FFFF included); `bytes.length` when all
 * are valid. A sequence cut off by the end of `bytes` is invalid.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else {
      return i;
    }
    if (i + need >= n) return i;
    let cp = b & (0x3f >> need);
    for (let j = 1; j <= need; j++) {
      const c = bytes[i + j] as number;
      if ((c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return n;
}

/**
 * The length of the longest prefix of `bytes` that does not end inside a multi-byte sequence, so
 * a stream can be decoded chunk by chunk: the rest (at most 3 bytes) belongs to the next chunk.
 */
export function completePrefixLength(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let back = 1; back <= 4 && back <= n; back++) {
    const b = bytes[n - back] as number;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}
