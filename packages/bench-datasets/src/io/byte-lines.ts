import { isAscii, isUtf8 } from "node:buffer";
import { type FileHandle, open } from "node:fs/promises";
import { ConfigurationError } from "@fastrag/bench-core";
import { fileError } from "./files.js";
import { gunzipReader, isGzip, type ReadInto } from "./gzip.js";
import { firstInvalidUtf8, hasBom, invalidUtf8 } from "./utf8.js";

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

const CHUNK = 1 << 20;

/**
 * Feeds a UTF-8 text file to `parser` chunk by chunk through one reused buffer (a BOM is
 * skipped). Fresh memory is slow to touch, so the file is never held whole.
 *
 * @throws ConfigurationError when the file cannot be read or is not valid UTF-8 (naming line,
 *   column and byte), or whatever `parser` throws.
 */
export async function feedFile(path: string, parser: ByteLineParser): Promise<void> {
  let handle: FileHandle;
  let size: number;
  try {
    handle = await open(path, "r");
  } catch (error) {
    throw fileError(path, error);
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    size = info.size;
  } catch (error) {
    await handle.close().catch(() => {});
    throw fileError(path, error);
  }
  let read: ReadInto = async (buffer, offset, length) =>
    (await handle.read(buffer, offset, length, null)).bytesRead;
  let closeGunzip: (() => void) | undefined;
  try {
    // A pipe or a special file reports size 0: read it in full chunks.
    let buffer = Buffer.allocUnsafe(size > 0 ? Math.min(CHUNK, Math.max(size, 64)) : CHUNK);
    let filled = 0;
    let first = true;
    // Where buffer[0] is in the text (decompressed, for gzip), for messages.
    let offset = 0;
    for (;;) {
      if (filled === buffer.length) {
        // One line longer than the buffer: grow it.
        const bigger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(bigger, 0, 0, filled);
        buffer = bigger;
      }
      let count: number;
      try {
        count = await read(buffer, filled, buffer.length - filled);
      } catch (error) {
        if (ConfigurationError.isInstance(error)) throw error;
        throw fileError(path, error);
      }
      const last = count === 0;
      const end = filled + count;
      let from = 0;
      if (first && (end >= 3 || last)) {
        if (closeGunzip === undefined && isGzip(buffer, end)) {
          // Compressed: from here on, the bytes read are the decompressed ones, from the start.
          const gunzip = gunzipReader(Buffer.from(buffer.subarray(0, end)), read, path, CHUNK);
          read = gunzip.read;
          closeGunzip = gunzip.close;
          // Sized for the compressed file: the text may be far larger.
          if (buffer.length < CHUNK) buffer = Buffer.allocUnsafe(CHUNK);
          filled = 0;
          continue;
        }
        first = false;
        // The size planned for is the file's; a compressed file's text is larger (unknown).
        parser.reserve(closeGunzip === undefined ? size : 0);
        if (end >= 3 && hasBom(buffer)) from = 3;
      } else if (first) {
        filled = end;
        continue;
      }
      // Complete lines end at the last "\n"; the text before it cannot end inside a UTF-8
      // sequence, so it is validated alone and the rest waits for the next chunk. Only the bytes
      // just read can hold a new "\n" (those kept from before have none): searching the whole
      // buffer made a long line cost a scan of all of it per read, quadratic in its length.
      const stop = last ? end : lastNewline(buffer, filled, end);
      if (stop > from) {
        const view = buffer.subarray(from, stop);
        if (!isAscii(view) && !isUtf8(view)) {
          // The view starts a line, and the parser has read every line before it. (Found here,
          // not by reading the file again: a pipe cannot be read twice.)
          throw invalidUtf8(path, view, firstInvalidUtf8(view), {
            byte: offset + from,
            line: parser.linesRead + 1,
            column: 1,
          });
        }
      }
      const consumed = stop > from ? parser.feed(buffer, from, stop, last) : from;
      if (last) break;
      // Nothing consumed (a line longer than what was read): the bytes stay where they are.
      if (consumed > 0) buffer.copy(buffer, 0, consumed, end);
      filled = end - consumed;
      offset += consumed;
    }
  } finally {
    closeGunzip?.();
    await handle.close().catch(() => {});
  }
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

// Buffer's own slicers, which `toString(encoding, start, end)` calls after checking its
// arguments (why: docs/decisions/datasets-reading.md).
interface Slicers {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
}
const hasSlicers =
  typeof (Buffer.prototype as unknown as Partial<Slicers>).latin1Slice === "function" &&
  typeof (Buffer.prototype as unknown as Partial<Slicers>).utf8Slice === "function";

/** Bytes [start, end) as a string: Latin-1 is the fast path for ASCII, else UTF-8. */
export function decodeField(bytes: Buffer, start: number, end: number): string {
  let ascii = true;
  for (let i = start; i < end; i++) {
    if ((bytes[i] as number) >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (!hasSlicers) return bytes.toString(ascii ? "latin1" : "utf8", start, end);
  const slicers = bytes as unknown as Slicers;
  return ascii ? slicers.latin1Slice(start, end) : slicers.utf8Slice(start, end);
}

/**
 * Reads a decimal number (`[+-]digits[.digits]`) straight from bytes, returning exactly what
 * `Number()` returns for that text, or NaN when the text is not in that simple form (an
 * exponent, hex, too many digits): callers then fall back to `Number()` on the decoded text.
 *
 * Exact because the digits form an integer m ≤ 2^53 and 10^f (f ≤ 22) is exact in binary, so
 * m / 10^f is the correctly rounded quotient, i.e. the correctly rounded decimal.
 */
export function parseSimpleDecimal(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  let negative = false;
  const sign = bytes[i];
  if (sign === 45 || sign === 43) {
    negative = sign === 45;
    i++;
  }
  let m = 0;
  let digits = 0;
  let fraction = -1;
  for (; i < end; i++) {
    const c = bytes[i] as number;
    if (c >= 48 && c <= 57) {
      if (m >= 900719925474099) return Number.NaN; // m * 10 + 9 could pass 2^53
      m = m * 10 + (c - 48);
      digits++;
      if (fraction >= 0) fraction++;
    } else if (c === 46 && fraction < 0) {
      fraction = 0;
    } else {
      return Number.NaN;
    }
  }
  if (digits === 0 || fraction > 22) return Number.NaN;
  const value = fraction > 0 ? m / (POWERS_OF_TEN[fraction] as number) : m;
  return negative ? -value : value;
}

const POWERS_OF_TEN: Float64Array = /* @__PURE__ */ (() => {
  const out = new Float64Array(23);
  for (let i = 0; i < 23; i++) out[i] = Number(`1e${i}`);
  return out;
})();

/**
 * Interns byte strings: equal bytes get one id and one JS string, created once. Runs and qrels
 * repeat docnos across queries, so this saves a string (and its GC) per line.
 */
export class ByteInterner {
  /** The string of each id. */
  readonly strings: string[] = [];
  private slots = new Int32Array(1 << 12);
  private hashes = new Int32Array(1 << 10);
  private offsets = new Int32Array((1 << 10) + 1);
  private pool = new Uint8Array(1 << 14);

  /** How many distinct strings were interned. */
  get size(): number {
    return this.strings.length;
  }

  /** The id of bytes [start, end), interning them on first sight. */
  intern(bytes: Buffer, start: number, end: number): number {
    let hash = -2128831035;
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ (bytes[i] as number), 16777619);
    const slots = this.slots;
    const mask = slots.length - 1;
    const length = end - start;
    let slot = hash & mask;
    for (;;) {
      const entry = slots[slot] as number;
      if (entry === 0) break;
      const id = entry - 1;
      if (this.hashes[id] === hash) {
        const at = this.offsets[id] as number;
        if ((this.offsets[id + 1] as number) - at === length) {
          const pool = this.pool;
          let k = 0;
          while (k < length && pool[at + k] === bytes[start + k]) k++;
          if (k === length) return id;
        }
      }
      slot = (slot + 1) & mask;
    }
    return this.add(bytes, start, end, hash, slot);
  }

  private add(bytes: Buffer, start: number, end: number, hash: number, slot: number): number {
    const id = this.strings.length;
    this.strings.push(decodeField(bytes, start, end));
    if (id + 1 >= this.hashes.length) {
      this.hashes = grow(this.hashes, this.hashes.length * 2);
      this.offsets = grow(this.offsets, this.offsets.length * 2);
    }
    const at = this.offsets[id] as number;
    const stop = at + (end - start);
    if (stop > this.pool.length) {
      const pool = new Uint8Array(Math.max(this.pool.length * 2, stop));
      pool.set(this.pool.subarray(0, at));
      this.pool = pool;
    }
    const pool = this.pool;
    for (let i = start; i < end; i++) pool[at + i - start] = bytes[i] as number;
    this.offsets[id + 1] = stop;
    this.hashes[id] = hash;
    this.slots[slot] = id + 1;
    if ((id + 1) * 2 > this.slots.length) this.rehash();
    return id;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    const n = this.strings.length;
    for (let id = 0; id < n; id++) {
      let slot = (this.hashes[id] as number) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.slots = slots;
  }
}

/** A copy of `array` with room for `length` items. */
export function grow<T extends Int32Array | Float64Array>(array: T, length: number): T {
  const out = new (array.constructor as new (n: number) => T)(length);
  out.set(array);
  return out;
}
