import {
  ByteInterner,
  type ByteLineParser,
  decodeField,
  FieldSplitter,
  grow,
  parseSimpleDecimal,
} from "../io/byte-lines.js";
import type { TopicField } from "../qa-dataset.js";
import { inputError, newRecord, setOwn } from "../records/problems.js";

/**
 * Parses TREC qrels (`qid iter docno rel`, whitespace-separated) from bytes, building each
 * query's judgments as they come: `relevance` (docno → grade, every grade kept, negative ones
 * included) and `relevantIds` (grade > 0, or ≥ `level` when given). Queries are in order of
 * first appearance; docnos are interned, so a docno judged for many queries is one string.
 *
 * Errors (thrown from `feed`): a line without exactly 4 fields, a non-numeric grade, or a docno
 * judged twice for one query; each a ConfigurationError naming the line and column.
 */
export class QrelsParser implements ByteLineParser {
  /** Query ids, in order of first appearance. */
  readonly qids: string[] = [];
  /** Per query: docno → grade. */
  readonly relevance: Record<string, number>[] = [];
  /** Per query: the relevant docnos, in file order. */
  readonly relevantIds: string[][] = [];
  /** Per query: the line it is first judged on, for messages about that query. */
  readonly firstLines: number[] = [];
  // Query ids by their bytes: a query's position in `qids` is its id here, found without
  // decoding the id or hashing a string (a Map of 10^5 fresh strings cost ~1 µs per query).
  private readonly queries = new ByteInterner();
  private readonly names = new ByteInterner();
  private readonly fields = new FieldSplitter(4);
  private readonly qid = new QidMatcher();
  // docno id → 1 + the last query that judged it: a duplicate check without a Set per query.
  private marker = new Int32Array(1024);
  private line = 0;
  private query = -1;
  // True when the current query was already judged before another one (a non-contiguous file):
  // the marker may then be stale, and the query's own record is checked instead.
  private reappeared = false;
  private record: Record<string, number> = {};
  private relevant: string[] = [];

  private readonly filter: QueryFilter | undefined;

  constructor(
    private readonly source: string,
    private readonly level: number | undefined,
    keep?: (qid: string) => boolean,
  ) {
    this.filter = keep === undefined ? undefined : new QueryFilter(keep);
  }

  get linesRead(): number {
    return this.line;
  }

  reserve(): void {}

  feed(bytes: Buffer, from: number, end: number, last: boolean): number {
    const f = this.fields;
    const filter = this.filter;
    let pos = from;
    while (pos < end) {
      if (filter !== undefined) {
        const skipped = filter.skipSame(bytes, pos, end, last);
        if (skipped === -1) break;
        if (skipped !== pos) {
          this.line++;
          pos = skipped;
          continue;
        }
      }
      const next = f.split(bytes, pos, end, last);
      if (next < 0) break;
      this.line++;
      if (
        f.count !== 0 &&
        (filter === undefined || filter.keeps(bytes, f.starts[0] as number, f.ends[0] as number))
      )
        this.judgment(bytes);
      pos = next;
    }
    return pos;
  }

  private judgment(bytes: Buffer): void {
    const f = this.fields;
    const count = f.count;
    if (count !== 4) {
      const where = `${this.source}: line ${this.line}`;
      const missing = ["qid", "iter", "docno", "rel"][count];
      throw inputError(
        count < 4 ? `${where}, column ${count + 1} (${missing})` : `${where}, column 5`,
        `expected 4 fields "qid iter docno rel", found ${count < 4 ? count : "more"}`,
      );
    }
    if (!this.qid.matches(bytes, f.starts[0] as number, f.ends[0] as number))
      this.switchQuery(bytes);
    let grade = parseSimpleDecimal(bytes, f.starts[3] as number, f.ends[3] as number);
    if (Number.isNaN(grade)) {
      const rel = f.text(bytes, 3);
      grade = Number(rel);
      if (!Number.isFinite(grade)) {
        throw inputError(
          `${this.source}: line ${this.line}, column 4 (rel)`,
          `expected a numeric grade, found ${JSON.stringify(rel)}`,
        );
      }
    }
    const id = this.names.intern(bytes, f.starts[2] as number, f.ends[2] as number);
    if (id >= this.marker.length) this.marker = grow(this.marker, this.marker.length * 2);
    const docno = this.names.strings[id] as string;
    const mark = this.query + 1;
    if (this.marker[id] === mark || (this.reappeared && Object.hasOwn(this.record, docno))) {
      throw inputError(
        `${this.source}: line ${this.line}, column 3 (docno)`,
        `document ${JSON.stringify(docno)} is judged twice for query ${JSON.stringify(this.qids[this.query])}`,
      );
    }
    this.marker[id] = mark;
    // setOwn, inlined: a store site of its own stays fast on these dictionary-mode records.
    setOwn(this.record, docno, grade);
    if (this.level === undefined ? grade > 0 : grade >= this.level) this.relevant.push(docno);
  }

  private switchQuery(bytes: Buffer): void {
    const f = this.fields;
    const start = f.starts[0] as number;
    const end = f.ends[0] as number;
    this.qid.remember(bytes, start, end);
    const q = this.queries.intern(bytes, start, end);
    this.reappeared = q < this.qids.length;
    if (!this.reappeared) {
      this.qids.push(this.queries.strings[q] as string);
      this.relevance.push(newRecord());
      this.relevantIds.push([]);
      this.firstLines.push(this.line);
    }
    this.query = q;
    this.record = this.relevance[q] as Record<string, number>;
    this.relevant = this.relevantIds[q] as string[];
  }
}

/** A parsed run, as {@link RunParser} leaves it after `finish`: what a TrecRun is built from. */
export interface RunColumns {
  readonly tag: string | undefined;
  readonly index: ReadonlyMap<string, number>;
  readonly qids: readonly string[];
  readonly starts: Int32Array;
  readonly docIds: Int32Array;
  readonly scores: Float64Array;
  readonly names: readonly string[];
}

/**
 * Three fields are MS MARCO's own run format, `qid<TAB>pid<TAB>rank`: say how to write it as a
 * TREC run, with a score that keeps its ranks' order (trec_eval orders by score).
 */
const MSMARCO_RUN_HINT = `; "qid pid rank" lines are MS MARCO's run format, which is not read: convert it to a TREC run, e.g. awk '{print $1, "Q0", $2, $3, -$3, "run"}' run.tsv > run.trec`;

/**
 * Parses a TREC run (`qid Q0 docno rank score tag`) from bytes into flat columns, then orders
 * each query's documents as trec_eval does (see {@link RunParser.finish}). Fields after the sixth
 * are ignored, as trec_eval ignores them; so is the rank column.
 *
 * Errors (thrown from `feed`): a line with fewer than 6 fields, a non-numeric score or a
 * document listed twice for one query (trec_eval refuses those too).
 */
export class RunParser implements ByteLineParser {
  /** Query ids, in order of first appearance. */
  readonly qids: string[] = [];
  /** Query id → its position in `qids`. */
  readonly index: Map<string, number> = new Map();
  /** The docnos: `docIds` index into its `strings`. */
  readonly names: ByteInterner = new ByteInterner();
  /** The run tag of the first line. */
  tag: string | undefined;
  /** Per entry: the docno's id in `names`. After `finish`, grouped by query in trec order. */
  docIds: Int32Array = new Int32Array(0);
  /** Per entry: the score as read. */
  scores: Float64Array = new Float64Array(0);
  /** After `finish`: query q's entries are [starts[q], starts[q + 1]). */
  starts: Int32Array = new Int32Array(1);
  private n = 0;
  private readonly fields = new FieldSplitter(6);
  private readonly qid = new QidMatcher();
  // Runs of consecutive lines of one query: usually one per query.
  private readonly segmentQuery: number[] = [];
  private readonly segmentStart: number[] = [];
  private marker = new Int32Array(1024);
  private line = 0;
  private query = -1;
  // For queries whose lines are not contiguous, the documents seen so far (the marker may be
  // stale for them); `undefined` for the current query when it is contiguous so far.
  private split: Map<number, Set<number>> | undefined;
  private seen: Set<number> | undefined;

  private readonly filter: QueryFilter | undefined;

  constructor(
    private readonly source: string,
    keep?: (qid: string) => boolean,
  ) {
    this.filter = keep === undefined ? undefined : new QueryFilter(keep);
  }

  /** The parsed run, after `finish`. */
  columns(): RunColumns {
    return {
      tag: this.tag,
      index: this.index,
      qids: this.qids,
      starts: this.starts,
      docIds: this.docIds,
      scores: this.scores,
      names: this.names.strings,
    };
  }

  get linesRead(): number {
    return this.line;
  }

  reserve(bytes: number): void {
    // A line is at least 12 bytes ("q Q0 d 1 1 t\n" without the rank's and score's width), so
    // a file's own size never needs more; untouched pages cost nothing. (`entry` still grows the
    // columns for input whose size was not known: a pipe, a file growing as it is read.)
    const capacity = Math.floor(bytes / 11) + 1;
    this.docIds = new Int32Array(capacity);
    this.scores = new Float64Array(capacity);
  }

  feed(bytes: Buffer, from: number, end: number, last: boolean): number {
    const f = this.fields;
    const filter = this.filter;
    let pos = from;
    while (pos < end) {
      if (filter !== undefined) {
        const skipped = filter.skipSame(bytes, pos, end, last);
        if (skipped === -1) break;
        if (skipped !== pos) {
          this.line++;
          pos = skipped;
          continue;
        }
      }
      const next = f.split(bytes, pos, end, last);
      if (next < 0) break;
      this.line++;
      if (f.count !== 0) {
        if (filter === undefined || filter.keeps(bytes, f.starts[0] as number, f.ends[0] as number))
          this.entry(bytes);
        // The run's tag is the first line's, kept or not.
        else if (this.tag === undefined && f.count >= 6) this.tag = f.text(bytes, 5);
      }
      pos = next;
    }
    return pos;
  }

  private entry(bytes: Buffer): void {
    const f = this.fields;
    const count = f.count;
    if (count < 6) {
      throw inputError(
        `${this.source}: line ${this.line}, column ${count + 1} (${RUN_FIELDS[count]})`,
        `expected 6 fields "qid Q0 docno rank score tag", found ${count}` +
          (count === 3 ? MSMARCO_RUN_HINT : ""),
      );
    }
    let score = parseSimpleDecimal(bytes, f.starts[4] as number, f.ends[4] as number);
    if (Number.isNaN(score)) {
      const raw = f.text(bytes, 4);
      score = Number(raw);
      if (!Number.isFinite(score)) {
        throw inputError(
          `${this.source}: line ${this.line}, column 5 (score)`,
          `expected a number, found ${JSON.stringify(raw)}`,
        );
      }
    }
    this.tag ??= f.text(bytes, 5);
    if (!this.qid.matches(bytes, f.starts[0] as number, f.ends[0] as number))
      this.switchQuery(bytes);
    const id = this.names.intern(bytes, f.starts[2] as number, f.ends[2] as number);
    if (id >= this.marker.length) this.marker = grow(this.marker, this.marker.length * 2);
    const mark = this.query + 1;
    const seen = this.seen;
    if (this.marker[id] === mark || seen?.has(id) === true) {
      throw inputError(
        `${this.source}: line ${this.line}, column 3 (docno)`,
        `document ${JSON.stringify(this.names.strings[id])} is listed twice for query ${JSON.stringify(this.qids[this.query])}`,
      );
    }
    this.marker[id] = mark;
    seen?.add(id);
    const n = this.n;
    if (n === this.docIds.length) {
      // More lines than `reserve` expected (a pipe reports size 0; a file may grow while read).
      const length = Math.max(1024, n * 2);
      this.docIds = grow(this.docIds, length);
      this.scores = grow(this.scores, length);
    }
    this.docIds[n] = id;
    this.scores[n] = score;
    this.n = n + 1;
  }

  private switchQuery(bytes: Buffer): void {
    const f = this.fields;
    const qid = f.text(bytes, 0);
    this.qid.remember(bytes, f.starts[0] as number, f.ends[0] as number);
    let q = this.index.get(qid);
    this.seen = undefined;
    if (q === undefined) {
      q = this.qids.length;
      this.index.set(qid, q);
      this.qids.push(qid);
    } else {
      // The query's lines resume after another query's: track its documents in a Set.
      this.split ??= new Map();
      let seen = this.split.get(q);
      if (seen === undefined) {
        seen = new Set();
        for (let s = 0; s < this.segmentQuery.length; s++) {
          if (this.segmentQuery[s] !== q) continue;
          const stop =
            s + 1 < this.segmentStart.length ? (this.segmentStart[s + 1] as number) : this.n;
          for (let k = this.segmentStart[s] as number; k < stop; k++)
            seen.add(this.docIds[k] as number);
        }
        this.split.set(q, seen);
      }
      this.seen = seen;
    }
    this.query = q;
    this.segmentQuery.push(q);
    this.segmentStart.push(this.n);
  }

  /**
   * Groups the entries by query and orders each query as trec_eval does: by score descending,
   * compared as single-precision floats (trec_eval keeps scores as C floats, so scores equal as
   * floats tie even when their doubles differ), ties broken by docno descending in strcmp order.
   */
  finish(): void {
    const queries = this.qids.length;
    const n = this.n;
    const starts = new Int32Array(queries + 1);
    if (this.split === undefined) {
      for (let q = 0; q < queries; q++) starts[q] = this.segmentStart[q] as number;
      starts[queries] = n;
    } else {
      this.regroup(starts);
    }
    this.starts = starts;
    const names = this.names.strings;
    let longest = 0;
    for (let q = 0; q < queries; q++)
      longest = Math.max(longest, (starts[q + 1] as number) - (starts[q] as number));
    const sorter = new RankSorter(longest);
    for (let q = 0; q < queries; q++) {
      sorter.sort(this.docIds, this.scores, names, starts[q] as number, starts[q + 1] as number);
    }
  }

  private regroup(starts: Int32Array): void {
    const queries = this.qids.length;
    const segments = this.segmentQuery.length;
    const n = this.n;
    for (let s = 0; s < segments; s++) {
      const stop = s + 1 < segments ? (this.segmentStart[s + 1] as number) : n;
      const q = (this.segmentQuery[s] as number) + 1;
      starts[q] = (starts[q] as number) + stop - (this.segmentStart[s] as number);
    }
    for (let q = 0; q < queries; q++)
      starts[q + 1] = (starts[q + 1] as number) + (starts[q] as number);
    const at = starts.slice(0, queries);
    const docIds = new Int32Array(n);
    const scores = new Float64Array(n);
    for (let s = 0; s < segments; s++) {
      const q = this.segmentQuery[s] as number;
      const stop = s + 1 < segments ? (this.segmentStart[s + 1] as number) : n;
      for (let k = this.segmentStart[s] as number; k < stop; k++) {
        const to = at[q] as number;
        at[q] = to + 1;
        docIds[to] = this.docIds[k] as number;
        scores[to] = this.scores[k] as number;
      }
    }
    this.docIds = docIds;
    this.scores = scores;
  }
}

const RUN_FIELDS = ["qid", "Q0", "docno", "rank", "score", "tag"];

/**
 * The `queries` option of the TREC loaders: which lines belong to a query the caller keeps, by
 * their first field; `keep` is asked once per distinct query id, in order of first appearance,
 * and its answer holds for every line of that query. A rejected line is split into fields (to
 * find where it ends) but nothing else of it is read or checked.
 */
class QueryFilter {
  private readonly decisions = new Map<string, boolean>();
  private readonly last = new QidMatcher();
  private kept = true;

  constructor(private readonly keep: (qid: string) => boolean) {}

  /** Whether the line whose query id is bytes [start, end) belongs to a kept query. */
  keeps(bytes: Buffer, start: number, end: number): boolean {
    if (!this.last.matches(bytes, start, end)) {
      this.last.remember(bytes, start, end);
      const qid = decodeField(bytes, start, end);
      let kept = this.decisions.get(qid);
      if (kept === undefined) {
        kept = this.keep(qid) === true;
        this.decisions.set(qid, kept);
      }
      this.kept = kept;
    }
    return this.kept;
  }

  /**
   * After a line of a rejected query, where the next line starts when the line at `from` belongs
   * to that same query: it is skipped without being split into fields. Otherwise `from` (the
   * parser reads the line as usual), or -1 when the line does not end before `end` and `last`
   * is false.
   */
  skipSame(bytes: Buffer, from: number, end: number, last: boolean): number {
    if (this.kept || !this.last.startsLine(bytes, from, end)) return from;
    let j = from;
    while (j < end && bytes[j] !== 10) j++;
    if (j < end) return j + 1;
    return last ? end : -1;
  }
}

/** Remembers the bytes of the last query id, so a line of the same query costs no string. */
class QidMatcher {
  private bytes = new Uint8Array(64);
  private length = -1;

  matches(source: Uint8Array, start: number, end: number): boolean {
    const length = end - start;
    if (length !== this.length) return false;
    const bytes = this.bytes;
    for (let i = 0; i < length; i++) if (bytes[i] !== source[start + i]) return false;
    return true;
  }

  /** Whether the line at `from` starts with the remembered id, then a space or a tab. */
  startsLine(source: Uint8Array, from: number, end: number): boolean {
    const length = this.length;
    if (length < 0 || from + length >= end) return false;
    const bytes = this.bytes;
    for (let i = 0; i < length; i++) if (bytes[i] !== source[from + i]) return false;
    const c = source[from + length];
    return c === 32 || c === 9;
  }

  remember(source: Uint8Array, start: number, end: number): void {
    const length = end - start;
    if (length > this.bytes.length) this.bytes = new Uint8Array(length * 2);
    const bytes = this.bytes;
    for (let i = 0; i < length; i++) bytes[i] = source[start + i] as number;
    this.length = length;
  }
}

/**
 * Sorts one query's entries into trec_eval's order, in place in the parallel columns: insertion
 * sort for short rankings; otherwise a native sort of numeric keys (float order, then position),
 * then each run of equal floats by docno (insertion sort for short runs, a comparator sort for
 * long ones, so a ranking of thousands of tied scores stays O(n log n)). Scratch space is allocated once, for
 * the longest query.
 */
class RankSorter {
  private readonly keys: Float64Array;
  private view: Float64Array = new Float64Array(0);
  private readonly ids: Int32Array;
  private readonly values: Float64Array;

  constructor(longest: number) {
    this.keys = new Float64Array(longest);
    this.ids = new Int32Array(longest);
    this.values = new Float64Array(longest);
  }

  sort(
    docIds: Int32Array,
    scores: Float64Array,
    names: readonly string[],
    from: number,
    to: number,
  ): void {
    const length = to - from;
    // Runs are usually written in rank order already: one pass confirms it.
    let sorted = true;
    for (let i = from + 1; i < to; i++) {
      if (
        ranksBefore(
          names,
          docIds[i] as number,
          scores[i] as number,
          docIds[i - 1] as number,
          scores[i - 1] as number,
        )
      ) {
        sorted = false;
        break;
      }
    }
    if (sorted) return;
    if (length <= 16) {
      insertionSort(docIds, scores, names, from, to);
      return;
    }
    if (length >= POSITION_SPAN) {
      comparatorSort(docIds, scores, names, from, to);
      return;
    }
    // A native numeric sort of packed keys: the float's order (descending) above the position.
    // Exact in a double: 32 bits of float order × 2^20 positions < 2^53.
    // Queries mostly share one length: the view of that length is made once, not per query.
    if (this.view.length !== length) this.view = this.keys.subarray(0, length);
    const keys = this.view;
    for (let i = 0; i < length; i++) {
      keys[i] = (0xffffffff - floatOrder(scores[from + i] as number)) * POSITION_SPAN + i;
    }
    keys.sort();
    const ids = this.ids;
    const values = this.values;
    for (let i = 0; i < length; i++) {
      // Division by a power of two is exact; `%` on doubles would be a slow fmod.
      const key = keys[i] as number;
      const high = Math.floor(key / POSITION_SPAN);
      const k = from + (key - high * POSITION_SPAN);
      keys[i] = high;
      ids[i] = docIds[k] as number;
      values[i] = scores[k] as number;
    }
    docIds.set(ids.subarray(0, length), from);
    scores.set(values.subarray(0, length), from);
    // Equal floats are now adjacent, in file order: order each such run by docno.
    let start = 0;
    for (let i = 1; i <= length; i++) {
      if (i === length || keys[i] !== keys[start]) {
        const run = i - start;
        if (run > 16) comparatorSort(docIds, scores, names, from + start, from + i);
        else if (run > 1) insertionSort(docIds, scores, names, from + start, from + i);
        start = i;
      }
    }
  }
}

// Positions within one query take the low 20 bits of a sort key; longer queries (never seen in
// practice) are sorted with a comparator.
const POSITION_SPAN = 1 << 20;
const FLOAT = new Float32Array(1);
const FLOAT_BITS = new Uint32Array(FLOAT.buffer);

/** The single-precision float of `score` as a uint32 that sorts as the float does (−0 = +0). */
function floatOrder(score: number): number {
  FLOAT[0] = score;
  let bits = FLOAT_BITS[0] as number;
  // −0 as a float: a −0 double, or a tiny negative score that rounds to it (−1e-50).
  if (bits === 0x80000000) bits = 0;
  return bits >= 0x80000000 ? ~bits >>> 0 : (bits | 0x80000000) >>> 0;
}

function comparatorSort(
  docIds: Int32Array,
  scores: Float64Array,
  names: readonly string[],
  from: number,
  to: number,
): void {
  const order: number[] = [];
  for (let i = from; i < to; i++) order.push(i);
  order.sort((x, y) =>
    ranksBefore(
      names,
      docIds[x] as number,
      scores[x] as number,
      docIds[y] as number,
      scores[y] as number,
    )
      ? -1
      : 1,
  );
  const ids = Int32Array.from(order, (k) => docIds[k] as number);
  const values = Float64Array.from(order, (k) => scores[k] as number);
  docIds.set(ids, from);
  scores.set(values, from);
}

function insertionSort(
  docIds: Int32Array,
  scores: Float64Array,
  names: readonly string[],
  from: number,
  to: number,
): void {
  for (let i = from + 1; i < to; i++) {
    const id = docIds[i] as number;
    const score = scores[i] as number;
    let j = i - 1;
    while (j >= from && ranksBefore(names, id, score, docIds[j] as number, scores[j] as number)) {
      docIds[j + 1] = docIds[j] as number;
      scores[j + 1] = scores[j] as number;
      j--;
    }
    docIds[j + 1] = id;
    scores[j + 1] = score;
  }
}

/** True when entry (a, scoreA) ranks before (b, scoreB) in trec_eval's order. */
function ranksBefore(
  names: readonly string[],
  a: number,
  scoreA: number,
  b: number,
  scoreB: number,
): boolean {
  const x = Math.fround(scoreA);
  const y = Math.fround(scoreB);
  if (x !== y) return x > y;
  return compareStrcmp(names[a] as string, names[b] as string) > 0;
}

/** Byte-wise (strcmp) comparison of two strings, as trec_eval compares docnos. */
export function compareStrcmp(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Below the surrogates, UTF-16 code unit order is UTF-8 byte order.
    if (x < 0xd800 && y < 0xd800) return x - y;
    return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
  }
  return a.length - b.length;
}

/**
 * Parses TREC topics: the SGML format (`<top> <num> Number: 301 <title> … <desc> …`), or one
 * topic per line as `qid<TAB>text` (a query TSV, e.g. MS MARCO's `queries.tsv`).
 *
 * @throws ConfigurationError for a topic without a number or the chosen field, a line without a
 *   tab-separated text, or a topic number given twice.
 */
export function parseTopics(
  text: string,
  source: string,
  field: TopicField = "title",
): Map<string, string> {
  const topics = new Map<string, string>();
  if (/<top>/i.test(text)) {
    const blocks = text.split(/<top>/i).slice(1);
    const tag = { title: "title", description: "desc", narrative: "narr" }[field];
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b]!.split(/<\/top>/i)[0]!;
      const where = `${source}: topic ${b + 1}`;
      const num = sgmlField(block, "num")?.replace(/^Number:\s*/i, "");
      if (num === undefined || num.length === 0)
        throw inputError(where, "expected a <num> field with the topic number");
      let value = sgmlField(block, tag);
      if (value !== undefined) value = value.replace(/^(Topic|Description|Narrative):\s*/i, "");
      if (value === undefined || value.length === 0) {
        throw inputError(`${where} (${num})`, `expected a non-empty <${tag}> field`);
      }
      if (topics.has(num)) throw inputError(`${where}`, `topic ${num} is given twice`);
      topics.set(num, value);
    }
    return topics;
  }
  const lines = text.split("\n");
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!.replace(/\r$/, "");
    if (line.trim().length === 0) continue;
    const tab = line.indexOf("\t");
    const where = `${source}: line ${n + 1}`;
    if (tab <= 0 || line.slice(tab + 1).trim().length === 0) {
      throw inputError(
        `${where}, column ${tab <= 0 ? 1 : 2}`,
        'expected "qid<TAB>topic text" (or SGML <top> topics)' +
          (/<topics?\b/i.test(text)
            ? `; XML topics (<topic number="…">, as TREC Web and TREC-COVID write them) are not read: write each as a "qid<TAB>text" line`
            : ""),
      );
    }
    const qid = line.slice(0, tab).trim();
    if (topics.has(qid)) throw inputError(where, `topic ${qid} is given twice`);
    topics.set(qid, line.slice(tab + 1).trim());
  }
  return topics;
}

function sgmlField(block: string, tag: string): string | undefined {
  const match = new RegExp(`<${tag}>([\\s\\S]*?)(?=<[a-z/]|$)`, "i").exec(block);
  return match === null ? undefined : match[1]!.replace(/\s+/g, " ").trim();
}
