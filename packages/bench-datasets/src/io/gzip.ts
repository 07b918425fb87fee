import { pipeline } from "node:stream";
import { constants, createGunzip, gunzip, gunzipSync } from "node:zlib";
import { ConfigurationError } from "@fastrag/bench-core/internal/base";
import { inputError, messageOf } from "../records/problems.js";
import type { ReadInto } from "./byte-lines.js";
import { fileError } from "./file-error.js";

// Every reader here takes gzip-compressed input as it takes plain text: TREC runs and qrels, MS
// MARCO and BEIR files are often shipped as `.gz`. A file is gzip when its first two bytes are
// gzip's magic number (RFC 1952), whatever its name: no text file starts with them, since 0x8b
// never starts a UTF-8 character. Concatenated gzip members (`cat a.gz b.gz`) read as one text.

/** True when `bytes` (its first `length` bytes) starts with gzip's magic number, 1f 8b. */
export function isGzip(bytes: Uint8Array, length: number = bytes.length): boolean {
  return length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** The path without a trailing `.gz`, to choose a reader by the suffix before it. */
export function withoutGz(path: string): string {
  return /\.gz$/i.test(path) ? path.slice(0, -3) : path;
}

/** The error for gzip data that cannot be decompressed (corrupt, or cut short). */
function gzipError(path: string, error: unknown): ConfigurationError {
  const code = (error as { code?: unknown } | null)?.code;
  const why = code === "Z_BUF_ERROR" ? "the compressed data ends too early" : messageOf(error);
  return inputError(
    path,
    `cannot decompress (gzip): ${why}; is the file complete? (gzip -t checks it)`,
    { path, cause: error },
  );
}

/** Decompresses a whole gzip file already in memory. */
export function gunzipBytes(bytes: Buffer, path: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    gunzip(bytes, (error, out) => (error ? reject(gzipError(path, error)) : resolve(out)));
  });
}

/**
 * As much of the text as the first bytes of a gzip file give, for sniffing a format; an empty
 * buffer when they cannot be decompressed.
 */
export function gunzipHead(bytes: Buffer): Buffer {
  try {
    return gunzipSync(bytes, { finishFlush: constants.Z_SYNC_FLUSH });
  } catch {
    return Buffer.alloc(0);
  }
}

/**
 * Decompresses a gzip stream whose first bytes are `head` and whose rest comes from `rest`: the
 * decompressed bytes are read out as `rest` reads raw ones. `close` stops it early.
 */
export function gunzipReader(
  head: Buffer,
  rest: ReadInto,
  path: string,
  chunk: number,
): { read: ReadInto; close: () => void } {
  async function* compressed(): AsyncGenerator<Buffer> {
    yield head;
    for (;;) {
      const buffer = Buffer.allocUnsafe(chunk);
      const n = await rest(buffer, 0, chunk);
      if (n === 0) return;
      yield n === chunk ? buffer : buffer.subarray(0, n);
    }
  }
  const out = gunzipStream(compressed(), path);
  const chunks = out[Symbol.asyncIterator]();
  let pending: Buffer = Buffer.alloc(0);
  return {
    async read(buffer, offset, length) {
      while (pending.length === 0) {
        const next = await chunks.next();
        if (next.done) return 0;
        pending = next.value;
      }
      const n = Math.min(length, pending.length);
      pending.copy(buffer, offset, 0, n);
      pending = pending.subarray(n);
      return n;
    },
    close() {
      void chunks.return?.(undefined);
    },
  };
}

/**
 * The chunks of `source`, decompressed when they begin with gzip's magic number and passed
 * through as they are otherwise.
 */
export async function* maybeGunzip(
  source: AsyncIterable<Buffer>,
  path: string,
): AsyncGenerator<Buffer> {
  const input = source[Symbol.asyncIterator]();
  let head: Buffer = Buffer.alloc(0);
  // Enough bytes to tell (a pipe may hand over one byte at a time).
  while (head.length < 2) {
    const next = await input.next();
    if (next.done) break;
    head = head.length === 0 ? next.value : Buffer.concat([head, next.value]);
  }
  async function* all(): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    for (;;) {
      const next = await input.next();
      if (next.done) return;
      yield next.value;
    }
  }
  if (isGzip(head)) yield* gunzipStream(all(), path);
  else yield* all();
}

/** Decompresses gzip chunks as they come; a corrupt or truncated input is a ConfigurationError. */
async function* gunzipStream(source: AsyncIterable<Buffer>, path: string): AsyncGenerator<Buffer> {
  const gunzip = createGunzip();
  // pipeline forwards an error of the source to the gunzip stream, whose iteration then throws it.
  pipeline(source, gunzip, () => {});
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) yield chunk;
  } catch (error) {
    if (ConfigurationError.isInstance(error)) throw error;
    const code = (error as { code?: unknown } | null)?.code;
    // A read error of the file itself (EIO…) is reported as one, not as bad gzip data.
    if (typeof code === "string" && !code.startsWith("Z_")) throw fileError(path, error);
    throw gzipError(path, error);
  } finally {
    gunzip.destroy();
  }
}
