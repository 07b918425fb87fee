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
  let rowStart = 0;
  const builder = new SampleBuilder(mapping, {
    source: path,
    unit: "row",
    cellsAreText: true,
    describe: (row) => `row ${row} (line ${lineColumnAt(text, skipNewline(text, rowStart)).line})`,
  });
  forEachCsvRow(text, path, delimiter, (cells, row, start) => {
    rowStart = start;
    if (row === 0) builder.setHeader(cells);
    else builder.addRow(cells, row);
  });
  return builder.result();
}

/**
 * Parses CSV text row by row (row 0 is the header). A quoting error is a ConfigurationError with
 * the row and line; an error thrown by `onRow` gets the row's line added when it is a
 * ConfigurationError about that row.
 */
export function forEachCsvRow(
  text: string,
  source: string,
  delimiter: string,
  onRow: (cells: string[], row: number, rowStart: number) => void,
): void {
  let row = 0;
  let rowStart = 0;
  let failure: unknown;
  const parser = Papa.parse<string[]>(text, {
    delimiter,
    header: false,
    dynamicTyping: false,
    skipEmptyLines: true,
    step(results, handle) {
      if (failure !== undefined) return;
      try {
        const error = results.errors[0];
        if (error !== undefined) {
          const { line } = lineColumnAt(text, skipNewline(text, rowStart));
          throw inputError(
            `${source}: ${row === 0 ? "header" : `row ${row}`} (line ${line})`,
            `malformed CSV: ${error.message}`,
          );
        }
        onRow(results.data, row, rowStart);
        row++;
        rowStart = results.meta.cursor;
      } catch (error) {
        failure = error;
        handle.abort();
      }
    },
  });
  void parser;
  if (failure !== undefined) throw failure;
  if (row === 0) throw inputError(source, "empty CSV: expected a header row naming the columns");
}

function skipNewline(text: string, offset: number): number {
  let at = offset;
  while (at < text.length && (text.charCodeAt(at) === 10 || text.charCodeAt(at) === 13)) at++;
  return at;
}
