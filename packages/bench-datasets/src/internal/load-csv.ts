import Papa from "papaparse";
import type { ColumnMapping } from "../column-mapping.js";
import { readTextFile } from "./files.js";
import { lineColumnAt } from "./json-text.js";
import { inputError } from "./problems.js";
import { type LoadedSamples, SampleBuilder } from "./sample-builder.js";

/**
 * Reads a `.csv` (or `.tsv`) dataset with papaparse. The first row is the header. Cells stay
 * strings, except that a cell holding a JSON array (`["a","b"]`) where a list is expected, or a
 * JSON object where `relevance`/`metadata` is expected, is parsed. Rows are numbered from 1 after
 * the header; messages also give the line where the row starts.
 */
export async function loadCsvDataset(
  path: string,
  mapping: ColumnMapping | undefined,
  delimiter = ",",
): Promise<LoadedSamples> {
  const text = await readTextFile(path);
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
      `malformed CSV: ${error.message}`,
    );
  }
}

/** The line a row starts on (error path only: it parses up to that row again). */
export function lineOfRow(text: string, delimiter: string, row: number): number {
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
