import { type FileHandle, open } from "node:fs/promises";
import { ConfigurationError } from "@fastrag/bench-core/internal/base";
import { feedPlainFile } from "@fastrag/bench-datasets/internal";

// The byte-level reading of `eval`'s columnar path (see eval-columns.ts): files fed in reused
// 1 MiB chunks by the datasets package's `feedPlainFile` (the loop its TREC loaders read with),
// lines split into whitespace-separated fields as trec_eval's scanner splits them, byte strings
// hashed and compared without being decoded (`@fastrag/bench-datasets/internal`).

/**
 * Thrown by the columnar path where it leaves the evaluation to the record path (the datasets
 * package's loaders and the Benchmark runner): on anything that path reports as an error (it then
 * says what is wrong, in its own words), and on inputs the columnar path does not read itself
 * (gzip, a non-contiguous run). The record path computes the same numbers, only slower.
 */
export class HandOver extends Error {
  constructor(reason: string) {
    super(`eval: handed over to the record path: ${reason}`);
  }
}

/** A parser of whole lines of bytes, as {@link readLines} feeds it. */
export interface LineFeeder {
  /**
   * Parses the lines of `bytes[from, end)`: whole lines, each ending in "\n" (a last line
   * without one is given one), so a parser scans to a newline without checking `end`.
   */
  feed(bytes: Buffer, from: number, end: number): void;
}

/**
 * The size of `path` when it is a regular file that starts as plain text, not gzip (the only input
 * the columnar path reads), else -1. (A pipe can be read once, so it is left to the record path
 * from the start; so is a gzip file, which that path decompresses.) -1 for anything that cannot be
 * opened: the record path reports that.
 */
export async function plainFileSize(path: string): Promise<number> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, "r");
    const info = await handle.stat();
    if (!info.isFile()) return -1;
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    // gzip's magic number, 1f 8b.
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b ? -1 : info.size;
  } catch {
    return -1;
  } finally {
    await handle?.close().catch(() => {});
  }
}

/**
 * Feeds a UTF-8 text file to `parser` in whole lines, a BOM skipped, through `feedPlainFile`.
 * Only valid UTF-8 is fed (so that equal bytes are equal strings, and byte order is strcmp
 * order): anything `feedPlainFile` refuses (a file that cannot be read, invalid UTF-8) is a
 * {@link HandOver}, and the record path then words the error.
 */
export async function readLines(path: string, parser: LineFeeder): Promise<void> {
  try {
    await feedPlainFile(path, {
      linesRead: 0,
      reserve() {},
      feed(bytes, from, end, last) {
        if (!last || bytes[end - 1] === 10) parser.feed(bytes, from, end);
        else {
          // The last line, without its "\n": fed apart, from a copy given one, so every line
          // ends alike.
          const start = Math.max(from, bytes.lastIndexOf(10, end - 1) + 1);
          if (start > from) parser.feed(bytes, from, start);
          const line = Buffer.allocUnsafe(end - start + 1);
          bytes.copy(line, 0, start, end);
          line[end - start] = 10;
          parser.feed(line, 0, line.length);
        }
        return end;
      },
    });
  } catch (error) {
    if (ConfigurationError.isInstance(error)) throw new HandOver(error.message);
    throw error;
  }
}

/**
 * Where the whitespace starting at `i` ends: trec_eval's whitespace is space, tab, CR, vertical
 * tab and form feed (the datasets package's TREC readers split alike). Stops at "\n".
 */
export function spaceEnd(bytes: Uint8Array, i: number): number {
  let c = bytes[i] as number;
  while (c === 32 || c === 9 || c === 13 || c === 11 || c === 12) c = bytes[++i] as number;
  return i;
}

/** Where the field starting at `i` ends: at whitespace or "\n". */
export function fieldEnd(bytes: Uint8Array, i: number): number {
  let c = bytes[i] as number;
  // Bytes above the space are the common case; below it only whitespace and "\n" end a field.
  while (c > 32 || (c < 32 && c !== 10 && c !== 9 && c !== 13 && c !== 11 && c !== 12))
    c = bytes[++i] as number;
  return i;
}

/** Where the line containing `i` ends: at its "\n". */
export function lineEnd(bytes: Uint8Array, i: number): number {
  while (bytes[i] !== 10) i++;
  return i;
}

/** A number in a form other than the plain decimal one (`1e3`, `0x10`), NaN when not finite. */
export function otherNumber(bytes: Uint8Array, start: number, end: number): number {
  const value = Number(Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString());
  return Number.isFinite(value) ? value : Number.NaN;
}
