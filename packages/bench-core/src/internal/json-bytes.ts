// JSON read straight from bytes, without whitespace (the layout `save` writes): strings, numbers
// and any value, each checked for grammar as JSON.parse checks it. The lazy result reader's
// line scanner builds on it (scan-line.ts).

const TWO53 = 9007199254740992;
const POW10: readonly number[] = Array.from({ length: 23 }, (_, k) => 10 ** k);
const NUMBER_RE = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** The bytes of an ASCII text. */
export const ascii = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));
export const NULL: Uint8Array = ascii("null");
const TRUE = ascii("true");
const FALSE = ascii("false");

/** Whether b[at, at + prefix.length) is `prefix`, within b[…, end). */
export function startsWith(b: Buffer, at: number, prefix: Uint8Array, end: number): boolean {
  const n = prefix.length;
  if (at + n > end) return false;
  for (let k = 0; k < n; k++) if (b[at + k] !== prefix[k]) return false;
  return true;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/**
 * Reads JSON values from bytes. Each method takes the index of a value's first byte (for strings,
 * of the first byte after the opening quote) and returns the index after it, or -1 when the bytes
 * are not such a value; what it read is left in {@link JsonBytes.value} and
 * {@link JsonBytes.escaped}.
 */
export class JsonBytes {
  /** The value of the last number read. */
  value = 0;
  /** Whether the last string read held an escape. */
  escaped = false;

  /** A string whose content starts at b[i]: the index after its closing quote, or -1. */
  string(b: Buffer, i: number, end: number): number {
    this.escaped = false;
    while (i < end) {
      const c = b[i] as number;
      // Most bytes are neither a quote, a backslash nor a control character: one test.
      if (c > 0x5c || (c > 0x22 && c < 0x5c) || c === 0x20 || c === 0x21) {
        i++;
        continue;
      }
      if (c === 0x22) return i + 1;
      if (c === 0x5c) {
        this.escaped = true;
        const e = b[i + 1];
        if (e === 0x75) {
          for (let h = i + 2; h < i + 6; h++) if (!isHex(b[h] as number)) return -1;
          i += 6;
        } else if (
          e === 0x22 ||
          e === 0x5c ||
          e === 0x2f ||
          e === 0x62 ||
          e === 0x66 ||
          e === 0x6e ||
          e === 0x72 ||
          e === 0x74
        ) {
          i += 2;
        } else return -1;
        continue;
      }
      if (c < 0x20) return -1;
      i++;
    }
    return -1;
  }

  /** A string starting at its opening quote b[i]. */
  stringOnly(b: Buffer, i: number, end: number): number {
    return b[i] === 0x22 ? this.string(b, i + 1, end) : -1;
  }

  /** A string starting at its opening quote b[i], or null. */
  stringOrNull(b: Buffer, i: number, end: number): number {
    if (b[i] === 0x22) return this.string(b, i + 1, end);
    return startsWith(b, i, NULL, end) ? i + 4 : -1;
  }

  /** Any JSON value without whitespace, nested at most 32 deep. */
  any(b: Buffer, i: number, end: number, depth: number): number {
    if (depth > 32 || i >= end) return -1;
    const c = b[i] as number;
    if (c === 0x22) return this.string(b, i + 1, end);
    if (c === 0x7b || c === 0x5b) {
      const close = c === 0x7b ? 0x7d : 0x5d;
      i++;
      if (b[i] === close) return i + 1;
      for (;;) {
        if (c === 0x7b) {
          if (b[i] !== 0x22) return -1;
          i = this.string(b, i + 1, end);
          if (i < 0 || b[i] !== 0x3a) return -1;
          i++;
        }
        i = this.any(b, i, end, depth + 1);
        if (i < 0 || i >= end) return -1;
        const d = b[i];
        i++;
        if (d === close) return i;
        if (d !== 0x2c) return -1;
      }
    }
    if (startsWith(b, i, NULL, end)) return i + 4;
    if (startsWith(b, i, TRUE, end)) return i + 4;
    if (startsWith(b, i, FALSE, end)) return i + 5;
    return this.number(b, i, end);
  }

  /** A JSON number, its value (as JSON.parse reads it) left in {@link JsonBytes.value}. */
  number(b: Buffer, i: number, end: number): number {
    const from = i;
    let neg = false;
    if (b[i] === 0x2d) {
      neg = true;
      i++;
    }
    let c = b[i] as number;
    let m = 0;
    let scale = 0;
    if (c === 0x30) {
      i++;
      c = b[i] as number;
    } else if (c >= 0x31 && c <= 0x39) {
      do {
        m = m * 10 + (c - 0x30);
        i++;
        c = b[i] as number;
      } while (c >= 0x30 && c <= 0x39);
    } else return -1;
    if (c === 0x2e) {
      i++;
      c = b[i] as number;
      if (!(c >= 0x30 && c <= 0x39)) return -1;
      do {
        m = m * 10 + (c - 0x30);
        scale++;
        i++;
        c = b[i] as number;
      } while (c >= 0x30 && c <= 0x39);
    }
    if (c === 0x65 || c === 0x45 || m >= TWO53 || scale > 22) {
      // An exponent, or more digits than a double holds exactly: the engine's own conversion.
      while (i < end) {
        c = b[i] as number;
        if (
          (c >= 0x30 && c <= 0x39) ||
          c === 0x2b ||
          c === 0x2d ||
          c === 0x2e ||
          c === 0x65 ||
          c === 0x45
        )
          i++;
        else break;
      }
      const text = b.toString("latin1", from, i);
      if (!NUMBER_RE.test(text)) return -1;
      const v = Number(text);
      if (!Number.isFinite(v)) return -1;
      this.value = v;
      return i;
    }
    // m and 10^scale are exact, so one division rounds correctly, as JSON.parse does.
    const v = scale === 0 ? m : m / (POW10[scale] as number);
    this.value = neg ? -v : v;
    return i;
  }
}
