import { createReadStream } from "node:fs";
import { invalidUtf8 } from "@fastrag/bench-core/internal/base";
import Papa from "papaparse";
import { fileError } from "../io/file-error.js";
import { maybeGunzip } from "../io/gzip.js";
import { isBlank } from "../io/lines.js";
import { count, textLimit } from "../io/text-limit.js";
import { utf8Pieces } from "../io/utf8.js";
import { atLine, inputError, type Place } from "../records/problems.js";

/**
 * How many characters are handed to papaparse at a time, how many are read before the first parse
 * (papaparse guesses the line break from the first 1 MiB), and how many bytes are read at a time.
 * Tests lower them to cut small files into many chunks; the result does not depend on them. Why
 * 64 KiB: docs/decisions/datasets-reading.md ("CSV in 64 KiB batches").
 */
export const csvStreamOptions: { chunkChars: number; guessChars: number; readBytes: number } = {
  chunkChars: 1 << 16,
  guessChars: 1 << 20,
  readBytes: 1 << 16,
};

/** Where the row being read starts, asked for by messages only (counting lines costs a scan). */
export interface RowPosition {
  /** The 1-based line the current row starts on. */
  line(): number;
  /**
   * Whether the text the current row was parsed from holds a `\r\n` anywhere: when it does not,
   * no cell of the row does, and a caller looking for one in each cell can skip the search.
   */
  readonly crlf: boolean;
}

/** What {@link streamCsv} hands the rows of a file to. */
export interface CsvSink {
  /**
   * Told the first non-empty line before any row: `"lines"` reads the file as plain lines
   * (`line` is called for each non-blank one) instead of CSV rows (`row`).
   */
  mode(firstLine: string): "csv" | "lines";
  /** A CSV row (row 0 is the header), cells as papaparse gives them. */
  row(cells: string[], row: number, at: RowPosition): void;
  /** A non-blank line (without its line break), in `"lines"` mode. */
  line(line: string, lineNumber: number): void;
  /**
   * The file mixes `\r\n` and `\n` line breaks, found after rows were handed over: a `\r\n`
   * inside a quoted cell of those rows is to become `\n`, as it is in the rows that follow.
   * `"stop"` when the sink cannot join them in the rows it has: the read stops there, and
   * {@link streamCsv} resolves `"stopped"`.
   */
  joinLineBreaks(): "joined" | "stop";
}

/**
 * Reads a CSV/TSV file chunk by chunk (decompressed when it is gzip) through papaparse's own
 * parser, so a file of any size is read without becoming one string, with the same rows and
 * messages as one papaparse call on the whole text: papaparse parses each chunk up to its last
 * complete row and starts again there with the next chunk, the line break is guessed from the
 * first 1 MiB as papaparse does, and a file mixing `\r\n` and `\n` reads as if it used `\n`.
 *
 * `options.mixed` says the file is known to mix them (a second read, after `joinLineBreaks`
 * stopped the first): every `\r\n` becomes `\n` from the start, and `joinLineBreaks` is never
 * called. Resolves `"done"` when the whole file was read, `"stopped"` when `joinLineBreaks` said
 * to stop.
 *
 * @throws ConfigurationError for an unreadable, empty or malformed file (naming the row and the
 *   line it starts on), invalid UTF-8 (line, column and byte), or what `sink` throws.
 */
export function streamCsv(
  path: string,
  delimiter: string,
  sink: CsvSink,
  options: { readonly mixed?: boolean } = {},
): Promise<"done" | "stopped"> {
  return new CsvReader(path, delimiter, sink, options.mixed === true).read();
}

/**
 * Where the row being handed over starts. Rows are parsed a batch (one text) at a time, without a
 * callback per row; where the current row starts is asked for by messages only, and worked out
 * then, for the whole batch, by parsing it again with papaparse's step (what it reports as each
 * row's cursor). Outside a batch's rows (-1: a row that never ends), the row starts where the
 * batch does.
 */
class RowCursor implements RowPosition {
  crlf = true;
  /** Newlines before the batch. */
  linesBefore = 0;
  /** The row of the batch being handed over, or -1. */
  batchRow = -1;
  private text = "";
  private newline = "\n";
  private starts: Int32Array | undefined;
  // Newlines counted in the batch up to `counted`: asking for the line of each row of a batch
  // costs one scan of it, not one per row.
  private counted = 0;
  private countedLines = 0;

  constructor(private readonly delimiter: string) {}

  /** Starts a batch: `text`, parsed (or reported on) with line break `newline`. */
  setBatch(text: string, newline: string): void {
    this.text = text;
    this.newline = newline;
    this.counted = 0;
    this.countedLines = 0;
    this.batchRow = -1;
    this.starts = undefined;
  }

  line(): number {
    const text = this.text;
    let start = this.rowStart();
    while (start < text.length) {
      const c = text.charCodeAt(start);
      if (c !== 10 && c !== 13) break;
      start++;
    }
    if (start < this.counted) {
      this.counted = 0;
      this.countedLines = 0;
    }
    this.countedLines += newlinesIn(text, this.counted, start);
    this.counted = start;
    return this.linesBefore + this.countedLines + 1;
  }

  private rowStart(): number {
    if (this.batchRow < 0) return 0;
    this.starts ??= rowStarts(this.text, this.delimiter, this.newline);
    return this.starts[this.batchRow] ?? this.text.length;
  }
}

/** One read of a CSV file for {@link streamCsv}: text in, rows (or lines) out to the sink. */
class CsvReader {
  private readonly kind: "CSV" | "TSV";
  private readonly at: RowCursor;
  private mode: "csv" | "lines" | undefined;
  // Line breaks seen so far in the text as written, and whether it mixes them.
  private crlf = false;
  private bareLf = false;
  // The first `guessChars` of the text as written, to guess the line break again once mixed.
  private firstText = "";
  private parser: Papa.Parser | undefined;
  private newline = "\n";
  // Text read but not yet parsed: `partial` is an incomplete row (or line), `fresh` what follows.
  private partial = "";
  private fresh: string[] = [];
  private freshLength = 0;
  // Rows handed over; lines handed over in `"lines"` mode.
  private row = 0;
  private lineNumber = 0;

  constructor(
    private readonly path: string,
    private readonly delimiter: string,
    private readonly sink: CsvSink,
    private mixed: boolean,
  ) {
    this.kind = delimiter === "\t" ? "TSV" : "CSV";
    this.at = new RowCursor(delimiter);
  }

  async read(): Promise<"done" | "stopped"> {
    // A `\r` ending a chunk waits for the next, so that no `\r\n` is cut in two.
    let held = "";
    for await (const chunk of textChunks(this.path)) {
      let text = held.length === 0 ? chunk : held + chunk;
      held = "";
      if (text.charCodeAt(text.length - 1) === 13) {
        held = "\r";
        text = text.slice(0, -1);
      }
      if (!this.mixed && !this.noteLineBreaks(text)) return "stopped";
      if (this.mode === undefined && this.firstText.length < csvStreamOptions.guessChars)
        this.firstText += text.slice(0, csvStreamOptions.guessChars - this.firstText.length);
      this.take(text);
      if (this.mode === undefined) {
        if (this.freshLength < csvStreamOptions.guessChars) continue;
        this.start();
      }
      if (this.freshLength >= Math.max(csvStreamOptions.chunkChars, this.partial.length))
        this.flush(false);
    }
    if (held.length > 0) this.take(held);
    if (this.mode === undefined) this.start();
    this.flush(true);
    if (this.mode === "csv" && this.row === 0) {
      throw inputError(atLine(this.path, 1), "empty CSV: expected a header row naming the columns");
    }
    return "done";
  }

  private take(text: string): void {
    this.fresh.push(text);
    this.freshLength += text.length;
  }

  /**
   * Notes the line breaks of `text`. When they turn out to mix after rows were handed over, those
   * rows' `\r\n` are joined by the sink, or the sink stops the read: then false.
   */
  private noteLineBreaks(text: string): boolean {
    if (!this.crlf && text.includes("\r\n")) this.crlf = true;
    if (!this.bareLf && BARE_LF.test(text)) this.bareLf = true;
    if (!this.crlf || !this.bareLf) return true;
    this.mixed = true;
    if (this.parser === undefined) return true;
    // Found late: rows already read used `\r\n` as their line break; the rest use `\n`.
    if (this.sink.joinLineBreaks() === "stop") return false;
    this.partial = this.partial.replace(CRLF, "\n");
    this.newline = guessLineBreak(this.firstText.replace(CRLF, "\n"));
    this.parser = this.makeParser();
    return true;
  }

  /** Decides how to read the file, from its first `guessChars` of text. */
  private start(): void {
    let text = this.partial + this.fresh.join("");
    this.fresh = [text];
    this.freshLength = text.length;
    this.partial = "";
    this.mode = this.sink.mode(firstLine(text));
    if (this.mode === "lines") return;
    if (this.mixed) text = text.replace(CRLF, "\n");
    this.newline = guessLineBreak(text);
    this.parser = this.makeParser();
  }

  private makeParser(): Papa.Parser {
    return new Papa.Parser({
      delimiter: this.delimiter,
      newline: this.newline as Papa.ParseConfig["newline"],
    } as Papa.ParseConfig);
  }

  /** Parses what is pending, up to its last complete row (all of it when `last`). */
  private flush(last: boolean): void {
    // Only a row that never ends grows `partial`: the chunks read are small.
    if (this.partial.length > 0 && this.partial.length + this.freshLength > textLimit.maxChars) {
      this.at.setBatch(this.partial, this.newline);
      throw inputError(
        this.where(),
        `the row does not end within ${count(textLimit.maxChars)} characters, more than a string can hold (is a quoted field missing its closing quote?)${this.delimiter === "\t" ? TSV_QUOTES : ""}`,
      );
    }
    let text = this.partial + this.fresh.join("");
    this.fresh = [];
    this.freshLength = 0;
    if (this.mode === "lines") {
      this.feedLines(text, last);
      return;
    }
    if (this.mixed) text = text.replace(CRLF, "\n");
    this.at.setBatch(text, this.newline);
    this.at.crlf = text.includes("\r\n");
    const parsed = (this.parser as Papa.Parser).parse(text, 0, !last);
    const cursor = parsed.meta.cursor as number;
    this.handOver(parsed.data as unknown as string[][], parsed.errors);
    if (!last) {
      this.at.linesBefore += newlinesIn(text, 0, cursor);
      this.partial = text.slice(cursor);
    }
    this.at.setBatch("", this.newline);
  }

  /**
   * Hands the rows of a batch over, in order; a malformed row is an error where papaparse reports
   * it, after the rows before it (as its step did).
   */
  private handOver(rows: string[][], errors: readonly Papa.ParseError[]): void {
    // An error of the row left incomplete at the batch's end is not one yet: that row is parsed
    // again, whole, with the next batch (papaparse's step never reported it either).
    const error = errors.find((e) => (e.row ?? 0) < rows.length);
    const stop = error === undefined ? rows.length : (error.row ?? 0);
    const at = this.at;
    for (let k = 0; k < stop; k++) {
      const cells = rows[k] as string[];
      if (cells.length === 1 && cells[0] === "") continue;
      at.batchRow = k;
      this.sink.row(cells, this.row, at);
      this.row++;
    }
    if (error !== undefined) {
      at.batchRow = stop;
      throw inputError(
        this.where(),
        `malformed ${this.kind}: ${error.message}` +
          (this.delimiter === "\t" && error.type === "Quotes" ? TSV_QUOTES : ""),
      );
    }
  }

  /** `"lines"` mode: hands over the complete lines of `text` (all of them when `last`). */
  private feedLines(text: string, last: boolean): void {
    let start = 0;
    let newlineAt = text.indexOf("\n");
    while (newlineAt !== -1) {
      const stop =
        newlineAt > start && text.charCodeAt(newlineAt - 1) === 13 ? newlineAt - 1 : newlineAt;
      this.line(text.slice(start, stop));
      start = newlineAt + 1;
      newlineAt = text.indexOf("\n", start);
    }
    this.partial = text.slice(start);
    if (last && this.partial.length > 0) {
      const partial = this.partial;
      this.line(partial.charCodeAt(partial.length - 1) === 13 ? partial.slice(0, -1) : partial);
    }
  }

  private line(line: string): void {
    this.lineNumber++;
    if (!isBlank(line)) this.sink.line(line, this.lineNumber);
  }

  /** The row being handed over: `path: row R (line L)` (or `header`), with path and line. */
  private where(): Place {
    const line = this.at.line();
    const row = this.row === 0 ? "header" : `row ${this.row}`;
    return { text: `${this.path}: ${row} (line ${line})`, path: this.path, line };
  }
}

/**
 * Where each row of `text` starts, as papaparse's step reports it (the cursor after the row before),
 * for messages about a row of a batch parsed without the step.
 */
function rowStarts(text: string, delimiter: string, newline: string): Int32Array {
  const starts: number[] = [0];
  const parser = new Papa.Parser({
    delimiter,
    newline: newline as Papa.ParseConfig["newline"],
    step(results: Papa.ParseStepResult<string[]>) {
      starts.push(results.meta.cursor);
    },
  } as Papa.ParseConfig);
  parser.parse(text, 0, false);
  return Int32Array.from(starts);
}

const CRLF = /\r\n/g;
const BARE_LF = /(?:^|[^\r])\n/;

/**
 * TSV is read with CSV's quoting, as pandas, Hugging Face `datasets` and Excel write it: they quote
 * a field holding a tab, a newline or a `"` (`"""Hi"" she said"`), and reading those fields
 * verbatim would mangle them. A TSV that never quotes differs only in a field starting with `"`:
 * wholly in quotes, it loses them; otherwise it is an error, which this hint explains.
 */
export const TSV_QUOTES =
  '; a field starting with " is read as quoted, as pandas and Excel write TSV: quote such a field whole and double its quotes (`"""Hi"" she said"` for `"Hi" she said`)';

/** papaparse's own guess of the line break (from the first 1 MiB), as its whole-text parse makes it. */
function guessLineBreak(text: string): string {
  const handle = new (
    Papa as unknown as {
      ParserHandle: new (
        config: object,
      ) => { guessLineEndings(input: string, quoteChar: string): string };
    }
  ).ParserHandle({});
  return handle.guessLineEndings(text, '"');
}

/** The first line of `text` that is not empty, without its line break. */
function firstLine(text: string): string {
  let start = 0;
  for (;;) {
    const end = text.indexOf("\n", start);
    const line = text.slice(start, end === -1 ? text.length : end).replace(/\r$/, "");
    if (line.length > 0 || end === -1) return line;
    start = end + 1;
  }
}

/** How many `\n` are in `text` from `start` to `end`. */
function newlinesIn(text: string, start: number, end: number): number {
  let n = 0;
  for (let i = text.indexOf("\n", start); i !== -1 && i < end; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/**
 * The text of a UTF-8 file in chunks as it is read (decompressed when gzip, BOM dropped), never
 * one string. Invalid UTF-8 is a ConfigurationError naming its line, column and byte, thrown
 * after the text before it has been yielded.
 */
async function* textChunks(path: string): AsyncGenerator<string> {
  const stream = createReadStream(path, { highWaterMark: csvStreamOptions.readBytes });
  // Line and column (in characters) where the next chunk begins, for messages.
  let line = 1;
  let column = 1;
  const advance = (text: string) => {
    const last = text.lastIndexOf("\n");
    if (last === -1) column += text.length;
    else {
      line += newlinesIn(text, 0, text.length);
      column = text.length - last;
    }
  };
  try {
    for await (const piece of utf8Pieces(maybeGunzip(stream as AsyncIterable<Buffer>, path))) {
      advance(piece.text);
      if (piece.text.length > 0) yield piece.text;
      if (piece.invalid !== undefined) {
        throw invalidUtf8(path, piece.invalid, 0, { byte: piece.byte, line, column });
      }
    }
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== undefined) throw fileError(path, error);
    throw error;
  } finally {
    // Also when the reader stops early (a bad row).
    stream.destroy();
  }
}
