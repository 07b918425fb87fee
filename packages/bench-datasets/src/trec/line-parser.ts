import { type ByteLineParser, FieldSplitter } from "../io/byte-lines.js";
import { QueryFilter } from "./query-filter.js";

/**
 * The line loop both TREC parsers (qrels, runs) share: each line split into whitespace-separated
 * fields, counted, and handed on when its query is kept (the `queries` option); a rejected
 * query's next lines are skipped without being split.
 */
export abstract class TrecLineParser implements ByteLineParser {
  /** The lines read so far (the current one while it is handed on). */
  protected line = 0;
  protected readonly fields: FieldSplitter;
  private readonly filter: QueryFilter | undefined;

  /** `max`: the fields a line is read for; `keep`: the `queries` option. */
  constructor(max: number, keep: ((qid: string) => boolean) | undefined) {
    this.fields = new FieldSplitter(max);
    this.filter = keep === undefined ? undefined : new QueryFilter(keep);
  }

  get linesRead(): number {
    return this.line;
  }

  abstract reserve(bytes: number): void;

  /** A non-blank line of a kept query, split into {@link fields}. */
  protected abstract kept(bytes: Buffer): void;

  /** A non-blank line of a rejected query, split into {@link fields}: nothing by default. */
  protected rejected(_bytes: Buffer): void {}

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
          this.kept(bytes);
        else this.rejected(bytes);
      }
      pos = next;
    }
    return pos;
  }
}
