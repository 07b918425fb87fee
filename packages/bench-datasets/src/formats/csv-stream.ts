import { createReadStream } from "node:fs";
import { invalidUtf8 } from "@fastrag/bench-core/internal/base";
import Papa from "papaparse";
import { fileError } from "../io/file-error.js";
import { maybeGunzip } from "../io/gzip.js";
import { isBlank } from "../io/lines.js";
import { count, textLimit } from "../io/text-limit.js";
import { utf8Pieces } from "../io/utf8.js";
import { inputError } from "../records/problems.js";

/**
 * How many characters are handed to papaparse at a time, how many are read before the first parse
 * (papaparse guesses the line break from the first 1 MiB), and how many bytes are read at a time.
 * Tests lower them to cut small files into many chunks; the result does not depend on them. 64 KiB
 * batches, parsed without a callback per row, load a 10⁶-row CSV in 1.03× papaparse's time alone,
 * against 1.53× for 4 MiB batches stepped row by row (docs/decisions/datasets-reading.md).
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
   */
  joinLineBreaks(): void;
}

/**
 * Reads a CSV/TSV file chunk by chunk (decompressed when it is gzip) through papaparse's own
 * parser, so a file of any size is read without becoming one string, with the same rows and
 * messages as one papaparse call on the whole text: papaparse parses each chunk up to its last
 * complete row and starts again there with the next chunk, the line break is guessed from the
 * first 1 MiB as papaparse does, and a file mixing `\r\n` and `\n` reads as if it used `\n`.
 *
 * `options.mixed` says the file is known to mix them (a second read, after `joinLineBreaks`):
 * every `\r\n` becomes `\n` from the start, and `joinLineBreaks` is never called.
 *
 * @throws ConfigurationError for an unreadable, empty or malformed file (naming the row and the
 *   line it starts on), invalid UTF-8 (line, column and byte), or what `sink` throws.
 */
export async function streamCsv(
  path: string,
  delimiter: string,
  sink: CsvSink,
  options: { readonly mixed?: boolean } = {},
): Promise<void> {
  const kind = delimiter === "\t" ? "TSV" : "CSV";
  let mode: "csv" | "lines" | undefined;
  // Line breaks seen so far in the text as written, and whether it mixes them.
  let crlf = false;
  let bareLf = false;
  let mixed = options.mixed === true;
  // The first `guessChars` of the text as written, to guess the line break again once mixed.
  let firstText = "";
  let parser: Papa.Parser | undefined;
  let newline = "\n";
  // Text read but not yet parsed: `partial` is an incomplete row (or line), `fresh` what follows.
  let partial = "";
  let fresh: string[] = [];
  let freshLength = 0;
  // Newlines before `partial`; rows handed over; the text being parsed (or reported on).
  let linesBefore = 0;
  let row = 0;
  let aggregate = "";
  // Newlines counted in the aggregate up to `counted`: asking for the line of each row of a chunk
  // costs one scan of the chunk, not one per row.
  let counted = 0;
  let countedLines = 0;
  const setAggregate = (text: string) => {
    aggregate = text;
    counted = 0;
    countedLines = 0;
    batchRow = -1;
    batchStarts = undefined;
  };
  // Rows are parsed a batch (one aggregate) at a time, without a callback per row; where the
  // current row starts is asked for by messages only, and worked out then, for the whole batch,
  // by parsing it again with papaparse's step (what it reports as each row's cursor). Outside a
  // batch's rows (-1: a row that never ends), the row starts where the aggregate does.
  let batchRow = -1;
  let batchStarts: Int32Array | undefined;
  const rowStartOf = (): number => {
    if (batchRow < 0) return 0;
    if (batchStarts === undefined) batchStarts = rowStarts(aggregate, delimiter, newline);
    return batchStarts[batchRow] ?? aggregate.length;
  };
  const at: RowPosition & { crlf: boolean } = {
    crlf: true,
    line() {
      let start = rowStartOf();
      while (start < aggregate.length) {
        const c = aggregate.charCodeAt(start);
        if (c !== 10 && c !== 13) break;
        start++;
      }
      if (start < counted) {
        counted = 0;
        countedLines = 0;
      }
      countedLines += newlinesIn(aggregate, counted, start);
      counted = start;
      return linesBefore + countedLines + 1;
    },
  };
  const where = () => `${path}: ${row === 0 ? "header" : `row ${row}`} (line ${at.line()})`;

  const makeParser = () =>
    new Papa.Parser({
      delimiter,
      newline: newline as Papa.ParseConfig["newline"],
    } as Papa.ParseConfig);

  /**
   * Hands the rows of a batch over, in order; a malformed row is an error where papaparse reports
   * it, after the rows before it (as its step did).
   */
  const handOver = (rows: string[][], errors: readonly Papa.ParseError[]) => {
    // An error of the row left incomplete at the batch's end is not one yet: that row is parsed
    // again, whole, with the next batch (papaparse's step never reported it either).
    const error = errors.find((e) => (e.row ?? 0) < rows.length);
    const stop = error === undefined ? rows.length : (error.row ?? 0);
    for (let k = 0; k < stop; k++) {
      const cells = rows[k] as string[];
      if (cells.length === 1 && cells[0] === "") continue;
      batchRow = k;
      sink.row(cells, row, at);
      row++;
    }
    if (error !== undefined) {
      batchRow = stop;
      throw inputError(
        where(),
        `malformed ${kind}: ${error.message}` +
          (delimiter === "\t" && error.type === "Quotes" ? TSV_QUOTES : ""),
      );
    }
  };

  let lineNumber = 0;
  const feedLines = (text: string, last: boolean) => {
    let start = 0;
    let newlineAt = text.indexOf("\n");
    while (newlineAt !== -1) {
      const stop =
        newlineAt > start && text.charCodeAt(newlineAt - 1) === 13 ? newlineAt - 1 : newlineAt;
      const line = text.slice(start, stop);
      lineNumber++;
      if (!isBlank(line)) sink.line(line, lineNumber);
      start = newlineAt + 1;
      newlineAt = text.indexOf("\n", start);
    }
    partial = text.slice(start);
    if (last && partial.length > 0) {
      const line = partial.charCodeAt(partial.length - 1) === 13 ? partial.slice(0, -1) : partial;
      lineNumber++;
      if (!isBlank(line)) sink.line(line, lineNumber);
    }
  };

  /** Parses what is pending, up to its last complete row (all of it when `last`). */
  const flush = (last: boolean) => {
    // Only a row that never ends grows `partial`: the chunks read are small.
    if (partial.length > 0 && partial.length + freshLength > textLimit.maxChars) {
      setAggregate(partial);
      throw inputError(
        where(),
        `the row does not end within ${count(textLimit.maxChars)} characters, more than a string can hold (is a quoted field missing its closing quote?)${delimiter === "\t" ? TSV_QUOTES : ""}`,
      );
    }
    let text = partial + fresh.join("");
    fresh = [];
    freshLength = 0;
    if (mode === "lines") {
      feedLines(text, last);
      return;
    }
    if (mixed) text = text.replace(CRLF, "\n");
    setAggregate(text);
    at.crlf = text.includes("\r\n");
    const parsed = (parser as Papa.Parser).parse(text, 0, !last);
    const cursor = parsed.meta.cursor as number;
    handOver(parsed.data as unknown as string[][], parsed.errors);
    if (!last) {
      linesBefore += newlinesIn(text, 0, cursor);
      partial = text.slice(cursor);
    }
    setAggregate("");
  };

  /** Decides how to read the file, from its first `guessChars` of text. */
  const start = () => {
    let text = partial + fresh.join("");
    fresh = [text];
    freshLength = text.length;
    partial = "";
    mode = sink.mode(firstLine(text));
    if (mode === "lines") return;
    if (mixed) text = text.replace(CRLF, "\n");
    newline = guessLineBreak(text);
    parser = makeParser();
  };

  let held = "";
  for await (const chunk of textChunks(path)) {
    // A `\r` ending a chunk waits for the next, so that no `\r\n` is cut in two.
    let text = held.length === 0 ? chunk : held + chunk;
    held = "";
    if (text.charCodeAt(text.length - 1) === 13) {
      held = "\r";
      text = text.slice(0, -1);
    }
    if (!mixed) {
      if (!crlf && text.includes("\r\n")) crlf = true;
      if (!bareLf && BARE_LF.test(text)) bareLf = true;
      if (crlf && bareLf) {
        mixed = true;
        if (parser !== undefined) {
          // Found late: rows already read used `\r\n` as their line break; the rest use `\n`.
          sink.joinLineBreaks();
          partial = partial.replace(CRLF, "\n");
          newline = guessLineBreak(firstText.replace(CRLF, "\n"));
          parser = makeParser();
        }
      }
    }
    if (mode === undefined && firstText.length < csvStreamOptions.guessChars)
      firstText += text.slice(0, csvStreamOptions.guessChars - firstText.length);
    fresh.push(text);
    freshLength += text.length;
    if (mode === undefined) {
      if (freshLength < csvStreamOptions.guessChars) continue;
      start();
    }
    if (freshLength >= Math.max(csvStreamOptions.chunkChars, partial.length)) flush(false);
  }
  if (held.length > 0) {
    fresh.push(held);
    freshLength += held.length;
  }
  if (mode === undefined) start();
  flush(true);
  if (mode === "csv" && row === 0) {
    throw inputError(`${path}: line 1`, "empty CSV: expected a header row naming the columns");
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
