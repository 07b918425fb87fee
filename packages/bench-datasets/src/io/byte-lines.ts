import { isAscii, isUtf8 } from "node:buffer";
import { type FileHandle, open } from "node:fs/promises";
import {
  ConfigurationError,
  firstInvalidUtf8,
  hasBom,
  invalidUtf8,
} from "@fastrag/bench-core/internal/base";
import { decodeField } from "./byte-strings.js";
import { fileError } from "./file-error.js";

/**
 * A parser of whitespace-separated lines fed as raw UTF-8 bytes. Reading bytes and keeping only
 * what is needed (an interned id, a number) avoids decoding a whole 10^6-line file into one
 * string and slicing a string per field: on large runs those allocations were most of the cost.
 */
export interface ByteLineParser {
  /** Called once before any bytes, with the input's size in bytes (for capacity planning). */
  reserve(bytes: number): void;
  /** How many lines `feed` has consumed so far. */
  readonly linesRead: number;
  /**
   * Parses the complete lines of `bytes[from, end)` and returns where the first incomplete line
   * starts (`end` when none is). With `last`, the final line needs no "\n" and all is consumed.
   */
  feed(bytes: Buffer, from: number, end: number, last: boolean): number;
}

/** Reads up to `length` bytes into `buffer` at `offset`; 0 at the end of the input. */
export type ReadInto = (buffer: Buffer, offset: number, length: number) => Promise<number>;

/** How much of a file is read at a time. */
export const CHUNK: number = 1 << 20;

/** A file open for reading: its reader, its size (0 when not known: a pipe), and its closing. */
export interface OpenFile {
  readonly read: ReadInto;
  readonly size: number;
  close(): Promise<void>;
}

/**
 * Opens `path` for reading.
 *
 * @throws ConfigurationError (`unreadable-file`) for a missing file, a directory, or one that
 *   cannot be opened.
 */
export async function openFile(path: string): Promise<OpenFile> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    throw fileError(path, error);
  }
  const close = () => handle.close().catch(() => {});
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    const read: ReadInto = async (buffer, offset, length) =>
      (await handle.read(buffer, offset, length, null)).bytesRead;
    return { read, size: info.size, close };
  } catch (error) {
    await close();
    throw fileError(path, error);
  }
}

/**
 * Feeds a UTF-8 text file to `parser` as it is (gzip is not looked for: `feedFile` in files.ts
 * does that), as {@link feedReads} feeds it.
 *
 * @throws ConfigurationError when the file cannot be read or is not valid UTF-8 (naming line,
 *   column and byte), or whatever `parser` throws.
 */
export async function feedPlainFile(path: string, parser: ByteLineParser): Promise<void> {
  const file = await openFile(path);
  try {
    await feedReads(file.read, parser, { path, size: file.size });
  } finally {
    await file.close();
  }
}

/** What {@link feedReads} reads: the file it names in messages, and what is known of it. */
export interface FedInput {
  /** The file, as messages name it. */
  readonly path: string;
  /** Its size in bytes, for `parser.reserve` and the buffer's size; 0 when not known. */
  readonly size: number;
  /** A buffer to read into whose first `filled` bytes were already read from the input's start. */
  readonly head?: { readonly buffer: Buffer; readonly filled: number };
}

/**
 * Feeds what `read` gives to `parser` chunk by chunk through one reused buffer, in whole lines (a
 * BOM is skipped). Fresh memory is slow to touch, so the input is never held whole.
 *
 * @throws ConfigurationError when a read fails (`unreadable-file`) or the bytes are not valid
 *   UTF-8 (naming line, column and byte), or whatever `parser` throws.
 */
export async function feedReads(
  read: ReadInto,
  parser: ByteLineParser,
  input: FedInput,
): Promise<void> {
  const { path, size } = input;
  let buffer = input.head?.buffer ?? readBuffer(size);
  let filled = input.head?.filled ?? 0;
  parser.reserve(size);
  let started = false;
  // Where buffer[0] is in the text, for messages.
  let offset = 0;
  for (;;) {
    // One line longer than the buffer: grow it.
    if (filled === buffer.length) buffer = enlarged(buffer, filled);
    const count = await readSome(read, buffer, filled, path);
    const last = count === 0;
    const end = filled + count;
    if (!started && end < 3 && !last) {
      // Too few bytes yet to tell a BOM (a pipe may hand over one byte at a time).
      filled = end;
      continue;
    }
    const from = !started && end >= 3 && hasBom(buffer) ? 3 : 0;
    started = true;
    const consumed = feedLines(parser, buffer, { from, filled, end, last, offset, path });
    if (last) return;
    // Nothing consumed (a line longer than what was read): the bytes stay where they are.
    if (consumed > 0) buffer.copy(buffer, 0, consumed, end);
    filled = end - consumed;
    offset += consumed;
  }
}

/** A buffer to read a file of `size` bytes through: a pipe or a special file reports 0. */
export function readBuffer(size: number): Buffer {
  return Buffer.allocUnsafe(size > 0 ? Math.min(CHUNK, Math.max(size, 64)) : CHUNK);
}

/** Reads into `buffer` after its first `filled` bytes; a failed read is a ConfigurationError. */
async function readSome(read: ReadInto, buffer: Buffer, filled: number, path: string) {
  try {
    return await read(buffer, filled, buffer.length - filled);
  } catch (error) {
    if (ConfigurationError.isInstance(error)) throw error;
    throw fileError(path, error);
  }
}

/** A buffer twice as large, holding the first `filled` bytes of `buffer`. */
function enlarged(buffer: Buffer, filled: number): Buffer {
  const bigger = Buffer.allocUnsafe(buffer.length * 2);
  buffer.copy(bigger, 0, 0, filled);
  return bigger;
}

/** Where a chunk's bytes are in the buffer and in the input (see {@link feedLines}). */
interface Chunk {
  /** Where the text starts (past a BOM). */
  readonly from: number;
  /** The bytes kept from before this read (they hold no "\n" the parser has not seen). */
  readonly filled: number;
  readonly end: number;
  /** True at the end of the input: the last line needs no "\n". */
  readonly last: boolean;
  /** Where buffer[0] is in the input. */
  readonly offset: number;
  readonly path: string;
}

/**
 * Validates and feeds the complete lines of `buffer[from, end)` to `parser`; returns where the
 * bytes not consumed start. Complete lines end at the last "\n"; the text before it cannot end
 * inside a UTF-8 sequence, so it is validated alone and the rest waits for the next chunk. Only
 * the bytes just read can hold a new "\n": searching the whole buffer made a long line cost a
 * scan of all of it per read, quadratic in its length.
 */
function feedLines(parser: ByteLineParser, buffer: Buffer, chunk: Chunk): number {
  const { from, end, last } = chunk;
  const stop = last ? end : lastNewline(buffer, chunk.filled, end);
  if (stop <= from) return from;
  const view = buffer.subarray(from, stop);
  if (!isAscii(view) && !isUtf8(view)) {
    // The view starts a line, and the parser has read every line before it. (Found here, not by
    // reading the file again: a pipe cannot be read twice.)
    throw invalidUtf8(chunk.path, view, firstInvalidUtf8(view), {
      byte: chunk.offset + from,
      line: parser.linesRead + 1,
      column: 1,
    });
  }
  return parser.feed(buffer, from, stop, last);
}

/** Just past the last "\n" in `buffer[from, end)`, or 0 when there is none. */
function lastNewline(buffer: Buffer, from: number, end: number): number {
  if (end <= from) return 0;
  const at = buffer.subarray(from, end).lastIndexOf(10);
  return at === -1 ? 0 : from + at + 1;
}

/** Feeds text already in memory to `parser`, as {@link feedFile} feeds a file. */
export function feedText(text: string, parser: ByteLineParser): void {
  const bytes = Buffer.from(text, "utf8");
  parser.reserve(bytes.length);
  parser.feed(bytes, 0, bytes.length, true);
}

/** Whitespace as trec_eval's scanner sees it: space, tab, CR, vertical tab, form feed. */
function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 11 || c === 12;
}

/**
 * Splits one line of bytes into whitespace-separated fields, recording the byte range of the
 * first `max + 1` of them (one more than needed, to tell "too many" apart).
 */
export class FieldSplitter {
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  /** Fields on the line (all of them, not only those recorded). */
  count = 0;
  private readonly limit: number;

  constructor(max: number) {
    this.limit = max + 1;
    this.starts = new Int32Array(max + 1);
    this.ends = new Int32Array(max + 1);
  }

  /**
   * Splits the line starting at `from`. Returns where the next line starts (after the "\n"), or
   * -1 when the line does not end before `end` and `last` is false.
   */
  split(bytes: Uint8Array, from: number, end: number, last: boolean): number {
    let count = 0;
    let i = from;
    const limit = this.limit;
    for (;;) {
      let c = 0;
      while (i < end) {
        c = bytes[i] as number;
        if (!isSpace(c)) break;
        i++;
      }
      if (i >= end) break;
      if (c === 10) break;
      if (count < limit) this.starts[count] = i;
      i++;
      while (i < end) {
        c = bytes[i] as number;
        if (c === 10 || isSpace(c)) break;
        i++;
      }
      if (count < limit) this.ends[count] = i;
      count++;
    }
    this.count = count;
    if (i < end) return i + 1; // at the "\n"
    return last ? end : -1;
  }

  /** Field `k` as a string (UTF-8; validated when the bytes were read). */
  text(bytes: Buffer, k: number): string {
    return decodeField(bytes, this.starts[k] as number, this.ends[k] as number);
  }
}
