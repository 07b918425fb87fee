import { isAscii, isUtf8 } from "node:buffer";
import { type FileHandle, open } from "node:fs/promises";

// The byte-level reading of `eval`'s columnar path (see eval-columns.ts): files in reused 1 MiB
// chunks, lines split into whitespace-separated fields as trec_eval's scanner (and the datasets
// package's TREC readers) split them, byte strings hashed and compared without being decoded.

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
  feed(bytes: Uint8Array, from: number, end: number): void;
}

const CHUNK = 1 << 20;

/**
 * The size of `path` when it is a regular file that starts as plain text, not gzip (the only input
 * the columnar path reads), else -1. (A pipe can be read once, so it is left to the record path from the start;
 * so is a gzip file, which that path decompresses.) -1 for anything that cannot be opened:
 * the record path reports that.
 */
export async function plainFileSize(path: string): Promise<number> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, "r");
    const info = await handle.stat();
    if (!info.isFile()) return -1;
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b ? -1 : info.size;
  } catch {
    return -1;
  } finally {
    await handle?.close().catch(() => {});
  }
}

/**
 * Feeds a UTF-8 text file to `parser` chunk by chunk through one reused buffer, skipping a BOM.
 * Only valid UTF-8 is fed (so that equal bytes are equal strings, and byte order is strcmp order):
 * anything else, or a read error, is a {@link HandOver}.
 */
export async function readLines(path: string, parser: LineFeeder): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch {
    throw new HandOver(`${path} cannot be opened`);
  }
  try {
    let buffer = Buffer.allocUnsafe(CHUNK);
    let filled = 0;
    let first = true;
    for (;;) {
      if (filled === buffer.length) {
        const bigger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(bigger, 0, 0, filled);
        buffer = bigger;
      }
      let count: number;
      try {
        count = (await handle.read(buffer, filled, buffer.length - filled, null)).bytesRead;
      } catch {
        throw new HandOver(`${path} cannot be read`);
      }
      const last = count === 0;
      const end = filled + count;
      let from = 0;
      if (first) {
        if (end < 3 && !last) {
          filled = end;
          continue;
        }
        first = false;
        if (end >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf) from = 3;
      }
      let stop = last ? end : buffer.lastIndexOf(10, end - 1) + 1;
      if (stop > from) {
        const view = buffer.subarray(from, stop);
        if (!isAscii(view) && !isUtf8(view)) throw new HandOver(`${path} is not valid UTF-8`);
        if (last && buffer[stop - 1] !== 10) {
          // The last line, without its "\n": given one, so every line ends alike.
          if (stop === buffer.length) {
            const bigger = Buffer.allocUnsafe(buffer.length + 1);
            buffer.copy(bigger, 0, 0, stop);
            buffer = bigger;
          }
          buffer[stop++] = 10;
        }
        parser.feed(buffer, from, stop);
      }
      const consumed = Math.max(stop, from);
      if (last) break;
      buffer.copy(buffer, 0, consumed, end);
      filled = end - consumed;
    }
  } finally {
    await handle.close().catch(() => {});
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

/** FNV-1a over bytes [start, end). */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = -2128831035;
  for (let i = start; i < end; i++) h = Math.imul(h ^ (bytes[i] as number), 16777619);
  return h;
}

/**
 * A number read from bytes exactly as the datasets package's TREC readers read it: the plain
 * decimal form (`[+-]digits[.digits]`) straight from the bytes, which is what `Number()` returns
 * for that text; anything else through `Number()` on the text. NaN when not finite.
 */
export function readNumber(bytes: Uint8Array, start: number, end: number): number {
  const simple = simpleDecimal(bytes, start, end);
  return Number.isNaN(simple) ? otherNumber(bytes, start, end) : simple;
}

/** A number in a form other than the plain decimal one (`1e3`, `0x10`), NaN when not finite. */
export function otherNumber(bytes: Uint8Array, start: number, end: number): number {
  const value = Number(Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString());
  return Number.isFinite(value) ? value : Number.NaN;
}

/**
 * `[+-]digits[.digits]` as a number, NaN for any other form. Exact: the digits form an integer
 * m < 2^53 and 10^f (f ≤ 22) is exact in binary, so m / 10^f is the correctly rounded quotient,
 * i.e. what `Number()` returns for the text.
 */
export function simpleDecimal(bytes: Uint8Array, start: number, end: number): number {
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
      if (m >= 900719925474099) return Number.NaN;
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
 * A set of byte strings, each given an id (0, 1, …) in order of first sight, its bytes kept in a
 * pool so that later lines compare against them without decoding anything.
 */
export class ByteSet {
  private slots = new Int32Array(1 << 10);
  private hashes = new Int32Array(1 << 9);
  private offsets = new Int32Array((1 << 9) + 1);
  private pool = new Uint8Array(1 << 14);
  size = 0;

  /** The id of bytes [start, end) with FNV hash `hash`, or -1. */
  find(bytes: Uint8Array, start: number, end: number, hash: number): number {
    const slots = this.slots;
    const mask = slots.length - 1;
    let slot = hash & mask;
    for (;;) {
      const entry = slots[slot] as number;
      if (entry === 0) return -1;
      const id = entry - 1;
      if (this.hashes[id] === hash && this.equals(id, bytes, start, end)) return id;
      slot = (slot + 1) & mask;
    }
  }

  /** Adds bytes [start, end), which {@link find} did not find, and returns their id. */
  add(bytes: Uint8Array, start: number, end: number, hash: number): number {
    const id = this.size;
    if (id + 1 >= this.hashes.length) {
      this.hashes = grown(this.hashes, this.hashes.length * 2);
      this.offsets = grown(this.offsets, this.offsets.length * 2);
    }
    const at = this.offsets[id] as number;
    const stop = at + (end - start);
    if (stop > this.pool.length) {
      const pool = new Uint8Array(Math.max(this.pool.length * 2, stop));
      pool.set(this.pool.subarray(0, at));
      this.pool = pool;
    }
    copyBytes(bytes, start, end, this.pool, at);
    this.offsets[id + 1] = stop;
    this.hashes[id] = hash;
    this.size = id + 1;
    if (this.size * 2 > this.slots.length) this.rehash();
    else {
      const slots = this.slots;
      const mask = slots.length - 1;
      let slot = hash & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    return id;
  }

  /** The string of `id` (the bytes are valid UTF-8). */
  text(id: number): string {
    const pool = this.pool;
    return Buffer.from(pool.buffer, pool.byteOffset, pool.length).toString(
      "utf8",
      this.offsets[id] as number,
      this.offsets[id + 1] as number,
    );
  }

  private equals(id: number, bytes: Uint8Array, start: number, end: number): boolean {
    const at = this.offsets[id] as number;
    const length = end - start;
    if ((this.offsets[id + 1] as number) - at !== length) return false;
    const pool = this.pool;
    for (let k = 0; k < length; k++) if (pool[at + k] !== bytes[start + k]) return false;
    return true;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let id = 0; id < this.size; id++) {
      let slot = (this.hashes[id] as number) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.slots = slots;
  }
}

/**
 * Copies bytes [start, end) of `from` into `to` at `at`: a loop, since the few bytes of a docno
 * cost less to copy than a `subarray` view costs to make.
 */
export function copyBytes(
  from: Uint8Array,
  start: number,
  end: number,
  to: Uint8Array,
  at: number,
): void {
  for (let i = start; i < end; i++) to[at + i - start] = from[i] as number;
}

/** A copy of `array` with room for `length` items. */
export function grown<T extends Int32Array | Float64Array | Float32Array | Uint8Array>(
  array: T,
  length: number,
): T {
  const out = new (array.constructor as new (n: number) => T)(length);
  out.set(array);
  return out;
}
