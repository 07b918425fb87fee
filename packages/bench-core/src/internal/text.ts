import { Buffer, isAscii, isUtf8 } from "node:buffer";
import { ConfigurationError } from "../errors.js";

/**
 * Decodes UTF-8 strictly: invalid bytes are a ConfigurationError naming the line and byte, not
 * silently replaced by U+FFFD (which would corrupt ids and questions without a word). A leading
 * BOM is dropped.
 */
export function decodeUtf8(buf: Uint8Array, source: string): string {
  // ASCII-only bytes are the same text read as Latin-1, which Node decodes far faster than
  // UTF-8; other bytes go through node:buffer's validator, not a fatal TextDecoder (measured:
  // docs/decisions/core-hot-paths.md).
  const bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (isAscii(bytes)) return bytes.toString("latin1");
  if (isUtf8(buf)) {
    const text = bytes.toString("utf8");
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
  const start = hasBom(bytes) ? 3 : 0;
  const body = bytes.subarray(start);
  throw invalidUtf8(source, body, firstInvalidUtf8(body), { byte: start, line: 1, column: 1 });
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
 * The error for invalid UTF-8 at `offset` of `bytes` (which begins at `origin` in the file
 * `source`), of kind `invalid-input` with its `path`, `line` and `column`:
 * `<source>: line L, column C: invalid UTF-8 at byte B (found 0x..); expected a UTF-8 text file`.
 * Every reader of text files words it so, whole or streamed.
 */
export function invalidUtf8(
  source: string,
  bytes: Uint8Array,
  offset: number,
  origin: Utf8Origin,
): ConfigurationError {
  let line = origin.line;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  // Everything before `offset` is valid, so it decodes to the characters that precede the bad byte.
  const before = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(
    "utf8",
    lineStart,
    offset,
  ).length;
  const column = (line === origin.line ? origin.column : 1) + before;
  // The bad byte and the continuation bytes that follow it: the sequence that does not decode.
  let stop = offset + 1;
  while (stop < bytes.length && stop < offset + 4 && ((bytes[stop] as number) & 0xc0) === 0x80)
    stop++;
  let found = "";
  for (let i = offset; i < stop; i++) {
    found += `${i === offset ? "" : " "}0x${(bytes[i] as number).toString(16).padStart(2, "0")}`;
  }
  return new ConfigurationError(
    `${source}: line ${line}, column ${column}: invalid UTF-8 at byte ${origin.byte + offset} (found ${found}); expected a UTF-8 text file`,
    { kind: "invalid-input", path: source, line, column },
  );
}

/**
 * Offset of the first byte of `buf` that does not start or continue a valid UTF-8 sequence
 * (overlong forms, surrogates and code points above U+10FFFF included); `buf.length` when all are
 * valid. A sequence cut off by the end of `buf` is invalid. Pure; used by every loader to name
 * where a file stops being UTF-8.
 */
export function firstInvalidUtf8(buf: Uint8Array): number {
  let i = 0;
  while (i < buf.length) {
    const b = buf[i] as number;
    let need: number;
    let min: number;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) {
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
    if (i + need >= buf.length) return i;
    let cp = b & (0x3f >> need);
    for (let j = 1; j <= need; j++) {
      const c = buf[i + j];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return buf.length;
}

/** The first `max` UTF-16 units of a text and "…", never cutting a surrogate pair in two. */
export function shortText(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}
