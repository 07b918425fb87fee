import { setOwn } from "@fastrag/bench-core/internal";
import { ByteInterner, grow, parseSimpleDecimal } from "../io/byte-strings.js";
import { fieldAt, inputError, newRecord } from "../records/problems.js";
import { TrecLineParser } from "./line-parser.js";
import { QidMatcher } from "./query-filter.js";

/**
 * Parses TREC qrels (`qid iter docno rel`, whitespace-separated) from bytes, building each
 * query's judgments as they come: `relevance` (docno → grade, every grade kept, negative ones
 * included) and `relevantIds` (grade > 0, or ≥ `level` when given). Queries are in order of
 * first appearance; docnos are interned, so a docno judged for many queries is one string.
 *
 * Errors (thrown from `feed`): a line without exactly 4 fields, a non-numeric grade, or a docno
 * judged twice for one query; each a ConfigurationError naming the line and column.
 */
export class QrelsParser extends TrecLineParser {
  /** Query ids, in order of first appearance. */
  readonly qids: string[] = [];
  /** Per query: docno → grade. */
  readonly relevance: Record<string, number>[] = [];
  /** Per query: the relevant docnos, in file order. */
  readonly relevantIds: string[][] = [];
  /** Per query: the line it is first judged on, for messages about that query. */
  readonly firstLines: number[] = [];
  // Query ids by their bytes: a query's position in `qids` is its id here, found without
  // decoding the id or hashing a string (docs/decisions/datasets-reading.md).
  private readonly queries = new ByteInterner();
  private readonly names = new ByteInterner();
  private readonly qid = new QidMatcher();
  // docno id → 1 + the last query that judged it: a duplicate check without a Set per query.
  private marker = new Int32Array(1024);
  private query = -1;
  // True when the current query was already judged before another one (a non-contiguous file):
  // the marker may then be stale, and the query's own record is checked instead.
  private reappeared = false;
  private record: Record<string, number> = {};
  private relevant: string[] = [];

  constructor(
    private readonly source: string,
    private readonly level: number | undefined,
    keep?: (qid: string) => boolean,
  ) {
    super(4, keep);
  }

  reserve(): void {}

  protected kept(bytes: Buffer): void {
    const f = this.fields;
    const count = f.count;
    if (count !== 4) {
      const missing = ["qid", "iter", "docno", "rel"][count];
      throw inputError(
        count < 4
          ? fieldAt(this.source, this.line, count + 1, missing as string)
          : {
              text: `${this.source}: line ${this.line}, column 5`,
              path: this.source,
              line: this.line,
              column: 5,
            },
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
          fieldAt(this.source, this.line, 4, "rel"),
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
        fieldAt(this.source, this.line, 3, "docno"),
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
