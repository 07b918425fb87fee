import type { TopicField } from "../qa-dataset.js";
import { inputError } from "./problems.js";

/** Judgments of one query, in file order: docno → grade. */
export type QueryJudgments = Map<string, number>;

/** Splits a whitespace-separated line into fields (no empty fields). */
function fieldsOf(line: string): string[] {
  const trimmed = line.trim();
  return trimmed.length === 0 ? [] : trimmed.split(/\s+/);
}

/**
 * Parses TREC qrels (`qid iter docno rel`, whitespace-separated). Grades keep their raw value,
 * negative ones included. Returns queries in order of first appearance.
 *
 * @throws ConfigurationError for a line without exactly 4 fields, a non-numeric grade or a
 *   docno judged twice for one query.
 */
export function parseQrels(text: string, source: string): Map<string, QueryJudgments> {
  const queries = new Map<string, QueryJudgments>();
  const lines = text.split("\n");
  for (let n = 0; n < lines.length; n++) {
    const fields = fieldsOf(lines[n]!);
    if (fields.length === 0) continue;
    const where = `${source}: line ${n + 1}`;
    if (fields.length !== 4) {
      const missing = ["qid", "iter", "docno", "rel"][fields.length];
      throw inputError(
        fields.length < 4
          ? `${where}, column ${fields.length + 1} (${missing})`
          : `${where}, column 5`,
        `expected 4 fields "qid iter docno rel", found ${fields.length}`,
      );
    }
    const [qid, , docno, rel] = fields as [string, string, string, string];
    const grade = Number(rel);
    if (!Number.isFinite(grade)) {
      throw inputError(
        `${where}, column 4 (rel)`,
        `expected a numeric grade, found ${JSON.stringify(rel)}`,
      );
    }
    let judgments = queries.get(qid);
    if (judgments === undefined) {
      judgments = new Map();
      queries.set(qid, judgments);
    }
    if (judgments.has(docno)) {
      throw inputError(
        `${where}, column 3 (docno)`,
        `document ${JSON.stringify(docno)} is judged twice for query ${JSON.stringify(qid)}`,
      );
    }
    judgments.set(docno, grade);
  }
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
  const lines = text.split("\n");
  const names = ["qid", "Q0", "docno", "rank", "score", "tag"];
  for (let n = 0; n < lines.length; n++) {
    const fields = fieldsOf(lines[n]!);
    if (fields.length === 0) continue;
    const where = `${source}: line ${n + 1}`;
    if (fields.length < 6) {
      throw inputError(
        `${where}, column ${fields.length + 1} (${names[fields.length]})`,
        `expected 6 fields "qid Q0 docno rank score tag", found ${fields.length}`,
      );
    }
    const qid = fields[0]!;
    const docno = fields[2]!;
    const score = Number(fields[4]);
    if (!Number.isFinite(score)) {
      throw inputError(
        `${where}, column 5 (score)`,
        `expected a number, found ${JSON.stringify(fields[4])}`,
      );
    }
    tag ??= fields[5];
    let query = entries.get(qid);
    let docs = seen.get(qid);
    if (query === undefined || docs === undefined) {
      query = { docnos: [], scores: [] };
      docs = new Set();
      entries.set(qid, query);
      seen.set(qid, docs);
    }
    if (docs.has(docno)) {
      throw inputError(
        `${where}, column 3 (docno)`,
        `document ${JSON.stringify(docno)} is listed twice for query ${JSON.stringify(qid)}`,
      );
    }
    docs.add(docno);
    query.docnos.push(docno);
    query.scores.push(score);
  }
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
 * Indexes of `entries` in trec_eval's order: score descending, ties broken by docno descending
 * in strcmp order.
 */
export function trecOrder(entries: RunEntries): number[] {
  const order = new Array<number>(entries.docnos.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  const { docnos, scores } = entries;
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
