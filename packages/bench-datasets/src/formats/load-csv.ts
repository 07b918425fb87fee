import { stat } from "node:fs/promises";
import type { ColumnMapping } from "../records/column-mapping.js";
import { type LoadedSamples, SampleBuilder } from "../records/sample-builder.js";
import { type RowPosition, streamCsv } from "./csv-stream.js";

/**
 * Reads a `.csv` (or `.tsv`) dataset, streamed chunk by chunk through papaparse's parser
 * ({@link streamCsv}): a file of any size loads as long as its samples fit in memory. The first
 * row is the header. Cells stay strings, except that a cell holding a JSON array (`["a","b"]`) or
 * a Python list where a list is expected (its integers keep their digits), an answers object
 * (`{"text": [...]}`, in JSON or Python) or a Python list of answer dicts
 * (`[{'text': 'a', 'answer_start': 0}]`) where answers are expected, or a JSON object where
 * `relevance`/`metadata` is expected, is parsed. Rows are numbered from 1 after the header;
 * messages also give the line where the row starts.
 *
 * A file mixing `\r\n` and `\n` line breaks reads as if it used `\n`, a quoted `\r\n` in a cell
 * included. The mix may show only after rows were read (a file joined from two sources): when
 * one of those rows has a `\r\n` inside a cell, that row may already have been read otherwise
 * than it reads joined, so a file is read a second time, joining `\r\n` from its start; a pipe
 * cannot be read twice, so its rows from the first such one wait (as cells) until the mix shows
 * or the input ends.
 */
export async function loadCsvDataset(
  path: string,
  mapping: ColumnMapping | undefined,
  delimiter = ",",
): Promise<LoadedSamples> {
  if (!(await isRegularFile(path))) return readWaiting(path, mapping, delimiter);
  const first = await readOnce(path, mapping, delimiter, false);
  if (first !== "read again") return first;
  return (await readOnce(path, mapping, delimiter, true)) as LoadedSamples;
}

/**
 * One read of a file; `"read again"` when the mix shows too late, after a row with a `\r\n` in a
 * cell (never with `mixed`, which joins them from the start).
 */
async function readOnce(
  path: string,
  mapping: ColumnMapping | undefined,
  delimiter: string,
  mixed: boolean,
): Promise<LoadedSamples | "read again"> {
  const { builder, add } = samplesOf(path, mapping);
  // A row read so far has a `\r\n` inside a cell; the first row that was an error after one.
  let crlfRead = false;
  let failed: unknown;
  let outcome: "done" | "stopped";
  try {
    outcome = await streamCsv(
      path,
      delimiter,
      {
        mode: () => "csv",
        row(cells, row, at) {
          if (failed !== undefined) return;
          if (!crlfRead && !mixed && at.crlf && anyCrlf(cells)) crlfRead = true;
          try {
            add(cells, row, at);
          } catch (error) {
            // Joined, such a row might read otherwise: read on to learn whether the file mixes.
            if (!crlfRead) throw error;
            failed = error;
          }
        },
        line: readAsLines,
        // The rows with a `\r\n` in a cell were read with it: stop, and read the file again.
        joinLineBreaks: () => (crlfRead ? "stop" : "joined"),
      },
      { mixed },
    );
  } catch (error) {
    // A row that was an error comes before what went wrong later.
    throw failed ?? error;
  }
  if (outcome === "stopped") return "read again";
  if (failed !== undefined) throw failed;
  return builder.result();
}

/** Reads a pipe, which cannot be read again: rows that the mix would change wait for it. */
async function readWaiting(
  path: string,
  mapping: ColumnMapping | undefined,
  delimiter: string,
): Promise<LoadedSamples> {
  const { builder, add } = samplesOf(path, mapping);
  // Rows from the first one with a `\r\n` inside a cell, while the line breaks may still mix.
  let waiting: { cells: string[]; row: number; at: RowPosition }[] | undefined;
  let mixed = false;
  const addWaiting = (join: boolean) => {
    const rows = waiting ?? [];
    waiting = undefined;
    for (let i = 0; i < rows.length; i++) {
      const { cells, row, at } = rows[i]!;
      rows[i] = undefined as never;
      add(join ? cells.map(joinLineBreaks) : cells, row, at);
    }
  };
  try {
    await streamCsv(path, delimiter, {
      mode: () => "csv",
      row(cells, row, at) {
        if (waiting === undefined && !mixed && at.crlf && anyCrlf(cells)) waiting = [];
        if (waiting !== undefined) {
          const line = at.line();
          waiting.push({ cells, row, at: { line: () => line, crlf: at.crlf } });
        } else add(cells, row, at);
      },
      line: readAsLines,
      joinLineBreaks() {
        mixed = true;
        addWaiting(true);
        return "joined";
      },
    });
  } catch (error) {
    // The waiting rows come before what went wrong: their own errors are reported first.
    addWaiting(false);
    throw error;
  }
  addWaiting(false);
  return builder.result();
}

/** A builder of the file's samples, and how to add a row (row 0 is the header) at a line. */
function samplesOf(path: string, mapping: ColumnMapping | undefined) {
  // Where the row being added is, for messages (asked for only on an error or a warning): the
  // reader's own position object, not a closure per row.
  let rowAt: RowPosition = { line: () => 1, crlf: false };
  const builder = new SampleBuilder(mapping, {
    source: path,
    unit: "row",
    cellsAreText: true,
    ownsRecords: true,
    path,
    describe: (row) => {
      const line = rowAt.line();
      return { text: `row ${row} (line ${line})`, line };
    },
  });
  const add = (cells: string[], row: number, at: RowPosition) => {
    rowAt = at;
    if (row === 0) builder.setHeader(cells);
    else builder.addRow(cells, row);
  };
  return { builder, add };
}

function readAsLines(): never {
  throw new Error("a dataset is read as CSV rows, never as lines");
}

/** True for a regular file (not a pipe); false when it cannot be told (the reader says why). */
async function isRegularFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Whether a cell holds a `\r\n` (a loop, not `some` with a callback: it runs once per row). */
function anyCrlf(cells: readonly string[]): boolean {
  for (let i = 0; i < cells.length; i++) if ((cells[i] as string).includes("\r\n")) return true;
  return false;
}

function joinLineBreaks(cell: string): string {
  return cell.includes("\r\n") ? cell.replace(/\r\n/g, "\n") : cell;
}
