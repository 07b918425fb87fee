import { decodeField } from "../io/byte-strings.js";

/**
 * The `queries` option of the TREC loaders: which lines belong to a query the caller keeps, by
 * their first field; `keep` is asked once per distinct query id, in order of first appearance,
 * and its answer holds for every line of that query. A rejected line is split into fields (to
 * find where it ends) but nothing else of it is read or checked.
 */
export class QueryFilter {
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
export class QidMatcher {
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
