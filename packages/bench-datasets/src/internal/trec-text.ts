import type { TopicField } from "../qa-dataset.js";
import { inputError } from "./problems.js";

/** Judgments of one query, in file order: docno → grade. */
export type QueryJudgments = Map<string, number>;

/** Whitespace as trec_eval's scanner sees it: space, tab, CR, vertical tab, form feed. */
function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 11 || c === 12;
}

/**
 * A reusable scanner over the whitespace-separated fields of one line, without splitting the
 * text into per-line strings or running a regex per line (10^6-line runs are the common case).
 */
class FieldScanner {
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  count = 0;

  constructor(readonly max: number) {
    this.starts = new Int32Array(max + 1);
    this.ends = new Int32Array(max + 1);
  }

  /** Finds up to `max + 1` fields of text[from, to): one more than needed, to detect extras. */
  scan(text: string, from: number, to: number): void {
    let count = 0;
    let i = from;
    const limit = this.max + 1;
    while (i < to && count < limit) {
      while (i < to && isSpace(text.charCodeAt(i))) i++;
      if (i >= to) break;
      this.starts[count] = i;
      while (i < to && !isSpace(text.charCodeAt(i))) i++;
      this.ends[count] = i;
      count++;
    }
    this.count = count;
  }

  field(text: string, k: number): string {
    return text.slice(this.starts[k] as number, this.ends[k] as number);
  }

  /** True when field k equals `value`, without allocating a substring. */
  equals(text: string, k: number, value: string): boolean {
    const start = this.starts[k] as number;
    return (this.ends[k] as number) - start === value.length && text.startsWith(value, start);
  }
}

/** Calls `each(from, to, lineNumber)` for every line of `text` ("\n"-separated). */
function forEachLine(text: string, each: (from: number, to: number, line: number) => void): void {
  let pos = 0;
  let line = 0;
  const len = text.length;
  while (pos < len) {
    line++;
    let end = text.indexOf("\n", pos);
    if (end === -1) end = len;
    each(pos, end, line);
    pos = end + 1;
  }
}

/**
 * Parses TREC qrels (`qid iter docno rel`, whitespace-separated). Grades keep their raw value,
 * negative ones included. Returns queries in order of first appearance; `firstLines`, when given,
 * receives the line each query is first judged on, for messages about that query.
 *
 * @throws ConfigurationError for a line without exactly 4 fields, a non-numeric grade or a
 *   docno judged twice for one query.
 */
export function parseQrels(
  text: string,
  source: string,
  firstLines?: Map<string, number>,
): Map<string, QueryJudgments> {
  const queries = new Map<string, QueryJudgments>();
  const f = new FieldScanner(4);
  let lastQid = "";
  let judgments: QueryJudgments | undefined;
  forEachLine(text, (from, to, n) => {
    f.scan(text, from, to);
    const count = f.count;
    if (count === 0) return;
    const where = `${source}: line ${n}`;
    if (count !== 4) {
      const missing = ["qid", "iter", "docno", "rel"][count];
      throw inputError(
        count < 4 ? `${where}, column ${count + 1} (${missing})` : `${where}, column 5`,
        `expected 4 fields "qid iter docno rel", found ${count < 4 ? count : "more"}`,
      );
    }
    if (judgments === undefined || !f.equals(text, 0, lastQid)) {
      lastQid = f.field(text, 0);
      judgments = queries.get(lastQid);
      if (judgments === undefined) {
        judgments = new Map();
        queries.set(lastQid, judgments);
        firstLines?.set(lastQid, n);
      }
    }
    const rel = f.field(text, 3);
    const grade = Number(rel);
    if (!Number.isFinite(grade)) {
      throw inputError(
        `${where}, column 4 (rel)`,
        `expected a numeric grade, found ${JSON.stringify(rel)}`,
      );
    }
    const docno = f.field(text, 2);
    if (judgments.has(docno)) {
      throw inputError(
        `${where}, column 3 (docno)`,
        `document ${JSON.stringify(docno)} is judged twice for query ${JSON.stringify(lastQid)}`,
      );
    }
    judgments.set(docno, grade);
  });
  return queries;
}

/** One query's retrieved documents, as read (not yet ordered). */
export interface RunEntries {
  readonly docnos: string[];
  readonly scores: number[];
}

/**
 * Parses a TREC run (`qid Q0 docno rank score tag`). Fields after the sixth are ignored, as
 * trec_eval ignores them; so is the rank column.
 *
 * @throws ConfigurationError for a line with fewer than 6 fields, a non-numeric score or a
 *   document listed twice for one query (trec_eval refuses those too).
 */
export function parseRun(
  text: string,
  source: string,
): { entries: Map<string, RunEntries>; tag?: string } {
  const entries = new Map<string, RunEntries>();
  const seen = new Map<string, Set<string>>();
  let tag: string | undefined;
  const names = ["qid", "Q0", "docno", "rank", "score", "tag"];
  // Only six fields matter; a seventh is found only to be ignored.
  const f = new FieldScanner(6);
  let lastQid = "";
  let query: RunEntries | undefined;
  let docs: Set<string> | undefined;
  forEachLine(text, (from, to, n) => {
    f.scan(text, from, to);
    const count = f.count;
    if (count === 0) return;
    if (count < 6) {
      throw inputError(
        `${source}: line ${n}, column ${count + 1} (${names[count]})`,
        `expected 6 fields "qid Q0 docno rank score tag", found ${count}`,
      );
    }
    const rawScore = f.field(text, 4);
    const score = Number(rawScore);
    if (!Number.isFinite(score) || rawScore === "") {
      throw inputError(
        `${source}: line ${n}, column 5 (score)`,
        `expected a number, found ${JSON.stringify(rawScore)}`,
      );
    }
    tag ??= f.field(text, 5);
    if (query === undefined || docs === undefined || !f.equals(text, 0, lastQid)) {
      lastQid = f.field(text, 0);
      query = entries.get(lastQid);
      docs = seen.get(lastQid);
      if (query === undefined || docs === undefined) {
        query = { docnos: [], scores: [] };
        docs = new Set();
        entries.set(lastQid, query);
        seen.set(lastQid, docs);
      }
    }
    const docno = f.field(text, 2);
    if (docs.has(docno)) {
      throw inputError(
        `${source}: line ${n}, column 3 (docno)`,
        `document ${JSON.stringify(docno)} is listed twice for query ${JSON.stringify(lastQid)}`,
      );
    }
    docs.add(docno);
    query.docnos.push(docno);
    query.scores.push(score);
  });
  return tag === undefined ? { entries } : { entries, tag };
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
 * Indexes of `entries` in trec_eval's order: score descending (compared as single-precision
 * floats, as trec_eval stores them), ties broken by docno descending in strcmp order.
 */
export function trecOrder(entries: RunEntries): number[] {
  const order = new Array<number>(entries.docnos.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  const { docnos } = entries;
  // trec_eval keeps scores as C floats (single precision): scores equal as floats tie, and the
  // tie is broken by docno, even when their doubles differ.
  const scores = Float32Array.from(entries.scores);
  order.sort((x, y) => {
    const ds = scores[y]! - scores[x]!;
    if (ds !== 0) return ds;
    return compareStrcmp(docnos[y]!, docnos[x]!);
  });
  return order;
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
        'expected "qid<TAB>topic text" (or SGML <top> topics)',
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
