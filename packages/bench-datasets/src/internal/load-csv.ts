import Papa from "papaparse";
import type { ColumnMapping } from "../column-mapping.js";
import { TSV_QUOTES } from "./csv-stream.js";
import { readTextFile } from "./files.js";
import { lineColumnAt } from "./json-text.js";
import { inputError } from "./problems.js";
import { type LoadedSamples, SampleBuilder } from "./sample-builder.js";
import { WRITE_AS_JSONL } from "./text-limit.js";

/**
 * Reads a `.csv` (or `.tsv`) dataset with papaparse. The first row is the header. Cells stay
 * strings, except that a cell holding a JSON array (`["a","b"]`) or a Python list where a list is
 * expected (its integers keep their digits), an answers object (`{"text": [...]}`, in JSON or
 * Python) or a Python list of answer dicts (`[{'text': 'a', 'answer_start': 0}]`) where answers
 * are expected, or a JSON object where `relevance`/`metadata` is expected, is parsed. Rows are
 * numbered from 1 after the header; messages also give the line where the row starts.
 */
export async function loadCsvDataset(
  path: string,
  mapping: ColumnMapping | undefined,
  delimiter = ",",
): Promise<LoadedSamples> {
  const text = await readTextFile(path, WRITE_AS_JSONL);
  const builder = new SampleBuilder(mapping, {
    source: path,
    unit: "row",
    cellsAreText: true,
    ownsRecords: true,
    describe: (row) => `row ${row} (line ${lineOfRow(text, delimiter, row)})`,
  });
  forEachCsvRow(text, path, delimiter, (cells, row) => {
    if (row === 0) builder.setHeader(cells);
    else builder.addRow(cells, row);
  });
  return builder.result();
}

/**
 * Parses CSV text and calls `onRow` for each row (row 0 is the header). The text is parsed in
 * one papaparse call (its fastest mode); a quoting error is a ConfigurationError naming the row
 * and the line it starts on.
 */
export function forEachCsvRow(
  text: string,
  source: string,
  delimiter: string,
  onRow: (cells: string[], row: number) => void,
): void {
  text = oneLineBreak(text);
  const parsed = Papa.parse<string[]>(text, {
    delimiter,
    header: false,
    dynamicTyping: false,
    skipEmptyLines: true,
  });
  const rows = parsed.data;
  const error = parsed.errors[0];
  // Rows before the first error are good; report the error when its row comes.
  const errorRow = error?.row ?? Number.POSITIVE_INFINITY;
  if (rows.length === 0 && error === undefined) {
    throw inputError(`${source}: line 1`, "empty CSV: expected a header row naming the columns");
  }
  for (let row = 0; row < rows.length; row++) {
    if (row === errorRow) break;
    onRow(rows[row]!, row);
    // Let each row's cell array go once it is a sample: lowers the peak memory of big files.
    (rows as unknown[])[row] = undefined;
  }
  if (error !== undefined) {
    const row = Math.min(errorRow, rows.length);
    throw inputError(
      `${source}: ${row === 0 ? "header" : `row ${row}`} (line ${lineOfRow(text, delimiter, row)})`,
      `malformed ${delimiter === "\t" ? "TSV" : "CSV"}: ${error.message}` +
        (delimiter === "\t" && error.type === "Quotes" ? TSV_QUOTES : ""),
    );
  }
}

/**
 * The text with one kind of line break, when it mixes `\r\n` and `\n` (a header written with
 * `"\n"` and rows by Python's csv module, whose default is `"\r\n"`; files joined from two
 * sources). papaparse splits at the kind it meets first: with `\n`, every `\r\n` row kept its
 * `\r` in its last cell (an id `"doc-1\r"` that matches nothing, without a word); with `\r\n`,
 * the `\n` rows ran together. A quoted `\r\n` inside a cell of such a file becomes `\n`.
 * Line numbers are unchanged.
 */
function oneLineBreak(text: string): string {
  return text.includes("\r\n") && BARE_LF.test(text) ? text.replace(CRLF, "\n") : text;
}

const BARE_LF = /(?:^|[^\r])\n/;
const CRLF = /\r\n/g;

/** The line a row starts on (error path only: it parses up to that row again). */
export function lineOfRow(text: string, delimiter: string, row: number): number {
  text = oneLineBreak(text);
  let seen = 0;
  let start = 0;
  Papa.parse<string[]>(text, {
    delimiter,
    header: false,
    skipEmptyLines: true,
    step(results, parser) {
      if (seen === row) {
        parser.abort();
        return;
      }
      seen++;
      start = results.meta.cursor;
    },
  });
  while (start < text.length && (text.charCodeAt(start) === 10 || text.charCodeAt(start) === 13))
    start++;
  return lineColumnAt(text, start).line;
}
