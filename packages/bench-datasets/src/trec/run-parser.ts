import { ByteInterner, grow, parseSimpleDecimal } from "../io/byte-strings.js";
import { fieldAt, inputError } from "../records/problems.js";
import { TrecLineParser } from "./line-parser.js";
import { QidMatcher } from "./query-filter.js";
import { RankSorter } from "./rank-order.js";

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

/** The fields of a run line, named in messages about a missing one. */
const RUN_FIELDS = ["qid", "Q0", "docno", "rank", "score", "tag"];

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
export class RunParser extends TrecLineParser {
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
  private readonly qid = new QidMatcher();
  // Runs of consecutive lines of one query: usually one per query.
  private readonly segmentQuery: number[] = [];
  private readonly segmentStart: number[] = [];
  private marker = new Int32Array(1024);
  private query = -1;
  // For queries whose lines are not contiguous, the documents seen so far (the marker may be
  // stale for them); `undefined` for the current query when it is contiguous so far.
  private split: Map<number, Set<number>> | undefined;
  private seen: Set<number> | undefined;

  /**
   * `source` names the run in messages; `keep` is the `queries` option; `file`: the run is read
   * from the file `source` (its path goes into the errors' fields), not from text in memory.
   */
  constructor(
    private readonly source: string,
    keep?: (qid: string) => boolean,
    private readonly file = true,
  ) {
    super(6, keep);
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

  reserve(bytes: number): void {
    // A line is at least 12 bytes ("q Q0 d 1 1 t\n" without the rank's and score's width), so
    // a file's own size never needs more; untouched pages cost nothing. (`entry` still grows the
    // columns for input whose size was not known: a pipe, a file growing as it is read.)
    const capacity = Math.floor(bytes / 11) + 1;
    this.docIds = new Int32Array(capacity);
    this.scores = new Float64Array(capacity);
  }

  /** The run's tag is the first line's, kept or not. */
  protected override rejected(bytes: Buffer): void {
    if (this.tag === undefined && this.fields.count >= 6) this.tag = this.fields.text(bytes, 5);
  }

  protected kept(bytes: Buffer): void {
    const f = this.fields;
    const count = f.count;
    if (count < 6) {
      throw inputError(
        fieldAt(this.source, this.line, count + 1, RUN_FIELDS[count] as string, this.file),
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
          fieldAt(this.source, this.line, 5, "score", this.file),
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
        fieldAt(this.source, this.line, 3, "docno", this.file),
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
