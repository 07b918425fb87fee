import {
  ByteSet,
  copyBytes,
  grow,
  hashBytes,
  parseSimpleDecimal,
} from "@fastrag/bench-datasets/internal";
import { JudgmentTable, type QrelsColumns } from "./eval-qrels-columns.js";
import {
  fieldEnd,
  HandOver,
  type LineFeeder,
  lineEnd,
  otherNumber,
  spaceEnd,
} from "./eval-read.js";

// `eval`'s columnar path: the run streamed one query at a time, each query's documents put in
// trec_eval's order and joined with its judgments (see eval-columns.ts for the whole path).

// Both parsers scan each line once, field by field, as the loaders split it (whitespace: space,
// tab, CR, vertical tab, form feed); `readLines` ends every line with a "\n", so the scans stop
// there without checking the end of the buffer.

/**
 * One query's ranking, joined with its judgments rank by rank: what {@link RunReader} hands to
 * its `onQuery` callback. The arrays are buffers reused from query to query; only the first
 * `length` entries belong to it.
 */
export interface JoinedRanking {
  /** The query's number in the qrels. */
  readonly query: number;
  /** The number of ranks. */
  readonly length: number;
  /** Per rank: 1 when its document is relevant (grade > 0, or ≥ the `-l` level), else 0. */
  readonly relevant: Uint8Array;
  /** Per rank: its document's grade when judged and > 0, else 0 (nDCG's gain). */
  readonly gains: Float64Array;
}

/**
 * Streams a TREC run (`qid Q0 docno rank score tag`), one query at a time: each query's documents
 * are ordered as trec_eval orders them (score descending compared as single-precision floats,
 * ties by docno descending in strcmp order, the rank column ignored) and joined with the qrels'
 * judgments, and each query the qrels judge is handed to `onQuery` once its last line is read.
 * The run's other queries are read and checked as the datasets package's loader checks them, but
 * not scored. A query whose lines are not contiguous is a {@link HandOver} (the record path
 * regroups it).
 */
export class RunReader implements LineFeeder {
  /** Every query id the run has given lines to (a second start of one is a HandOver). */
  private readonly seen = new ByteSet();
  /** Per qrels query: 1 when the run has lines for it. */
  readonly inRun: Uint8Array;
  // The current query: its id's bytes, and its qrels number (-1: not judged, or none yet).
  private idBytes = new Uint8Array(64);
  private idLength = -1;
  private query = -1;
  private readonly judged = new JudgmentTable();
  // The current query's documents, in file order.
  private n = 0;
  private scores = new Float32Array(256);
  private grades = new Float64Array(256);
  private hashes = new Int32Array(256);
  private docStart = new Int32Array(257);
  private pool = new Uint8Array(1 << 12);
  // Duplicate docnos within the current query: an open-addressing table of document positions,
  // stamped per query instead of cleared.
  private stamps = new Int32Array(512);
  private positions = new Int32Array(512);
  private stamp = 1;
  // The ordering, and the joined ranking handed out.
  private order = new Int32Array(256);
  private readonly joined: {
    query: number;
    length: number;
    relevant: Uint8Array;
    gains: Float64Array;
  } = { query: -1, length: 0, relevant: new Uint8Array(256), gains: new Float64Array(256) };

  constructor(
    private readonly qrels: QrelsColumns,
    private readonly level: number | undefined,
    private readonly onQuery: (ranking: JoinedRanking) => void,
  ) {
    this.inRun = new Uint8Array(qrels.queries.size);
    let longest = 0;
    for (let q = 0; q < qrels.queries.size; q++)
      longest = Math.max(longest, (qrels.start[q + 1] as number) - (qrels.start[q] as number));
    this.judged.reserve(longest);
  }

  // One function, the per-document work inline and the buffers in locals: a hot loop (see
  // docs/decisions/eval-reading.md).
  feed(bytes: Buffer, from: number, end: number): void {
    let i = from;
    let id = this.idBytes;
    let idLength = this.idLength;
    while (i < end) {
      i = spaceEnd(bytes, i);
      if (bytes[i] === 10) {
        i++;
        continue;
      }
      const q0 = i;
      const q1 = fieldEnd(bytes, q0);
      const d0 = spaceEnd(bytes, fieldEnd(bytes, spaceEnd(bytes, q1))); // past Q0
      const d1 = fieldEnd(bytes, d0);
      const s0 = spaceEnd(bytes, fieldEnd(bytes, spaceEnd(bytes, d1))); // past the rank
      const s1 = fieldEnd(bytes, s0);
      const t0 = spaceEnd(bytes, s1);
      // At least 6 fields: the tag must start before the line ends (fields after it are ignored).
      if (bytes[t0] === 10) throw new HandOver("a run line with fewer than 6 fields");
      // The plain decimal form straight from the bytes, any other through Number(); called here,
      // not through a helper (why: docs/decisions/datasets-house.md).
      let score = parseSimpleDecimal(bytes, s0, s1);
      if (Number.isNaN(score)) score = otherNumber(bytes, s0, s1);
      if (Number.isNaN(score)) throw new HandOver("a run score that is not a number");
      let same = q1 - q0 === idLength;
      for (let k = 0; same && k < idLength; k++) same = id[k] === bytes[q0 + k];
      if (!same) {
        this.switchQuery(bytes, q0, q1);
        id = this.idBytes;
        idLength = this.idLength;
      }
      // The document: its hash, a check that the query does not list it twice, its bytes kept
      // for the tie order, and its judgment looked up.
      let h = -2128831035;
      for (let k = d0; k < d1; k++) h = Math.imul(h ^ (bytes[k] as number), 16777619);
      const n = this.n;
      if (n + 1 >= this.scores.length) this.growDocuments();
      const stamps = this.stamps;
      const mask = stamps.length - 1;
      const mark = this.stamp;
      let slot = h & mask;
      while (stamps[slot] === mark) {
        if (this.sameDocument(this.positions[slot] as number, h, bytes, d0, d1))
          throw new HandOver("a document listed twice for a query");
        slot = (slot + 1) & mask;
      }
      stamps[slot] = mark;
      this.positions[slot] = n;
      const docStart = this.docStart;
      const at = docStart[n] as number;
      const stop = at + d1 - d0;
      if (stop > this.pool.length)
        this.pool = grow(this.pool, Math.max(stop, this.pool.length * 2));
      const pool = this.pool;
      for (let k = d0; k < d1; k++) pool[at + k - d0] = bytes[k] as number;
      docStart[n + 1] = stop;
      this.hashes[n] = h;
      this.scores[n] = score;
      let grade = Number.NaN;
      if (this.query >= 0) {
        const j = this.judged.find(this.qrels, bytes, d0, d1, h);
        if (j >= 0) grade = this.qrels.grade[j] as number;
      }
      this.grades[n] = grade;
      this.n = n + 1;
      i = lineEnd(bytes, t0) + 1;
    }
  }

  private sameDocument(
    i: number,
    h: number,
    bytes: Uint8Array,
    start: number,
    end: number,
  ): boolean {
    if (this.hashes[i] !== h) return false;
    const at = this.docStart[i] as number;
    const length = end - start;
    if ((this.docStart[i + 1] as number) - at !== length) return false;
    const pool = this.pool;
    for (let k = 0; k < length; k++) if (pool[at + k] !== bytes[start + k]) return false;
    return true;
  }

  private switchQuery(bytes: Buffer, start: number, end: number): void {
    this.finishQuery();
    const h = hashBytes(bytes, start, end);
    if (this.seen.find(bytes, start, end, h) >= 0)
      throw new HandOver("a run whose query's lines are not contiguous");
    this.seen.add(bytes, start, end, h);
    const length = end - start;
    if (length > this.idBytes.length) this.idBytes = new Uint8Array(length * 2);
    copyBytes(bytes, start, end, this.idBytes, 0);
    this.idLength = length;
    const qrels = this.qrels;
    const q = qrels.queries.find(bytes, start, end, h);
    this.query = q;
    if (q >= 0) {
      this.inRun[q] = 1;
      const judged = this.judged;
      judged.clear();
      for (let k = qrels.start[q] as number; k < (qrels.start[q + 1] as number); k++) {
        const j = qrels.order[k] as number;
        judged.insert(j, qrels.docHash[j] as number);
      }
    }
    this.n = 0;
    this.docStart[0] = 0;
    if (this.stamp === 0x7fffffff) {
      this.stamps.fill(0);
      this.stamp = 0;
    }
    this.stamp++;
  }

  private growDocuments(): void {
    const length = this.scores.length * 2;
    this.scores = grow(this.scores, length);
    this.grades = grow(this.grades, length);
    this.hashes = grow(this.hashes, length);
    this.docStart = grow(this.docStart, length + 1);
    // The duplicate table keeps at most half its slots filled; rebuilt from the documents so far.
    const size = length * 2;
    this.stamps = new Int32Array(size);
    this.positions = new Int32Array(size);
    this.stamp = 1;
    const mask = size - 1;
    for (let i = 0; i < this.n; i++) {
      let slot = (this.hashes[i] as number) & mask;
      while (this.stamps[slot] === 1) slot = (slot + 1) & mask;
      this.stamps[slot] = 1;
      this.positions[slot] = i;
    }
  }

  /** Hands out the last query: call once the whole run has been fed. */
  finish(): void {
    this.finishQuery();
  }

  /** Orders the current query's documents, joins them with the judgments, hands them out. */
  private finishQuery(): void {
    const q = this.query;
    const n = this.n;
    this.n = 0;
    this.query = -1;
    if (q < 0) return;
    const joined = this.joined;
    if (joined.relevant.length < n) {
      joined.relevant = new Uint8Array(n * 2);
      joined.gains = new Float64Array(n * 2);
    }
    if (this.order.length < n) this.order = new Int32Array(n * 2);
    const order = this.order;
    for (let i = 0; i < n; i++) order[i] = i;
    this.sort(n);
    const relevant = joined.relevant;
    const gains = joined.gains;
    const grades = this.grades;
    const level = this.level;
    for (let r = 0; r < n; r++) {
      const g = grades[order[r] as number] as number;
      // NaN (unjudged) fails every comparison: neither relevant nor a gain. (Not Math.max, which
      // would keep the NaN.)
      relevant[r] = (level === undefined ? g > 0 : g >= level) ? 1 : 0;
      // biome-ignore lint/complexity/useMathMinMax: NaN must give 0
      gains[r] = g > 0 ? g : 0;
    }
    joined.query = q;
    joined.length = n;
    this.onQuery(joined);
  }

  /** True when document a ranks before document b in trec_eval's order. */
  private before(a: number, b: number): boolean {
    const x = this.scores[a] as number;
    const y = this.scores[b] as number;
    if (x !== y) return x > y;
    // Equal floats: docno descending, byte by byte (strcmp order; the bytes are valid UTF-8).
    const pool = this.pool;
    const aStart = this.docStart[a] as number;
    const aLength = (this.docStart[a + 1] as number) - aStart;
    const bStart = this.docStart[b] as number;
    const bLength = (this.docStart[b + 1] as number) - bStart;
    const m = Math.min(aLength, bLength);
    for (let k = 0; k < m; k++) {
      const c = pool[aStart + k] as number;
      const d = pool[bStart + k] as number;
      if (c !== d) return c > d;
    }
    return aLength > bLength;
  }

  /**
   * Sorts `order[0..n)` into trec_eval's order. A run is mostly written in that order already but
   * for tied scores, so an insertion sort does it in about n steps; past 8n moves (a shuffled
   * query) the rest is sorted by a comparator. Docnos are distinct within a query, so the order
   * is total and every algorithm gives the same one.
   */
  private sort(n: number): void {
    const order = this.order;
    let moves = 0;
    const budget = 8 * n + 64;
    for (let i = 1; i < n; i++) {
      const v = order[i] as number;
      let j = i - 1;
      while (j >= 0 && this.before(v, order[j] as number)) {
        order[j + 1] = order[j] as number;
        j--;
        if (++moves > budget) {
          order[j + 1] = v;
          const rest = Array.from(order.subarray(0, n));
          rest.sort((a, b) => (this.before(a, b) ? -1 : 1));
          for (let k = 0; k < n; k++) order[k] = rest[k] as number;
          return;
        }
      }
      order[j + 1] = v;
    }
  }
}
