// Byte strings read straight from a file's buffer: decoded, hashed, compared, interned and read as
// numbers without a string per field. The TREC readers here and `fastrag-bench eval`'s columnar
// path (through `@fastrag/bench-datasets/internal`) share them.

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
 * Reads a decimal number (`[+-]digits[.digits]`, at most 15 digits) straight from bytes,
 * returning exactly what `Number()` returns for that text, or NaN when the text is not in that
 * simple form (an exponent, hex, more digits): callers then fall back to `Number()` on the text.
 *
 * Exact because the digits form an integer m < 10^15 < 2^53 and 10^f (f ≤ 15) is exact in
 * binary, so m / 10^f is the correctly rounded quotient, i.e. the correctly rounded decimal. One
 * compare per digit fewer than checking m against 2^53 as it grows: it is read once per line of a
 * run (docs/decisions/datasets-reading.md).
 */
export function parseSimpleDecimal(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  let c = bytes[i] as number;
  const negative = c === 45;
  if (negative || c === 43) i++;
  let m = 0;
  let digits = 0;
  let fraction = -1;
  for (; i < end; i++) {
    c = bytes[i] as number;
    if (c >= 48 && c <= 57) {
      m = m * 10 + (c - 48);
      digits++;
      if (fraction >= 0) fraction++;
    } else if (c === 46 && fraction < 0) {
      fraction = 0;
    } else {
      return Number.NaN;
    }
  }
  if (digits === 0 || digits > 15) return Number.NaN;
  const value = fraction > 0 ? m / (POWERS_OF_TEN[fraction] as number) : m;
  return negative ? -value : value;
}

/** 10^0 … 10^15, each exact in binary. */
const POWERS_OF_TEN: Float64Array = /* @__PURE__ */ Float64Array.of(
  1,
  1e1,
  1e2,
  1e3,
  1e4,
  1e5,
  1e6,
  1e7,
  1e8,
  1e9,
  1e10,
  1e11,
  1e12,
  1e13,
  1e14,
  1e15,
);

/** FNV-1a over bytes [start, end). */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = -2128831035;
  for (let i = start; i < end; i++) h = Math.imul(h ^ (bytes[i] as number), 16777619);
  return h;
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
export function grow<T extends Int32Array | Float64Array | Float32Array | Uint8Array>(
  array: T,
  length: number,
): T {
  const out = new (array.constructor as new (n: number) => T)(length);
  out.set(array);
  return out;
}

/**
 * A set of byte strings, each given an id (0, 1, …) in order of first sight, its bytes kept in a
 * pool so that later lines compare against them without decoding anything. Hashes are FNV-1a
 * ({@link hashBytes}): a caller that has one already (computed while scanning) passes it to
 * {@link ByteSet.find} and {@link ByteSet.add}; {@link ByteSet.intern} computes it.
 */
export class ByteSet {
  /** How many distinct byte strings the set holds. */
  size = 0;
  private slots = new Int32Array(1 << 10);
  private hashes = new Int32Array(1 << 9);
  private offsets = new Int32Array((1 << 9) + 1);
  private pool = new Uint8Array(1 << 14);

  /** The id of bytes [start, end) with hash `hash`, or -1. */
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

  /** Adds bytes [start, end) with hash `hash`, which {@link find} did not find; their id. */
  add(bytes: Buffer, start: number, end: number, hash: number): number {
    const slots = this.slots;
    const mask = slots.length - 1;
    let slot = hash & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    return this.insert(bytes, start, end, hash, slot);
  }

  /** The id of bytes [start, end), added on first sight: one probe of the table either way. */
  intern(bytes: Buffer, start: number, end: number): number {
    const hash = hashBytes(bytes, start, end);
    const slots = this.slots;
    const mask = slots.length - 1;
    let slot = hash & mask;
    for (;;) {
      const entry = slots[slot] as number;
      if (entry === 0) return this.insert(bytes, start, end, hash, slot);
      const id = entry - 1;
      if (this.hashes[id] === hash && this.equals(id, bytes, start, end)) return id;
      slot = (slot + 1) & mask;
    }
  }

  /** The string of `id` (its bytes are valid UTF-8). */
  text(id: number): string {
    const pool = this.pool;
    return decodeField(
      Buffer.from(pool.buffer, pool.byteOffset, pool.length),
      this.offsets[id] as number,
      this.offsets[id + 1] as number,
    );
  }

  /** Called with each byte string as it is added: a subclass keeps what it needs of it. */
  protected added(_bytes: Buffer, _start: number, _end: number): void {}

  private insert(bytes: Buffer, start: number, end: number, hash: number, slot: number): number {
    const id = this.size;
    if (id + 1 >= this.hashes.length) {
      this.hashes = grow(this.hashes, this.hashes.length * 2);
      this.offsets = grow(this.offsets, this.offsets.length * 2);
    }
    const at = this.offsets[id] as number;
    const stop = at + (end - start);
    if (stop > this.pool.length) this.pool = grow(this.pool, Math.max(this.pool.length * 2, stop));
    copyBytes(bytes, start, end, this.pool, at);
    this.offsets[id + 1] = stop;
    this.hashes[id] = hash;
    this.slots[slot] = id + 1;
    this.size = id + 1;
    this.added(bytes, start, end);
    if (this.size * 2 > this.slots.length) this.rehash();
    return id;
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
 * A {@link ByteSet} that also keeps each byte string as a JS string, made once when it is added:
 * runs and qrels repeat docnos across queries, so this saves a string (and its GC) per line.
 */
export class ByteInterner extends ByteSet {
  /** The string of each id. */
  readonly strings: string[] = [];

  protected override added(bytes: Buffer, start: number, end: number): void {
    this.strings.push(decodeField(bytes, start, end));
  }

  override text(id: number): string {
    return this.strings[id] as string;
  }
}
