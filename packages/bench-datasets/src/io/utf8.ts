import { TextDecoder } from "node:util";
import { firstInvalidUtf8 } from "@fastrag/bench-core/internal/base";

/** Decodes UTF-8, throwing a TypeError on invalid bytes; keeps a BOM (callers drop it). */
export const strictUtf8: TextDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The length of the longest prefix of `bytes` that does not end inside a multi-byte sequence, so
 * a stream can be decoded chunk by chunk: the rest (at most 3 bytes) belongs to the next chunk.
 */
function completePrefixLength(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let back = 1; back <= 4 && back <= n; back++) {
    const b = bytes[n - back] as number;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}

/** One decoded piece of a UTF-8 byte stream (see {@link utf8Pieces}). */
export interface Utf8Piece {
  /** The text: the whole chunk, or the part before the first invalid byte. */
  readonly text: string;
  /** From the first invalid byte on, or the cut sequence the stream ended in; else undefined. */
  readonly invalid: Buffer | undefined;
  /** The offset in the stream where `invalid` starts (for a valid piece, where its bytes end). */
  readonly byte: number;
}

/**
 * Decodes a stream of UTF-8 chunks strictly, piece by piece, never as one string: a multi-byte
 * sequence cut by a chunk boundary is carried into the next chunk, and the BOM is dropped. The
 * last piece yielded is the one with `invalid` set, when the bytes are not valid UTF-8 (the
 * caller reports it, with its own line and column, after using the text before it).
 */
export async function* utf8Pieces(chunks: AsyncIterable<Buffer>): AsyncGenerator<Utf8Piece> {
  let carry: Buffer | undefined;
  let offset = 0;
  let started = false;
  for await (const chunk of chunks) {
    const bytes = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
    const end = completePrefixLength(bytes);
    carry = end === bytes.length ? undefined : Buffer.from(bytes.subarray(end));
    const body = end === bytes.length ? bytes : bytes.subarray(0, end);
    let bad = -1;
    let text: string;
    try {
      text = strictUtf8.decode(body);
    } catch {
      bad = firstInvalidUtf8(body);
      text = body.toString("utf8", 0, bad);
    }
    // Dropped once decoded: the BOM's three bytes may come in chunks of their own (a pipe).
    if (!started && text.length > 0) {
      started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (bad !== -1) {
      yield { text, invalid: body.subarray(bad), byte: offset + bad };
      return;
    }
    yield { text, invalid: undefined, byte: offset + end };
    offset += end;
  }
  // The stream ends inside a multi-byte sequence.
  if (carry !== undefined) yield { text: "", invalid: carry, byte: offset };
}
