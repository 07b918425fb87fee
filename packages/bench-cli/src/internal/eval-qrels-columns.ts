import {
  ByteSet,
  copyBytes,
  grow,
  hashBytes,
  parseSimpleDecimal,
  QidMatcher,
} from "@fastrag/bench-datasets/internal";
import { fieldEnd, HandOver, type LineFeeder, otherNumber, spaceEnd } from "./eval-read.js";

// `eval`'s columnar path: the qrels read into flat per-judgment columns, then grouped by query
// (see eval-columns.ts for the whole path).

// Both parsers scan each line once, field by field, as the loaders split it (whitespace: space,
// tab, CR, vertical tab, form feed); `readLines` ends every line with a "\n", so the scans stop
// there without checking the end of the buffer.

/**
 * TREC qrels (`qid iter docno rel`) as columns: the queries in order of first appearance, and
 * per judgment its query, grade and docno bytes; after {@link QrelsColumns.group}, the judgments
 * of each query together.
 */
export class QrelsColumns implements LineFeeder {
  /** The query ids, in order of first appearance. */
  readonly queries: ByteSet = new ByteSet();
  /** Judgments: `count` of them, in file order. */
  count = 0;
  query: Int32Array = new Int32Array(1 << 12);
  grade: Float64Array = new Float64Array(1 << 12);
  docHash: Int32Array = new Int32Array(1 << 12);
  docStart: Int32Array = new Int32Array((1 << 12) + 1);
  pool: Uint8Array = new Uint8Array(1 << 16);
  /** After `group`: the judgments of query q are `order[start[q] … start[q+1])`. */
  order: Int32Array = new Int32Array(0);
  start: Int32Array = new Int32Array(1);
  // The last line's query id: consecutive lines of one query skip the query look-up.
  private readonly lastId = new QidMatcher();
  private lastQuery = -1;

  /** Makes room for `n` judgments (more still grow the columns). */
  reserve(n: number): void {
    if (n <= this.query.length || this.count > 0) return;
    this.query = new Int32Array(n + 1);
    this.grade = new Float64Array(n + 1);
    this.docHash = new Int32Array(n + 1);
    this.docStart = new Int32Array(n + 2);
    this.pool = new Uint8Array(Math.max(this.pool.length, n * 8));
  }

  feed(bytes: Buffer, from: number, end: number): void {
    let i = from;
    while (i < end) {
      i = spaceEnd(bytes, i);
      if (bytes[i] === 10) {
        i++;
        continue;
      }
      const q0 = i;
      const q1 = fieldEnd(bytes, q0);
      const t0 = spaceEnd(bytes, q1); // iter
      const d0 = spaceEnd(bytes, fieldEnd(bytes, t0));
      const d1 = fieldEnd(bytes, d0);
      const g0 = spaceEnd(bytes, d1);
      const g1 = fieldEnd(bytes, g0);
      const after = spaceEnd(bytes, g1);
      // Exactly 4 fields: the 4th must end the line.
      if (g1 === g0 || bytes[after] !== 10) throw new HandOver("a qrels line without 4 fields");
      // Grades are mostly one digit.
      const c = bytes[g0] as number;
      let grade = g1 === g0 + 1 && c >= 48 && c <= 57 ? c - 48 : parseSimpleDecimal(bytes, g0, g1);
      if (Number.isNaN(grade)) grade = otherNumber(bytes, g0, g1);
      if (Number.isNaN(grade)) throw new HandOver("a qrels grade that is not a number");
      this.add(bytes, d0, d1, this.queryOf(bytes, q0, q1), grade);
      i = after + 1;
    }
  }

  private queryOf(bytes: Buffer, start: number, end: number): number {
    if (this.lastId.matches(bytes, start, end)) return this.lastQuery;
    const h = hashBytes(bytes, start, end);
    let q = this.queries.find(bytes, start, end, h);
    if (q < 0) q = this.queries.add(bytes, start, end, h);
    this.lastId.remember(bytes, start, end);
    this.lastQuery = q;
    return q;
  }

  private add(bytes: Uint8Array, start: number, end: number, q: number, grade: number): void {
    const j = this.count;
    if (j + 1 >= this.query.length) {
      const length = this.query.length * 2;
      this.query = grow(this.query, length);
      this.grade = grow(this.grade, length);
      this.docHash = grow(this.docHash, length);
      this.docStart = grow(this.docStart, length + 1);
    }
    const at = this.docStart[j] as number;
    const stop = at + end - start;
    if (stop > this.pool.length) this.pool = grow(this.pool, Math.max(stop, this.pool.length * 2));
    copyBytes(bytes, start, end, this.pool, at);
    this.docStart[j + 1] = stop;
    this.docHash[j] = hashBytes(bytes, start, end);
    this.query[j] = q;
    this.grade[j] = grade;
    this.count = j + 1;
  }

  /**
   * Groups the judgments by query (in file order within each), checks that no docno is judged
   * twice for one query (a HandOver: the loader refuses it) with a small table per query rather
   * than one over every judgment, and returns what each query's rankings are scored against.
   * `level` is `-l`: the lowest grade that counts as relevant (by default, any grade > 0).
   */
  group(level: number | undefined): QueryJudgments {
    const queries = this.queries.size;
    const count = this.count;
    const start = new Int32Array(queries + 1);
    for (let j = 0; j < count; j++) {
      const q = (this.query[j] as number) + 1;
      start[q] = (start[q] as number) + 1;
    }
    let longest = 0;
    for (let q = 0; q < queries; q++) {
      longest = Math.max(longest, start[q + 1] as number);
      start[q + 1] = (start[q + 1] as number) + (start[q] as number);
    }
    const order = new Int32Array(count);
    const at = start.slice(0, queries);
    for (let j = 0; j < count; j++) {
      const q = this.query[j] as number;
      order[at[q] as number] = j;
      at[q] = (at[q] as number) + 1;
    }
    this.order = order;
    this.start = start;
    const relevantCount = new Int32Array(queries);
    const idealStart = new Int32Array(queries + 1);
    const ideal = new Float64Array(count);
    let m = 0;
    const table = new JudgmentTable();
    table.reserve(longest);
    const grades = this.grade;
    const hashes = this.docHash;
    for (let q = 0; q < queries; q++) {
      table.clear();
      let r = 0;
      const from = m;
      for (let k = start[q] as number; k < (start[q + 1] as number); k++) {
        const j = order[k] as number;
        const h = hashes[j] as number;
        if (
          table.find(
            this,
            this.pool,
            this.docStart[j] as number,
            this.docStart[j + 1] as number,
            h,
          ) >= 0
        )
          throw new HandOver("a document judged twice for a query");
        table.insert(j, h);
        const g = grades[j] as number;
        if (level === undefined ? g > 0 : g >= level) r++;
        if (g > 0) ideal[m++] = g;
      }
      relevantCount[q] = r;
      if (m - from > 1) sortDescending(ideal, from, m);
      idealStart[q + 1] = m;
    }
    return { relevantCount, idealStart, idealGains: ideal.subarray(0, m) };
  }
}

/**
 * One query's judgments by docno: a small open-addressing table of judgment numbers keyed by the
 * docno's hash, stamped per query instead of cleared. Built once per query, so each of the run's
 * lines looks its docno up among a dozen judgments in cache, not among a million.
 */
export class JudgmentTable {
  private stamps = new Int32Array(64);
  private entries = new Int32Array(64);
  private hashes = new Int32Array(64);
  private stamp = 1;
  private mask = 63;

  /** Room for `n` judgments at most half full. */
  reserve(n: number): void {
    let size = 64;
    while (size < 2 * n) size *= 2;
    if (size > this.stamps.length) {
      this.stamps = new Int32Array(size);
      this.entries = new Int32Array(size);
      this.hashes = new Int32Array(size);
      this.stamp = 1;
    }
    this.mask = this.stamps.length - 1;
  }

  clear(): void {
    if (this.stamp === 0x7fffffff) {
      this.stamps.fill(0);
      this.stamp = 0;
    }
    this.stamp++;
  }

  insert(j: number, h: number): void {
    const mask = this.mask;
    let slot = h & mask;
    while (this.stamps[slot] === this.stamp) slot = (slot + 1) & mask;
    this.stamps[slot] = this.stamp;
    this.entries[slot] = j;
    this.hashes[slot] = h;
  }

  /** The judgment of docno bytes [start, end) of `bytes` (hash `h`), or -1. */
  find(qrels: QrelsColumns, bytes: Uint8Array, start: number, end: number, h: number): number {
    const mask = this.mask;
    const mark = this.stamp;
    let slot = h & mask;
    const length = end - start;
    while (this.stamps[slot] === mark) {
      if (this.hashes[slot] === h) {
        const j = this.entries[slot] as number;
        const at = qrels.docStart[j] as number;
        if ((qrels.docStart[j + 1] as number) - at === length) {
          const pool = qrels.pool;
          let k = 0;
          while (k < length && pool[at + k] === bytes[start + k]) k++;
          if (k === length) return j;
        }
      }
      slot = (slot + 1) & mask;
    }
    return -1;
  }
}

/**
 * Per query of the qrels, what every ranking of it is scored against: R (the relevant judgments,
 * grade > 0 or ≥ the `-l` level), and the ideal ranking's gains (every positive grade, sorted
 * descending), in flat arrays.
 */
export interface QueryJudgments {
  readonly relevantCount: Int32Array;
  readonly idealStart: Int32Array;
  readonly idealGains: Float64Array;
}

function sortDescending(a: Float64Array, from: number, to: number): void {
  if (to - from > 64) {
    const part = a.subarray(from, to);
    part.sort();
    part.reverse();
    return;
  }
  for (let i = from + 1; i < to; i++) {
    const v = a[i] as number;
    let j = i - 1;
    while (j >= from && (a[j] as number) < v) {
      a[j + 1] = a[j] as number;
      j--;
    }
    a[j + 1] = v;
  }
}
