import { isUtf8 } from "node:buffer";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { ConfigurationError } from "../errors.js";

/**
 * What a lazy load keeps of a result file: per sample its id and the score of each metric, in
 * columns, plus the file's size and modification time so that the full records can be read again
 * later and checked to come from the same file.
 */
export interface ScannedSamples<H> {
  readonly header: H;
  readonly count: number;
  /** Per sample: its id, or undefined when it has none. */
  readonly sampleIds: (string | undefined)[];
  /** metric → per-sample score; NaN where the sample has no number (null, missing, errored). */
  readonly columns: Map<string, Float64Array>;
  readonly size: number;
  readonly mtimeMs: number;
}

/** How the scan turns the parts it does not read itself into validated values. */
export interface ScanParsers<H> {
  /** Validates the header object (everything before `"samples"`) and lists the metrics. */
  readonly header: (data: unknown) => {
    header: H;
    metrics: readonly string[];
    /** The sample count the header announces, if it does: the columns' first size. */
    expected?: number;
  };
  /** Validates one sample line the fast path declined; returns its id and scores. */
  readonly sample: (
    data: unknown,
    where: string,
  ) => { sampleId: string | undefined; scores: Readonly<Record<string, number | null>> };
}

const CHUNK = 1 << 20;
const SAMPLES_LINE = ' "samples": [';
const MAX_HEADER = 64 * 1024 * 1024;
const TWO53 = 9007199254740992;
const POW10: readonly number[] = Array.from({ length: 23 }, (_, k) => 10 ** k);
const NUMBER_RE = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

const ascii = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));
const P_ID = ascii('{"sample_id":"');
const P_QUESTION_FIRST = ascii('{"question":"');
const P_QUESTION = ascii(',"question":"');
const P_STATUS = ascii(',"status":"');
const P_SCORES = ascii(',"scores":{');
const S_SUCCESSFUL = ascii('successful"');
const S_ERRORED = ascii('errored"');
const S_INCOMPLETE = ascii('incomplete"');
const NULL = ascii("null");

/**
 * Reads a result file in the layout `BenchmarkResult.save` writes (an indented header, then one
 * sample per line) through one reused buffer, keeping only sample ids and score columns. This is
 * what makes loading 100 files of 10^4 samples take a fraction of a second: on a shared machine,
 * touching freshly allocated memory (a Buffer per file, a string per file, an object per sample)
 * costs far more than the parsing itself.
 *
 * What it checks now: the file is UTF-8; the header, as `parsers.header` checks it; every sample
 * line's framing, id, status and scores (numbers as JSON writes them, or null). A line it cannot
 * read on its fast path (escapes in an id, an unknown score key, another key order) is parsed in
 * full with `JSON.parse` and `parsers.sample`. The rest of a sample (question, answer, retrieved
 * ids, latency, error) is checked when the records are read in full.
 *
 * @returns undefined when the file is not in that layout (the caller then parses it in full).
 * @throws {ConfigurationError} for a sample line that is not valid JSON or not a valid sample.
 */
export function scanResultFile<H>(
  path: string,
  parsers: ScanParsers<H>,
): ScannedSamples<H> | undefined {
  // Synchronous reads: a file takes milliseconds, and each await of a threadpool read cost more
  // than the read itself.
  const fd = openSync(path, "r");
  try {
    const { size, mtimeMs } = fstatSync(fd);
    let buf = takeBuffer();
    let len = 0;
    let eof = false;
    let pos = 0;
    /** Bytes before this index are known to be valid UTF-8. */
    let checked = 0;
    let lineNo = 0;
    let headerText = "";
    let state: "header" | "samples" | "done" = "header";
    let scan: LineScanner | undefined;
    let header: H | undefined;
    let lastHadComma = true;
    let count = 0;
    try {
      for (;;) {
        // A complete line is [pos, nl). Refill when no newline is left in the buffer.
        let nl = buf.indexOf(0x0a, pos);
        if (nl === -1 || nl >= len) {
          if (!eof) {
            if (pos > 0) {
              buf.copyWithin(0, pos, len);
              len -= pos;
              checked -= pos;
              pos = 0;
            }
            if (len === buf.length) {
              const bigger = Buffer.allocUnsafe(buf.length * 2);
              buf.copy(bigger, 0, 0, len);
              giveBuffer(buf);
              buf = bigger;
            }
            const bytesRead = readSync(fd, buf, len, buf.length - len, null);
            if (bytesRead === 0) eof = true;
            len += bytesRead;
            // Newlines never fall inside a UTF-8 sequence: check up to the last one (all at EOF).
            const upTo = eof ? len : buf.lastIndexOf(0x0a, len - 1) + 1;
            if (upTo > checked) {
              if (!isUtf8(buf.subarray(checked, upTo))) return undefined;
              checked = upTo;
            }
            scan?.moved();
            continue;
          }
          // EOF: what is left is the last (unterminated) line.
          if (pos >= len) break;
          nl = len;
        }
        lineNo++;
        if (state === "header") {
          const line = buf.toString("utf8", pos, nl);
          pos = nl + 1;
          if (line === SAMPLES_LINE) {
            let data: unknown;
            try {
              data = JSON.parse(`${headerText.replace(/,\s*$/, "")}}`);
            } catch {
              return undefined;
            }
            const parsed = parsers.header(data);
            header = parsed.header;
            scan = new LineScanner(parsed.metrics, path, parsers, parsed.expected ?? size / 128);
            state = "samples";
            continue;
          }
          headerText += line;
          if (lineNo === 1 && line !== "{") return undefined;
          if (headerText.length > MAX_HEADER) return undefined;
          continue;
        }
        if (state === "done") {
          for (let i = pos; i < nl; i++) {
            const c = buf[i] as number;
            if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return undefined;
          }
          pos = nl + 1;
          continue;
        }
        const s = scan as LineScanner;
        if (nl - pos === 2 && buf[pos] === 0x5d && buf[pos + 1] === 0x7d) {
          // `]}`: the samples array and the file close. The last sample has no comma.
          if (count > 0 && lastHadComma) return undefined;
          state = "done";
          pos = nl + 1;
          continue;
        }
        if (!lastHadComma) return undefined;
        let end = nl;
        lastHadComma = buf[end - 1] === 0x2c;
        if (lastHadComma) end--;
        if (end <= pos || buf[pos] !== 0x7b || buf[end - 1] !== 0x7d) return undefined;
        s.line(buf, pos, end, lineNo);
        count++;
        pos = nl + 1;
      }
    } finally {
      giveBuffer(buf);
    }
    if (state !== "done") {
      if (state === "header") return undefined;
      throw new ConfigurationError(
        `${path}: truncated: the samples array never closes (read ${lineNo} lines)`,
      );
    }
    const s = scan as LineScanner;
    return {
      header: header as H,
      count,
      sampleIds: s.ids,
      columns: s.columns(),
      size,
      mtimeMs,
    };
  } finally {
    closeSync(fd);
  }
}

// One reading buffer reused across loads: loading 100 files allocates 1 MB, not 100 × the file.
let spare: Buffer | undefined;
function takeBuffer(): Buffer {
  const b = spare ?? Buffer.allocUnsafe(CHUNK);
  spare = undefined;
  return b;
}
function giveBuffer(b: Buffer): void {
  if (b.length === CHUNK) spare = b;
}

/** Reads sample lines into columns. One per file. */
class LineScanner {
  readonly ids: (string | undefined)[] = [];
  readonly #metrics: readonly string[];
  /** The bytes of `"name":` per metric, as JSON.stringify writes the key. */
  readonly #keys: Uint8Array[];
  #cols: Float64Array[];
  #capacity: number;
  #n = 0;
  /**
   * Position of the next backslash at or after the last search, so that finding every string's
   * escapes is one pass over the buffer; -1: none left in the buffer; -2: search again.
   */
  #nextBackslash = -2;
  readonly #path: string;
  readonly #parsers: ScanParsers<unknown>;
  #value = 0;

  constructor(
    metrics: readonly string[],
    path: string,
    parsers: ScanParsers<unknown>,
    expected: number,
  ) {
    this.#metrics = metrics;
    this.#keys = metrics.map((m) => Buffer.from(`${JSON.stringify(m)}:`, "utf8"));
    // The count the header announces (else a guess); grown by doubling when short.
    this.#capacity = Math.max(16, Math.min(1 << 24, Math.ceil(expected)));
    this.#cols = metrics.map(() => new Float64Array(this.#capacity));
    this.#path = path;
    this.#parsers = parsers as ScanParsers<unknown>;
  }

  /** The buffer's content moved or changed: forget the backslash search. */
  moved(): void {
    this.#nextBackslash = -2;
  }

  columns(): Map<string, Float64Array> {
    const out = new Map<string, Float64Array>();
    for (let m = 0; m < this.#metrics.length; m++) {
      const col = this.#cols[m] as Float64Array;
      out.set(this.#metrics[m] as string, col.length === this.#n ? col : col.slice(0, this.#n));
    }
    return out;
  }

  /** One sample, the JSON object in buf[start, end). */
  line(buf: Buffer, start: number, end: number, lineNo: number): void {
    if (this.#n === this.#capacity) this.#grow();
    const row = this.#n++;
    const cols = this.#cols;
    for (let m = 0; m < cols.length; m++) (cols[m] as Float64Array)[row] = Number.NaN;
    if (!this.#fast(buf, start, end, row)) {
      for (let m = 0; m < cols.length; m++) (cols[m] as Float64Array)[row] = Number.NaN;
      this.#slow(buf, start, end, row, lineNo);
    }
  }

  #grow(): void {
    this.#capacity *= 2;
    this.#cols = this.#cols.map((c) => {
      const next = new Float64Array(this.#capacity);
      next.set(c);
      return next;
    });
  }

  #slow(buf: Buffer, start: number, end: number, row: number, lineNo: number): void {
    const where = `samples[${row}] (line ${lineNo})`;
    let data: unknown;
    try {
      data = JSON.parse(buf.toString("utf8", start, end));
    } catch (error) {
      throw new ConfigurationError(
        `${this.#path}:${lineNo}: not valid JSON, perhaps truncated: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const { sampleId, scores } = this.#parsers.sample(data, where);
    this.ids[row] = sampleId;
    for (let m = 0; m < this.#metrics.length; m++) {
      const name = this.#metrics[m] as string;
      const v = Object.hasOwn(scores, name) ? scores[name] : null;
      if (typeof v === "number") (this.#cols[m] as Float64Array)[row] = v;
    }
  }

  /** The common case, byte by byte; false to hand the line to the full parser. */
  #fast(b: Buffer, start: number, end: number, row: number): boolean {
    let i: number;
    let id: string | undefined;
    if (startsWith(b, start, P_ID, end)) {
      const s = start + P_ID.length;
      const q = this.#stringEnd(b, s, end);
      if (q < 0) return false;
      let nonAscii = false;
      for (let k = s; k < q; k++) {
        const c = b[k] as number;
        if (c < 0x20) return false;
        if (c >= 0x80) nonAscii = true;
      }
      id = nonAscii ? b.toString("utf8", s, q) : (b as unknown as Latin1Slicing).latin1Slice(s, q);
      if (!startsWith(b, q + 1, P_QUESTION, end)) return false;
      i = q + 1 + P_QUESTION.length;
    } else if (startsWith(b, start, P_QUESTION_FIRST, end)) {
      i = start + P_QUESTION_FIRST.length;
    } else return false;
    // The question is checked when the records are read; here only its end is found.
    const q = this.#stringEnd(b, i, end);
    if (q < 0) return false;
    i = q + 1;
    if (!startsWith(b, i, P_STATUS, end)) return false;
    i += P_STATUS.length;
    if (startsWith(b, i, S_SUCCESSFUL, end)) i += S_SUCCESSFUL.length;
    else if (startsWith(b, i, S_ERRORED, end)) i += S_ERRORED.length;
    else if (startsWith(b, i, S_INCOMPLETE, end)) i += S_INCOMPLETE.length;
    else return false;
    if (!startsWith(b, i, P_SCORES, end)) return false;
    i += P_SCORES.length;
    const keys = this.#keys;
    const cols = this.#cols;
    if (b[i] === 0x7d) i++;
    else {
      let expect = 0;
      for (;;) {
        // A key: the expected metric first (files list them in order), else any metric.
        let m = -1;
        if (expect < keys.length && startsWith(b, i, keys[expect] as Uint8Array, end)) m = expect;
        else {
          for (let k = 0; k < keys.length; k++) {
            if (startsWith(b, i, keys[k] as Uint8Array, end)) {
              m = k;
              break;
            }
          }
          if (m < 0) return false;
        }
        i += (keys[m] as Uint8Array).length;
        expect = m + 1;
        if (startsWith(b, i, NULL, end)) {
          i += 4;
          (cols[m] as Float64Array)[row] = Number.NaN;
        } else {
          i = this.#number(b, i, end);
          if (i < 0) return false;
          (cols[m] as Float64Array)[row] = this.#value;
        }
        if (i >= end) return false;
        const c = b[i];
        i++;
        if (c === 0x7d) break;
        if (c !== 0x2c) return false;
      }
    }
    // The rest of the line is another key or the end of the object.
    if (i >= end || b[i] !== 0x2c) return false;
    this.ids[row] = id;
    return true;
  }

  /**
   * Index of the quote closing a JSON string whose content starts at `s`, or -1 when the string
   * holds a backslash (an escape: the full parser decodes it) or does not close before `end`.
   */
  #stringEnd(b: Buffer, s: number, end: number): number {
    const q = b.indexOf(0x22, s);
    if (q < 0 || q >= end) return -1;
    if (this.#nextBackslash === -2 || (this.#nextBackslash !== -1 && this.#nextBackslash < s)) {
      this.#nextBackslash = b.indexOf(0x5c, s);
    }
    if (this.#nextBackslash !== -1 && this.#nextBackslash < q) return -1;
    return q;
  }

  /** A JSON number at b[i…]: its value in #value, and the index after it; -1 when invalid. */
  #number(b: Buffer, i: number, end: number): number {
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
      this.#value = v;
      return i;
    }
    // m and 10^scale are exact, so one division rounds correctly, as JSON.parse does.
    const v = scale === 0 ? m : m / (POW10[scale] as number);
    this.#value = neg ? -v : v;
    return i;
  }
}

/** Node's Buffer method behind `toString("latin1", …)`, without its argument checks. */
interface Latin1Slicing {
  latin1Slice(start: number, end: number): string;
}

function startsWith(b: Buffer, at: number, prefix: Uint8Array, end: number): boolean {
  const n = prefix.length;
  if (at + n > end) return false;
  for (let k = 0; k < n; k++) if (b[at + k] !== prefix[k]) return false;
  return true;
}
