import { isUtf8 } from "node:buffer";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/**
 * What a lazy load keeps of a result file: per sample its id and the score of each metric, in
 * columns, plus the file's size and modification time so that the full records can be read again
 * later and checked to come from the same file.
 */
export interface ScannedSamples<H> {
  readonly header: H;
  /** Per sample, in file order: its id, or undefined when it has none. */
  readonly sampleIds: (string | undefined)[];
  /**
   * Per sample, two 32-bit hashes of its question (entries 2i and 2i + 1; see
   * {@link questionHash}): enough for pairing to check that two runs ask the same questions
   * without reading their records.
   */
  readonly questionHashes: Int32Array;
  /** metric → per-sample score; NaN where the sample has no number (null, missing, errored). */
  readonly columns: Map<string, Float64Array>;
  /** How many samples have each status, for the check against the header's counts. */
  readonly statuses: { successful: number; errored: number; incomplete: number };
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
  ) => {
    sampleId: string | undefined;
    question: string;
    status: "successful" | "errored" | "incomplete";
    scores: Readonly<Record<string, number | null>>;
  };
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
const TRUE = ascii("true");
const FALSE = ascii("false");

const FIELD_OTHER = 0;
const FIELD_STRING_OR_NULL = 1;
const FIELD_IDS = 2;
const FIELD_URIS = 3;
const FIELD_NUMBER_OR_NULL = 4;
const FIELD_COUNT = 5;
const FIELD_KEPT = 6;
const FIELD_RETRIEVED = 7;
/**
 * The fields after `scores`, by name: what type a full load requires of each, and for the fields
 * a full load requires to be present, a bit of {@link REQUIRED_TAIL}.
 */
const TAIL_FIELDS: ReadonlyMap<string, readonly [field: number, bit: number]> = new Map([
  ["answer", [FIELD_STRING_OR_NULL, 1]],
  ["error", [FIELD_STRING_OR_NULL, 2]],
  ["retrieved_ids", [FIELD_IDS, 4]],
  ["retrieved_uris", [FIELD_URIS, 8]],
  // Format 2: the chunks, which stand for both the ids and the uris of format 1.
  ["retrieved", [FIELD_RETRIEVED, 4 | 8]],
  ["latency_ms", [FIELD_NUMBER_OR_NULL, 16]],
  ["attempts", [FIELD_COUNT, 0]],
  ["sample_id", [FIELD_KEPT, 0]],
  ["question", [FIELD_KEPT, 0]],
  ["status", [FIELD_KEPT, 0]],
  ["scores", [FIELD_KEPT, 0]],
] as const);
const REQUIRED_TAIL = 1 | 2 | 4 | 8 | 16;
const OTHER_FIELD: readonly [number, number] = [FIELD_OTHER, 0];
/** `,"key":` of the fields `save` writes after `scores`, in its order. */
const TAIL_ORDER: readonly (readonly [Uint8Array, number, number])[] = [
  "answer",
  "retrieved",
  "latency_ms",
  "error",
  "attempts",
].map((name) => {
  const [field, bit] = TAIL_FIELDS.get(name) as readonly [number, number];
  return [ascii(`,"${name}":`), field, bit] as const;
});
const TAIL_KEYS: readonly (readonly [Uint8Array, readonly [number, number]])[] = [
  ...TAIL_FIELDS,
].map(([name, kind]) => [ascii(name), kind] as const);

/**
 * Reads a result file in the layout `BenchmarkResult.save` writes (an indented header, then one
 * sample per line) through one reused buffer, keeping only sample ids and score columns. This is
 * what makes loading 100 files of 10^4 samples take a fraction of a second: on a shared machine,
 * touching freshly allocated memory (a Buffer per file, a string per file, an object per sample)
 * costs far more than the parsing itself.
 *
 * It checks what a full load checks: the file is UTF-8; the header, as `parsers.header` checks
 * it; every sample line is one JSON object whose fields have the types a sample's fields must
 * have. A line it cannot read on its fast path (escapes in an id, an unknown score key, another
 * key order, a key given twice, whitespace) is parsed with `JSON.parse` and `parsers.sample`.
 *
 * @returns undefined when the file is not in that layout, or a line is not one JSON value (a
 * sample over two lines, two on one line, a truncated file): the caller then parses the file in
 * full, which reads any valid layout and words the error of an invalid file.
 * @throws {ConfigurationError} for a sample line that is valid JSON but not a valid sample.
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
            // The header is the file's text up to here, its last comma replaced by the brace
            // that closes the object: exactly what a full parse would read, minus the samples.
            const trimmed = headerText.trimEnd();
            if (!trimmed.endsWith(",")) return undefined;
            let data: unknown;
            try {
              data = JSON.parse(`${trimmed.slice(0, -1)}}`);
            } catch {
              return undefined;
            }
            const parsed = parsers.header(data);
            header = parsed.header;
            // Columns sized for the count the header announces, but never past what the file
            // can hold (a sample line takes over 40 bytes); grown by doubling when short.
            const capacity = Math.min(parsed.expected ?? Number.POSITIVE_INFINITY, size / 40);
            scan = new LineScanner(parsed.metrics, parsers, capacity);
            state = "samples";
            continue;
          }
          headerText += `${line}\n`;
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
        if (!s.line(buf, pos, end, lineNo)) return undefined;
        count++;
        pos = nl + 1;
      }
    } finally {
      giveBuffer(buf);
    }
    // Not closed (truncated, or another layout): the full parse says what is wrong.
    if (state !== "done") return undefined;
    const s = scan as LineScanner;
    previousIds = s.ids;
    return {
      header: header as H,
      sampleIds: s.ids,
      questionHashes: s.questionHashes(),
      columns: s.columns(),
      statuses: s.statuses,
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

/** The ids of the last file scanned, by row. */
let previousIds: readonly (string | undefined)[] = [];

/** Whether `text` is exactly the ASCII bytes b[start, end). */
function sameAscii(text: string, b: Buffer, start: number, end: number): boolean {
  if (text.length !== end - start) return false;
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) !== b[start + k]) return false;
  return true;
}

/** Reads sample lines into columns. One per file. */
class LineScanner {
  readonly ids: (string | undefined)[] = [];
  readonly statuses = { successful: 0, errored: 0, incomplete: 0 };
  readonly #metrics: readonly string[];
  /** The bytes of `"name":` per metric, as JSON.stringify writes the key. */
  readonly #keys: Uint8Array[];
  #cols: Float64Array[];
  #questions: Int32Array;
  #capacity: number;
  #n = 0;
  readonly #parsers: ScanParsers<unknown>;
  /** The value of the last number read. */
  #value = 0;
  /** Whether the last string read held an escape. */
  #escaped = false;

  constructor(metrics: readonly string[], parsers: ScanParsers<unknown>, capacity: number) {
    this.#metrics = metrics;
    this.#keys = metrics.map((m) => Buffer.from(`${JSON.stringify(m)}:`, "utf8"));
    this.#capacity = Math.max(16, Math.ceil(capacity));
    this.#cols = metrics.map(() => new Float64Array(this.#capacity));
    this.#questions = new Int32Array(2 * this.#capacity);
    this.#parsers = parsers as ScanParsers<unknown>;
  }

  questionHashes(): Int32Array {
    const used = 2 * this.#n;
    return this.#questions.length === used ? this.#questions : this.#questions.slice(0, used);
  }

  columns(): Map<string, Float64Array> {
    const out = new Map<string, Float64Array>();
    for (let m = 0; m < this.#metrics.length; m++) {
      const col = this.#cols[m] as Float64Array;
      out.set(this.#metrics[m] as string, col.length === this.#n ? col : col.slice(0, this.#n));
    }
    return out;
  }

  /**
   * One sample, the line buf[start, end) without its trailing comma. False when the line is not
   * one JSON value (a sample spread over lines, two on one line): the caller falls back to a
   * full parse, which reads any valid layout and words the error of an invalid one.
   *
   * @throws {ConfigurationError} when the line is valid JSON but not a valid sample.
   */
  line(buf: Buffer, start: number, end: number, lineNo: number): boolean {
    if (this.#n === this.#capacity) this.#grow();
    const row = this.#n++;
    const cols = this.#cols;
    for (let m = 0; m < cols.length; m++) (cols[m] as Float64Array)[row] = Number.NaN;
    if (this.#fast(buf, start, end, row)) return true;
    for (let m = 0; m < cols.length; m++) (cols[m] as Float64Array)[row] = Number.NaN;
    return this.#slow(buf, start, end, row, lineNo);
  }

  #grow(): void {
    this.#capacity *= 2;
    const questions = new Int32Array(2 * this.#capacity);
    questions.set(this.#questions);
    this.#questions = questions;
    this.#cols = this.#cols.map((c) => {
      const next = new Float64Array(this.#capacity);
      next.set(c);
      return next;
    });
  }

  #slow(buf: Buffer, start: number, end: number, row: number, lineNo: number): boolean {
    let data: unknown;
    try {
      data = JSON.parse(buf.toString("utf8", start, end));
    } catch {
      return false;
    }
    const { sampleId, question, status, scores } = this.#parsers.sample(
      data,
      `samples[${row}] (line ${lineNo})`,
    );
    this.ids[row] = sampleId;
    const canonical = canonicalQuestion(question);
    questionHash(canonical, 0, canonical.length, this.#questions, row);
    this.statuses[status]++;
    for (let m = 0; m < this.#metrics.length; m++) {
      const name = this.#metrics[m] as string;
      const v = Object.hasOwn(scores, name) ? scores[name] : null;
      if (typeof v === "number") (this.#cols[m] as Float64Array)[row] = v;
    }
    return true;
  }

  /**
   * The common case, byte by byte: the whole line is checked as a full load would check it (JSON
   * grammar, and the type of every field a sample has), and only the id and scores are kept.
   * False hands the line to JSON.parse: an escape in the id, keys in another order or repeated,
   * whitespace, or anything invalid (whose error the full parse then words).
   */
  #fast(b: Buffer, start: number, end: number, row: number): boolean {
    let i: number;
    let id: string | undefined;
    if (startsWith(b, start, P_ID, end)) {
      const s = start + P_ID.length;
      let q = s;
      let nonAscii = false;
      for (; q < end; q++) {
        const c = b[q] as number;
        if (c === 0x22) break;
        if (c === 0x5c || c < 0x20) return false;
        if (c >= 0x80) nonAscii = true;
      }
      if (q >= end) return false;
      if (nonAscii) id = b.toString("utf8", s, q);
      else {
        // Runs of one dataset share their ids, usually in the same order: reuse the string the
        // previous file had in this row rather than allocate (and later copy) a new one.
        const prev = previousIds[row];
        id =
          prev !== undefined && sameAscii(prev, b, s, q)
            ? prev
            : (b as unknown as Latin1Slicing).latin1Slice(s, q);
      }
      if (!startsWith(b, q + 1, P_QUESTION, end)) return false;
      i = q + 1 + P_QUESTION.length;
    } else if (startsWith(b, start, P_QUESTION_FIRST, end)) {
      i = start + P_QUESTION_FIRST.length;
    } else return false;
    const questionStart = i;
    i = this.#string(b, i, end);
    if (i < 0 || !startsWith(b, i, P_STATUS, end)) return false;
    if (this.#escaped) {
      // Escapes have more than one spelling: hashed as JSON.stringify spells the question.
      const canonical = canonicalQuestion(JSON.parse(b.toString("utf8", questionStart - 1, i)));
      questionHash(canonical, 0, canonical.length, this.#questions, row);
    } else {
      questionHash(b, questionStart, i - 1, this.#questions, row);
    }
    i += P_STATUS.length;
    let status: "successful" | "errored" | "incomplete";
    if (startsWith(b, i, S_SUCCESSFUL, end)) {
      i += S_SUCCESSFUL.length;
      status = "successful";
    } else if (startsWith(b, i, S_ERRORED, end)) {
      i += S_ERRORED.length;
      status = "errored";
    } else if (startsWith(b, i, S_INCOMPLETE, end)) {
      i += S_INCOMPLETE.length;
      status = "incomplete";
    } else return false;
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
          // An errored sample with a number: refused, in the words of the full parse.
          if (status === "errored") return false;
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
    // The other fields, checked for grammar and type; the object must close at the line's end.
    // A required field missing, or uris not one per id, is left to the full parse to word.
    let order = 0;
    let seen = 0;
    let idCount = 0;
    let uriCount = 0;
    for (;;) {
      if (i >= end) return false;
      const c = b[i];
      if (c === 0x7d) {
        if (i !== end - 1 || seen !== REQUIRED_TAIL || idCount !== uriCount) return false;
        break;
      }
      if (c !== 0x2c || b[i + 1] !== 0x22) return false;
      // The key: the one `save` writes next, else any.
      let field: number;
      const next = TAIL_ORDER[order];
      if (next !== undefined && startsWith(b, i, next[0], end)) {
        i += next[0].length;
        field = next[1];
        seen |= next[2];
        order++;
      } else {
        const k = i + 2;
        i = this.#string(b, k, end);
        if (i < 0 || this.#escaped || b[i] !== 0x3a) return false;
        const kind = tailField(b, k, i - 1);
        field = kind[0];
        seen |= kind[1];
        i++;
      }
      switch (field) {
        case FIELD_STRING_OR_NULL:
          i = this.#stringOrNull(b, i, end);
          break;
        case FIELD_IDS:
        case FIELD_URIS: {
          if (b[i] !== 0x5b) return false;
          i++;
          // Counted afresh each time: of a key given twice, the last counts, as in JSON.parse.
          let n = 0;
          if (b[i] === 0x5d) i++;
          else {
            for (;;) {
              i = field === FIELD_IDS ? this.#stringOnly(b, i, end) : this.#stringOrNull(b, i, end);
              if (i < 0 || i >= end) return false;
              n++;
              const d = b[i];
              i++;
              if (d === 0x5d) break;
              if (d !== 0x2c) return false;
            }
          }
          if (field === FIELD_IDS) idCount = n;
          else uriCount = n;
          break;
        }
        case FIELD_NUMBER_OR_NULL:
          if (startsWith(b, i, NULL, end)) i += 4;
          else i = this.#number(b, i, end);
          break;
        case FIELD_COUNT:
          i = this.#number(b, i, end);
          if (i >= 0 && !(Number.isInteger(this.#value) && this.#value >= 0)) return false;
          break;
        case FIELD_RETRIEVED:
          // An array (of chunk objects) or null; the chunks' fields are checked when the
          // records are read.
          if (b[i] !== 0x5b && b[i] !== 0x6e) return false;
          i = this.#any(b, i, end, 0);
          break;
        case FIELD_OTHER:
          i = this.#any(b, i, end, 0);
          break;
        default:
          // id, question, status or scores again: the last one counts, as in JSON.parse.
          return false;
      }
      if (i < 0) return false;
    }
    this.ids[row] = id;
    this.statuses[status]++;
    return true;
  }

  /** A string whose content starts at b[i]: the index after its closing quote, or -1. */
  #string(b: Buffer, i: number, end: number): number {
    this.#escaped = false;
    while (i < end) {
      const c = b[i] as number;
      // Most bytes are neither a quote, a backslash nor a control character: one test.
      if (c > 0x5c || (c > 0x22 && c < 0x5c) || c === 0x20 || c === 0x21) {
        i++;
        continue;
      }
      if (c === 0x22) return i + 1;
      if (c === 0x5c) {
        this.#escaped = true;
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

  #stringOnly(b: Buffer, i: number, end: number): number {
    return b[i] === 0x22 ? this.#string(b, i + 1, end) : -1;
  }

  #stringOrNull(b: Buffer, i: number, end: number): number {
    if (b[i] === 0x22) return this.#string(b, i + 1, end);
    return startsWith(b, i, NULL, end) ? i + 4 : -1;
  }

  /** Any JSON value without whitespace (an unknown field): the index after it, or -1. */
  #any(b: Buffer, i: number, end: number, depth: number): number {
    if (depth > 32 || i >= end) return -1;
    const c = b[i] as number;
    if (c === 0x22) return this.#string(b, i + 1, end);
    if (c === 0x7b || c === 0x5b) {
      const close = c === 0x7b ? 0x7d : 0x5d;
      i++;
      if (b[i] === close) return i + 1;
      for (;;) {
        if (c === 0x7b) {
          if (b[i] !== 0x22) return -1;
          i = this.#string(b, i + 1, end);
          if (i < 0 || b[i] !== 0x3a) return -1;
          i++;
        }
        i = this.#any(b, i, end, depth + 1);
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
    return this.#number(b, i, end);
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

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** Which of the known fields the key b[start, end) names (no escapes in it), and its bit. */
function tailField(b: Buffer, start: number, end: number): readonly [number, number] {
  const n = end - start;
  for (const [key, kind] of TAIL_KEYS) {
    if (key.length !== n) continue;
    let k = 0;
    while (k < n && b[start + k] === key[k]) k++;
    if (k === n) return kind;
  }
  return OTHER_FIELD;
}

/** A question's bytes as `save` writes them between the quotes (JSON.stringify's escapes). */
function canonicalQuestion(question: string): Buffer {
  const json = JSON.stringify(question);
  return Buffer.from(json.slice(1, -1), "utf8");
}

/**
 * Two independent 32-bit hashes (FNV-1a, and a multiply-rotate hash with another seed) of bytes
 * [start, end), written at entries 2·row and 2·row + 1 of `out`. Two questions whose 64 bits agree
 * are taken to be equal: a chance of about 5·10⁻²⁰ per pair that two different ones do.
 */
export function questionHash(
  bytes: Uint8Array,
  start: number,
  end: number,
  out: Int32Array,
  row: number,
): void {
  let a = -2128831035;
  let b = 0x27d4eb2f ^ (end - start);
  for (let i = start; i < end; i++) {
    const c = bytes[i] as number;
    a = Math.imul(a ^ c, 16777619);
    b = Math.imul((b << 5) | (b >>> 27), 0x9e3779b1) ^ c;
  }
  b ^= b >>> 15;
  b = Math.imul(b, 0x85ebca6b);
  b ^= b >>> 13;
  out[2 * row] = a;
  out[2 * row + 1] = b;
}
