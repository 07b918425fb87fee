// One sample line of a result file, read byte by byte into columns (the JSON grammar is in
// json-bytes.ts, the trials' checks in scan-trials.ts).
// Over 400 lines on purpose: the lazy load's hot loop, one class whose methods share a line's state.
import { ascii, JsonBytes, NULL, startsWith } from "./json-bytes.js";
import { canonicalQuestion, questionHash } from "./question-hash.js";
import {
  ERRORED,
  INCOMPLETE,
  type ScannedTrials,
  STATUS_NAMES,
  SUCCESSFUL,
  TrialTally,
} from "./scan-trials.js";

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
    /** Its trials, checked against its status and scores; undefined when it has none. */
    trials?: readonly {
      status: "successful" | "errored" | "incomplete";
      scores: Readonly<Record<string, number | null>>;
    }[];
  };
}

const P_ID = ascii('{"sample_id":"');
const P_QUESTION_FIRST = ascii('{"question":"');
const P_QUESTION = ascii(',"question":"');
const P_STATUS = ascii(',"status":"');
const P_TRIAL_STATUS = ascii('{"status":"');
const P_SCORES = ascii(',"scores":{');
const S_SUCCESSFUL = ascii('successful"');
const S_ERRORED = ascii('errored"');
const S_INCOMPLETE = ascii('incomplete"');

const FIELD_OTHER = 0;
const FIELD_STRING_OR_NULL = 1;
const FIELD_IDS = 2;
const FIELD_URIS = 3;
const FIELD_NUMBER_OR_NULL = 4;
const FIELD_COUNT = 5;
const FIELD_KEPT = 6;
const FIELD_RETRIEVED = 7;
const FIELD_TRIALS = 8;
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
  ["trials", [FIELD_TRIALS, 0]],
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

/** The ids of the last file scanned, by row. */
let previousIds: readonly (string | undefined)[] = [];

/** Whether `text` is exactly the ASCII bytes b[start, end). */
function sameAscii(text: string, b: Buffer, start: number, end: number): boolean {
  if (text.length !== end - start) return false;
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) !== b[start + k]) return false;
  return true;
}

/** Reads sample lines into columns. One per file. */
export class LineScanner extends JsonBytes {
  readonly ids: (string | undefined)[] = [];
  readonly statuses: { successful: number; errored: number; incomplete: number } = {
    successful: 0,
    errored: 0,
    incomplete: 0,
  };
  readonly #metrics: readonly string[];
  /** The bytes of `"name":` per metric, as JSON.stringify writes the key. */
  readonly #keys: Uint8Array[];
  #cols: Float64Array[];
  #questions: Int32Array;
  #capacity: number;
  #n = 0;
  readonly #parsers: ScanParsers<unknown>;
  /** Which score keys the line being read lists: entry m is its row + 1 when it lists metric m. */
  readonly #present: Int32Array;
  /** The status code the last status read. */
  #status = SUCCESSFUL;
  /** Whether the line being read has a `trials` key, and whether it held trials (not null). */
  #trialsKey = false;
  #trialsRead = false;
  readonly #trials: TrialTally;

  constructor(metrics: readonly string[], parsers: ScanParsers<unknown>, capacity: number) {
    super();
    this.#metrics = metrics;
    this.#keys = metrics.map((m) => Buffer.from(`${JSON.stringify(m)}:`, "utf8"));
    this.#capacity = Math.max(16, Math.ceil(capacity));
    this.#cols = metrics.map(() => new Float64Array(this.#capacity));
    this.#questions = new Int32Array(2 * this.#capacity);
    this.#parsers = parsers as ScanParsers<unknown>;
    this.#present = new Int32Array(metrics.length);
    this.#trials = new TrialTally(metrics);
  }

  /** Hands the ids read to the next file's scan, which reuses equal strings row by row. */
  shareIds(): void {
    previousIds = this.ids;
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

  /** The samples' trials, checked one by one; undefined when no sample has trials. */
  trials(): ScannedTrials | undefined {
    return this.#trials.result(this.#n);
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
    this.#trials.grow(this.#capacity);
  }

  #slow(buf: Buffer, start: number, end: number, row: number, lineNo: number): boolean {
    let data: unknown;
    try {
      data = JSON.parse(buf.toString("utf8", start, end));
    } catch {
      return false;
    }
    const { sampleId, question, status, scores, trials } = this.#parsers.sample(
      data,
      `samples[${row}] (line ${lineNo})`,
    );
    this.ids[row] = sampleId;
    const canonical = canonicalQuestion(question);
    questionHash(canonical, 0, canonical.length, this.#questions, row);
    this.statuses[status]++;
    const metrics = this.#metrics;
    for (let m = 0; m < metrics.length; m++) {
      const name = metrics[m] as string;
      const v = Object.hasOwn(scores, name) ? scores[name] : null;
      (this.#cols[m] as Float64Array)[row] = typeof v === "number" ? v : Number.NaN;
    }
    if (trials !== undefined) {
      // Checked against the sample by the parser; counted and folded into trial_std here.
      const tally = this.#trials;
      tally.start();
      for (const t of trials) {
        const k = tally.add(STATUS_NAMES.indexOf(t.status));
        for (let m = 0; m < metrics.length; m++) {
          const name = metrics[m] as string;
          const v = Object.hasOwn(t.scores, name) ? t.scores[name] : null;
          if (typeof v === "number") (tally.scores[m] as Float64Array)[k] = v;
        }
      }
      tally.keep(row, this.#capacity);
    }
    return true;
  }

  /**
   * The common case, byte by byte: the whole line is checked as a full load would check it (JSON
   * grammar, the type of every field a sample has, and its trials against its status and scores),
   * and only the id, scores and trials' scores are kept. False hands the line to JSON.parse: an
   * escape in the id, keys in another order or repeated, whitespace, or anything invalid (whose
   * error the full parse then words).
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
    i = this.string(b, i, end);
    if (i < 0 || !startsWith(b, i, P_STATUS, end)) return false;
    if (this.escaped) {
      // Escapes have more than one spelling: hashed as JSON.stringify spells the question.
      const canonical = canonicalQuestion(JSON.parse(b.toString("utf8", questionStart - 1, i)));
      questionHash(canonical, 0, canonical.length, this.#questions, row);
    } else {
      questionHash(b, questionStart, i - 1, this.#questions, row);
    }
    i = this.#statusAt(b, i + P_STATUS.length, end);
    if (i < 0 || !startsWith(b, i, P_SCORES, end)) return false;
    const status = this.#status;
    const cols = this.#cols;
    i = this.#scores(b, i + P_SCORES.length, end, cols, row, status === ERRORED, this.#present);
    if (i < 0) return false;
    this.#trialsKey = false;
    this.#trialsRead = false;
    // The other fields; the object must close at the line's end.
    if (this.#tail(b, i, end, false) !== end) return false;
    if (this.#trialsRead && !this.#trials.agrees(status, cols, row, this.#present, row + 1)) {
      return false;
    }
    this.ids[row] = id;
    this.statuses[STATUS_NAMES[status] as "successful"]++;
    if (this.#trialsRead) this.#trials.keep(row, this.#capacity);
    return true;
  }

  /** A status's text after its opening quote: the index after its closing quote, or -1. */
  #statusAt(b: Buffer, i: number, end: number): number {
    if (startsWith(b, i, S_SUCCESSFUL, end)) {
      this.#status = SUCCESSFUL;
      return i + S_SUCCESSFUL.length;
    }
    if (startsWith(b, i, S_ERRORED, end)) {
      this.#status = ERRORED;
      return i + S_ERRORED.length;
    }
    if (startsWith(b, i, S_INCOMPLETE, end)) {
      this.#status = INCOMPLETE;
      return i + S_INCOMPLETE.length;
    }
    return -1;
  }

  /**
   * A scores object's content (after its `{`), each metric's number or NaN (null) written at
   * `out[m][at]` and, with `present`, its key marked (`at + 1`): the index after its `}`, or -1
   * for a key that is no metric of the file, or a number where the record is `errored` (refused,
   * in the words of the full parse). Positional, as every method of this loop: it runs once per
   * sample line and per trial, and an options object would be one allocation more each time.
   */
  #scores(
    b: Buffer,
    i: number,
    end: number,
    out: readonly Float64Array[],
    at: number,
    errored: boolean,
    present: Int32Array | undefined,
  ): number {
    if (b[i] === 0x7d) return i + 1;
    const keys = this.#keys;
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
        if (m < 0) return -1;
      }
      i += (keys[m] as Uint8Array).length;
      expect = m + 1;
      if (present !== undefined) present[m] = at + 1;
      if (startsWith(b, i, NULL, end)) {
        i += 4;
        (out[m] as Float64Array)[at] = Number.NaN;
      } else {
        if (errored) return -1;
        i = this.number(b, i, end);
        if (i < 0) return -1;
        (out[m] as Float64Array)[at] = this.value;
      }
      if (i >= end) return -1;
      const c = b[i];
      i++;
      if (c === 0x7d) return i;
      if (c !== 0x2c) return -1;
    }
  }

  /**
   * The fields after `scores`, checked for grammar and type, up to the object's `}`: the index
   * after it, or -1. A required field missing, or uris not one per id, is left to the full parse
   * to word. `inTrial`: the fields of one trial, which has no trials of its own.
   */
  #tail(b: Buffer, i: number, end: number, inTrial: boolean): number {
    let order = 0;
    let seen = 0;
    let idCount = 0;
    let uriCount = 0;
    for (;;) {
      if (i >= end) return -1;
      const c = b[i];
      if (c === 0x7d) return seen === REQUIRED_TAIL && idCount === uriCount ? i + 1 : -1;
      if (c !== 0x2c || b[i + 1] !== 0x22) return -1;
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
        i = this.string(b, k, end);
        if (i < 0 || this.escaped || b[i] !== 0x3a) return -1;
        const kind = tailField(b, k, i - 1);
        field = kind[0];
        seen |= kind[1];
        i++;
      }
      switch (field) {
        case FIELD_STRING_OR_NULL:
          i = this.stringOrNull(b, i, end);
          break;
        case FIELD_IDS:
        case FIELD_URIS: {
          if (b[i] !== 0x5b) return -1;
          i++;
          // Counted afresh each time: of a key given twice, the last counts, as in JSON.parse.
          let n = 0;
          if (b[i] === 0x5d) i++;
          else {
            for (;;) {
              i = field === FIELD_IDS ? this.stringOnly(b, i, end) : this.stringOrNull(b, i, end);
              if (i < 0 || i >= end) return -1;
              n++;
              const d = b[i];
              i++;
              if (d === 0x5d) break;
              if (d !== 0x2c) return -1;
            }
          }
          if (field === FIELD_IDS) idCount = n;
          else uriCount = n;
          break;
        }
        case FIELD_NUMBER_OR_NULL:
          if (startsWith(b, i, NULL, end)) i += 4;
          else i = this.number(b, i, end);
          break;
        case FIELD_COUNT:
          i = this.number(b, i, end);
          if (i >= 0 && !(Number.isInteger(this.value) && this.value >= 0)) return -1;
          break;
        case FIELD_RETRIEVED:
          // An array (of chunk objects) or null; the chunks' fields are checked when the
          // records are read.
          if (b[i] !== 0x5b && b[i] !== 0x6e) return -1;
          i = this.any(b, i, end, 0);
          break;
        case FIELD_TRIALS:
          // Given twice, the last would count: left to JSON.parse, as a trial's own trials are.
          if (inTrial || this.#trialsKey) return -1;
          this.#trialsKey = true;
          if (startsWith(b, i, NULL, end)) i += 4;
          else {
            this.#trialsRead = true;
            i = this.#trialList(b, i, end);
          }
          break;
        case FIELD_OTHER:
          i = this.any(b, i, end, 0);
          break;
        default:
          // id, question, status or scores again: the last one counts, as in JSON.parse.
          return -1;
      }
      if (i < 0) return -1;
    }
  }

  /**
   * A sample's `trials` array, each trial `{"status":…,"scores":{…},…}` as `save` writes it,
   * read into the trial tally: the index after its `]`, or -1.
   */
  #trialList(b: Buffer, i: number, end: number): number {
    if (b[i] !== 0x5b) return -1;
    i++;
    const tally = this.#trials;
    tally.start();
    if (b[i] === 0x5d) return i + 1;
    for (;;) {
      if (!startsWith(b, i, P_TRIAL_STATUS, end)) return -1;
      i = this.#statusAt(b, i + P_TRIAL_STATUS.length, end);
      if (i < 0 || !startsWith(b, i, P_SCORES, end)) return -1;
      const code = this.#status;
      const t = tally.add(code);
      i = this.#scores(b, i + P_SCORES.length, end, tally.scores, t, code === ERRORED, undefined);
      if (i < 0) return -1;
      i = this.#tail(b, i, end, true);
      if (i < 0 || i >= end) return -1;
      const d = b[i];
      i++;
      if (d === 0x5d) return i;
      if (d !== 0x2c) return -1;
    }
  }
}

/** Node's Buffer method behind `toString("latin1", …)`, without its argument checks. */
interface Latin1Slicing {
  latin1Slice(start: number, end: number): string;
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
