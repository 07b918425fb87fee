import { join } from "node:path";
import { ConfigurationError } from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";
import { isDirectory, readTextFile } from "../io/files.js";
import { withoutGz } from "../io/gzip.js";
import { forEachLine, isBlank } from "../io/lines.js";
import { WRITE_AS_JSONL } from "../io/text-limit.js";
import {
  atLine,
  describeInexact,
  inColumn,
  inFile,
  inputError,
  isExactNumber,
  isPlainRecord,
  type Place,
} from "../records/problems.js";
import { parseJson } from "./json-text.js";
import { plainOrGz } from "./load-beir.js";
import { isSquad, squadParagraphs } from "./squad.js";

/** One passage of a corpus, for retrievers to index. */
export interface Passage {
  readonly id: string;
  /** `""` when the source has no title. */
  readonly title: string;
  readonly text: string;
}

/**
 * The column names {@link loadCorpus} reads each passage field from (exact names; two aliases of
 * one field in one file is an error).
 */
export const CORPUS_ALIASES: Readonly<Record<keyof Passage, readonly string[]>> = {
  id: ["_id", "id", "doc_id", "docid", "corpus-id", "pid"],
  title: ["title"],
  text: ["text", "contents", "content", "passage", "body"],
};

/**
 * Reads passages into `{ id, title, text }`, for the retrievers that users and the demo build:
 * - a BEIR `corpus.jsonl` (or a BEIR directory holding one);
 * - any `.jsonl`, `.csv` or `.tsv` of passages, columns per {@link CORPUS_ALIASES}. JSONL, CSV
 *   and TSV are streamed: a file of any size loads as long as its passages fit in memory;
 * - a `.tsv` without a header row, as MS MARCO's `collection.tsv`: when its first line has
 *   exactly two tab-separated fields, a whole number and a text that names no column, each line
 *   is read as `id<TAB>text`, verbatim (quotes are text, not CSV quoting), and a line without
 *   exactly one tab is an error naming it;
 * - a `.json` array of passages, or a SQuAD file, whose paragraphs become passages with the
 *   same `<title>#<index>` ids its questions' `relevant_ids` name.
 *
 * A gzip-compressed file is decompressed as it is read, its `.gz` suffix looked past
 * (`corpus.jsonl.gz` reads as `.jsonl`).
 *
 * @throws ConfigurationError for an unsupported path, a passage without an id or text, a
 *   duplicate id, or malformed content (naming the file, line/row and column); for a `.json`
 *   file longer than a string can hold (about 537 million characters), naming its size and
 *   saying to write it as JSONL.
 * @example
 * ```ts
 * const passages = await loadCorpus("scifact/corpus.jsonl");
 * const index = new Map(passages.map((p) => [p.id, p]));
 * ```
 */
export async function loadCorpus(path: string): Promise<Passage[]> {
  if (typeof path !== "string" || path.length === 0) {
    throw new ConfigurationError(`loadCorpus: expected a path, found ${describeValue(path)}`, {
      kind: "invalid-option",
      option: "path",
    });
  }
  const lower = withoutGz(path.toLowerCase());
  const reader = new PassageReader(path);
  if (lower.endsWith(".jsonl")) {
    await forEachLine(path, (line, n) => {
      if (!isBlank(line)) reader.addRecord(parseJson(line, path, n), atLine(path, n));
    });
  } else if (lower.endsWith(".csv") || lower.endsWith(".tsv")) {
    await readCsvPassages(path, lower.endsWith(".tsv") ? "\t" : ",", reader);
  } else if (lower.endsWith(".json")) {
    readJsonPassages(parseJson(await readTextFile(path, WRITE_AS_JSONL), path), path, reader);
  } else if (await isDirectory(path)) {
    return loadCorpus(await plainOrGz(join(path, "corpus.jsonl")));
  } else {
    throw new ConfigurationError(
      `${path}: unsupported corpus format; expected .jsonl (e.g. BEIR corpus.jsonl), .csv, .tsv, .json (passages or SQuAD) or a BEIR directory`,
      { kind: "invalid-input", path },
    );
  }
  return reader.passages;
}

/** A CSV or TSV corpus: a header and rows, or (TSV) `pid<TAB>passage` lines without a header. */
async function readCsvPassages(
  path: string,
  delimiter: string,
  reader: PassageReader,
): Promise<void> {
  const { streamCsv } = await import("./csv-stream.js");
  let header: string[] = [];
  await streamCsv(path, delimiter, {
    mode: (first) => (delimiter === "\t" && isHeaderlessPassage(first) ? "lines" : "csv"),
    row(cells, row, at) {
      if (row === 0) {
        header = cells;
        return;
      }
      if (cells.length !== header.length) {
        const line = at.line();
        throw inputError(
          { text: `${path}: row ${row} (line ${line})`, path, line },
          `expected ${header.length} cells (one per header column), found ${cells.length}`,
        );
      }
      const record: Record<string, unknown> = Object.create(null);
      for (let i = 0; i < header.length; i++) record[header[i]!] = cells[i];
      reader.addRecord(record, inFile(path, `row ${row}`));
    },
    line(line, n) {
      const tab = line.indexOf("\t");
      if (tab === -1 || line.indexOf("\t", tab + 1) !== -1) {
        throw inputError(
          atLine(path, n),
          `expected "pid<TAB>passage text" (the file has no header row: its first line is one, as in MS MARCO's collection.tsv), found ${line.split("\t").length} tab-separated field${tab === -1 ? "" : "s"}`,
        );
      }
      const record: Record<string, unknown> = Object.create(null);
      record.id = line.slice(0, tab);
      record.text = line.slice(tab + 1);
      reader.addRecord(record, atLine(path, n));
    },
    joinLineBreaks: () => {
      reader.joinLineBreaks();
      return "joined";
    },
  });
}

/** A JSON corpus: an array of passages, or a SQuAD file's paragraphs. */
function readJsonPassages(document: unknown, path: string, reader: PassageReader): void {
  if (isSquad(document)) {
    for (const paragraph of squadParagraphs(document, path)) {
      reader.add(
        paragraph.id,
        paragraph.title,
        paragraph.context,
        inFile(path, paragraph.where, paragraph.where),
      );
    }
  } else if (Array.isArray(document)) {
    for (let i = 0; i < document.length; i++)
      reader.addRecord(document[i], inFile(path, `record ${i + 1}`));
  } else {
    throw inputError(
      path,
      `expected an array of passages or a SQuAD file, found ${describeValue(document)}`,
      { path },
    );
  }
}

const CORPUS_COLUMNS = new Set(Object.values(CORPUS_ALIASES).flat());

/**
 * True for the first line of a TSV without a header, as MS MARCO's `collection.tsv`
 * (`pid<TAB>passage`): exactly two fields, a whole number and a text that names no column.
 */
function isHeaderlessPassage(line: string): boolean {
  const tab = line.indexOf("\t");
  if (tab === -1 || line.indexOf("\t", tab + 1) !== -1) return false;
  return /^\d+$/.test(line.slice(0, tab)) && !CORPUS_COLUMNS.has(line.slice(tab + 1));
}

class PassageReader {
  readonly passages: Passage[] = [];
  private readonly ids = new Set<string>();
  private columns: { id: string; title: string | undefined; text: string } | undefined;

  constructor(private readonly source: string) {}

  addRecord(record: unknown, where: Place): void {
    if (!isPlainRecord(record)) {
      throw inputError(
        where,
        `expected a passage object {_id, title?, text}, found ${describeValue(record)}`,
      );
    }
    if (this.columns === undefined) this.columns = this.resolve(record, where);
    const { id: idKey, title: titleKey, text: textKey } = this.columns;
    const rawId = record[idKey];
    let id: string;
    if (typeof rawId === "string" && rawId.length > 0) id = rawId;
    else if (typeof rawId === "number" && isExactNumber(rawId)) id = String(rawId);
    else {
      throw inputError(
        inColumn(where, idKey),
        `expected a passage id (a non-empty string or number), found ${typeof rawId === "number" ? describeInexact(rawId) : describeValue(rawId)}`,
      );
    }
    const text = record[textKey];
    if (typeof text !== "string") {
      throw inputError(
        inColumn(where, textKey),
        `expected the passage text (a string), found ${describeValue(text)}`,
      );
    }
    const rawTitle = titleKey === undefined ? undefined : record[titleKey];
    if (rawTitle !== undefined && rawTitle !== null && typeof rawTitle !== "string") {
      throw inputError(
        inColumn(where, "title"),
        `expected a string, found ${describeValue(rawTitle)}`,
      );
    }
    this.add(id, typeof rawTitle === "string" ? rawTitle : "", text, where);
  }

  /** Turns each `\r\n` in the passages read so far into `\n` (see `CsvSink.joinLineBreaks`). */
  joinLineBreaks(): void {
    const join = (s: string) => (s.includes("\r\n") ? s.replace(/\r\n/g, "\n") : s);
    this.ids.clear();
    for (let i = 0; i < this.passages.length; i++) {
      const { id, title, text } = this.passages[i]!;
      const joined = { id: join(id), title: join(title), text: join(text) };
      this.ids.add(joined.id);
      this.passages[i] = joined;
    }
  }

  add(id: string, title: string, text: string, where: Place): void {
    if (this.ids.has(id)) throw inputError(where, `duplicate passage id ${JSON.stringify(id)}`);
    this.ids.add(id);
    this.passages.push({ id, title, text });
  }

  private resolve(record: Record<string, unknown>, where: Place) {
    const pick = (field: keyof Passage): string | undefined => {
      let found: string | undefined;
      for (const alias of CORPUS_ALIASES[field]) {
        if (!Object.hasOwn(record, alias)) continue;
        if (found !== undefined) {
          throw inputError(
            where,
            `both "${found}" and "${alias}" could be the passage ${field} column`,
          );
        }
        found = alias;
      }
      return found;
    };
    const id = pick("id");
    const text = pick("text");
    if (id === undefined || text === undefined) {
      const field = id === undefined ? "id" : "text";
      const columns = Object.keys(record);
      // A file without a header: its first passage was read as the column names. (A TSV whose
      // first line is "pid<TAB>passage", as MS MARCO's collection.tsv, is read without one.)
      const headerless =
        where.text === `${this.source}: row 1` &&
        columns.length >= 2 &&
        /^\d+$/.test(columns[0] as string)
          ? `; the first row looks like data, not a header: add a header line naming the columns, such as "id<TAB>text"`
          : "";
      throw inputError(
        where,
        `no passage ${field} column; tried ${CORPUS_ALIASES[field].map((a) => `"${a}"`).join(", ")}; columns found: ${columns.join(", ") || "(none)"}${headerless}`,
      );
    }
    return { id, title: pick("title"), text };
  }
}
