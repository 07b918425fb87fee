import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import Papa from "papaparse";
import { afterEach, describe, expect, it } from "vitest";
import { rejection, tempDir, tempFile } from "../__fixtures__/helpers.js";
import { textLimit } from "../io/text-limit.js";
import { QADataset } from "../qa-dataset.js";
import type { ColumnMapping } from "../records/column-mapping.js";
import { inputError } from "../records/problems.js";
import { type LoadedSamples, SampleBuilder } from "../records/sample-builder.js";
import { csvStreamOptions, TSV_QUOTES } from "./csv-stream.js";
import { lineColumnAt } from "./json-text.js";
import { loadCsvDataset } from "./load-csv.js";

const defaults = { ...csvStreamOptions, maxChars: textLimit.maxChars };
afterEach(() => {
  csvStreamOptions.chunkChars = defaults.chunkChars;
  csvStreamOptions.guessChars = defaults.guessChars;
  csvStreamOptions.readBytes = defaults.readBytes;
  textLimit.maxChars = defaults.maxChars;
});

/** Reads `chunk` bytes and parses `chunk` characters at a time; the line break is guessed from `guess`. */
function chunks(chunk: number, guess = 16): void {
  csvStreamOptions.chunkChars = chunk;
  csvStreamOptions.guessChars = guess;
  csvStreamOptions.readBytes = chunk;
}

/** The loaded samples and warnings, or the error message. */
async function outcome(load: () => Promise<LoadedSamples>): Promise<unknown> {
  try {
    return await load();
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * A named pipe holding nothing yet: a pipe cannot be read twice, so the loader reads it another
 * way than a file. `undefined` where there are none (Windows).
 */
function fifo(dir: string, name: string): string | undefined {
  if (process.platform === "win32") return undefined;
  const path = join(dir, name);
  execFileSync("mkfifo", [path]);
  return path;
}

/** `load` of the pipe `path` while `content` is written to it. */
async function throughPipe(
  path: string,
  content: string,
  load: () => Promise<unknown>,
): Promise<unknown> {
  // The loader may stop reading early (a bad row): the writer then fails, which is fine.
  const writing = writeFile(path, content).catch(() => undefined);
  const result = await outcome(load as () => Promise<LoadedSamples>);
  await writing;
  return result;
}

describe("QADataset.load streams CSV/TSV datasets", () => {
  it("loads a CSV longer than a string can hold, in chunks that cut rows and characters", async () => {
    // 3,000 rows of multi-line quoted questions, 2- to 4-byte UTF-8 characters and JSON cells,
    // read 97 bytes and parsed 61 characters at a time: chunk edges fall inside quoted cells,
    // between the two lines of a quoted `\r\n`, and inside multi-byte characters.
    const n = 3000;
    const row = (i: number) =>
      `q${i},"é ${i} ""quoted""\r\nnext 😀 line, 中",` + `"[""a${i}"",""ß""]",d${i},extra ${i}\r\n`;
    const content = `\ufeffid,question,answers,relevant_ids,note\r\n${Array.from({ length: n }, (_, i) => row(i)).join("")}`;
    const dir = await tempDir();
    const plain = join(dir, "big.csv");
    const gz = join(dir, "big.csv.gz");
    await writeFile(plain, content);
    await writeFile(gz, gzipSync(content));
    textLimit.maxChars = 10_000; // the file has about 200,000 characters
    csvStreamOptions.chunkChars = 61;
    csvStreamOptions.guessChars = 64;
    csvStreamOptions.readBytes = 97;
    for (const file of [plain, gz]) {
      const { samples } = await QADataset.load(file);
      expect(samples).toHaveLength(n);
      for (const i of [0, 1, 1234, n - 1]) {
        expect(samples[i], `${file} row ${i + 1}`).toEqual({
          id: `q${i}`,
          question: `é ${i} "quoted"\r\nnext 😀 line, 中`,
          expectedAnswers: [`a${i}`, "ß"],
          relevantIds: [`d${i}`],
          metadata: { note: `extra ${i}` },
        });
      }
    }
  });

  it("gives the same samples whatever the chunk size (BOM, quotes, CRLF, mixed breaks, TSV)", async () => {
    const cases: [string, string, unknown][] = [
      [
        "d.csv",
        '\ufeffid,question,answers\n1,"Who, what?","[""a"",""b""]"\n\n2,"two\nlines",c\n3,é,ünï\n',
        [
          { id: "1", question: "Who, what?", expectedAnswers: ["a", "b"], relevantIds: [] },
          { id: "2", question: "two\nlines", expectedAnswers: ["c"], relevantIds: [] },
          { id: "3", question: "é", expectedAnswers: ["ünï"], relevantIds: [] },
        ],
      ],
      // Pure CRLF: a quoted CRLF stays in its cell.
      [
        "d.csv",
        'id,question,answer\r\n1,"a\r\nb",x\r\n2,c,y\r\n',
        [
          { id: "1", question: "a\r\nb", expectedAnswers: ["x"], relevantIds: [] },
          { id: "2", question: "c", expectedAnswers: ["y"], relevantIds: [] },
        ],
      ],
      // Mixed, found only after rows were read: every CRLF becomes \n, as when read whole.
      [
        "d.csv",
        'id,question,answer\r\n1,"a\r\nb",x\r\n2,c,y\r\n3,d,z\r\n4,"e\r\nf",w\n5,g,v\n',
        [
          { id: "1", question: "a\nb", expectedAnswers: ["x"], relevantIds: [] },
          { id: "2", question: "c", expectedAnswers: ["y"], relevantIds: [] },
          { id: "3", question: "d", expectedAnswers: ["z"], relevantIds: [] },
          { id: "4", question: "e\nf", expectedAnswers: ["w"], relevantIds: [] },
          { id: "5", question: "g", expectedAnswers: ["v"], relevantIds: [] },
        ],
      ],
      [
        "d.tsv",
        'qid\tquery\tanswers\nx\t"quoted\ttab"\t["a"]\ny\tplain\tb\n',
        [
          { id: "x", question: "quoted\ttab", expectedAnswers: ["a"], relevantIds: [] },
          { id: "y", question: "plain", expectedAnswers: ["b"], relevantIds: [] },
        ],
      ],
    ];
    const dir = await tempDir();
    const pipe = fifo(dir, "pipe.csv");
    for (const [name, content, expected] of cases) {
      const path = await tempFile(name, content);
      const delimiter = name.endsWith(".tsv") ? "\t" : ",";
      for (const chunk of [1, 2, 3, 5, 8, 1 << 22]) {
        chunks(chunk, 32);
        const loaded = await outcome(() => loadCsvDataset(path, undefined, delimiter));
        expect((loaded as LoadedSamples).samples, `${name} in ${chunk}-character chunks`).toEqual(
          expected,
        );
        if (pipe === undefined) continue;
        const piped = await throughPipe(pipe, content, () =>
          loadCsvDataset(pipe, undefined, delimiter),
        );
        expect((piped as LoadedSamples).samples, `${name} piped, ${chunk}`).toEqual(expected);
      }
    }
  });

  it("names the row and the line it starts on in errors, whatever the chunk size", async () => {
    const bad = await tempFile("b.csv", 'id,question\n1,"two\nlines"\n\n2,\n');
    const ragged = await tempFile("r.csv", 'id,question\n1,"two\nlines"\n\n2,b,extra\n');
    // Bad quotes after blank lines: row 2, on line 5 and line 4 (the whole-text reader said
    // "row 3 (line 7)", of a 6-line file, and "row 3 (line 5)": papaparse counts blank lines as
    // rows in its error's row).
    const badQuote = await tempFile("q.tsv", 'id\tquestion\n1\ta\n\n\n2\t"Hi" she said\n3\tb\n');
    const unterminated = await tempFile("u.csv", 'id,question\n1,a\n\n2,"never closed\n');
    const empty = await tempFile("e.csv", "\n\n");
    // BOM, then "é" (2 bytes) before the bad byte 0xff on line 3.
    const utf8 = await tempFile(
      "b.csv",
      Buffer.concat([
        Buffer.from("\ufeffid,question\n1,é\n2,aé"),
        Buffer.from([0xff]),
        Buffer.from("b\n"),
      ]),
    );
    for (const chunk of [1, 4, 1 << 22]) {
      chunks(chunk);
      expect(await outcome(() => QADataset.load(bad) as never)).toBe(
        `${bad}: row 2 (line 5), column "question": expected a question (a non-empty string), found the string ""`,
      );
      expect(await outcome(() => QADataset.load(ragged) as never)).toBe(
        `${ragged}: row 2 (line 5): expected 2 cells (one per header column), found 3`,
      );
      expect(await outcome(() => QADataset.load(badQuote) as never)).toBe(
        `${badQuote}: row 2 (line 5): malformed TSV: Trailing quote on quoted field is malformed${TSV_QUOTES}`,
      );
      expect(await outcome(() => QADataset.load(unterminated) as never)).toBe(
        `${unterminated}: row 2 (line 4): malformed CSV: Quoted field unterminated`,
      );
      expect(await outcome(() => QADataset.load(empty) as never)).toBe(
        `${empty}: line 1: empty CSV: expected a header row naming the columns`,
      );
      expect(await outcome(() => QADataset.load(utf8) as never)).toBe(
        `${utf8}: line 3, column 5: invalid UTF-8 at byte 25 (found 0xff); expected a UTF-8 text file`,
      );
    }
  });

  it("reports a bad row read before the line breaks are known before a later malformed row", async () => {
    // CRLF only, a quoted CRLF in row 1: whether the file mixes breaks is known only at its end.
    const content = 'id,question\r\n1,"a\r\nb"\r\n2,\r\n3,"open\r\n';
    const path = await tempFile("w.csv", content);
    const pipe = fifo(dirname(path), "pipe.csv");
    const message = (file: string) =>
      `${file}: row 2 (line 4), column "question": expected a question (a non-empty string), found the string ""`;
    chunks(4);
    expect((await rejection(QADataset.load(path))).message).toBe(message(path));
    if (pipe !== undefined) {
      expect(await throughPipe(pipe, content, () => QADataset.load(pipe) as never)).toBe(
        message(pipe),
      );
    }
  });

  it("reads a file again when its line breaks mix only after a quoted CRLF was read", async () => {
    // Rows 1-2 are read, with "\r\n" as the line break, before the bare "\n" of row 3.
    const content = 'id,question,answers\r\n1,"a\r\nb","[""x\r\ny""]"\r\n2,c,d\r\n3,e,f\n';
    const path = await tempFile("m.csv", content);
    const pipe = fifo(dirname(path), "pipe.csv");
    const expected = [
      { id: "1", question: "a\nb", expectedAnswers: ["x\ny"], relevantIds: [] },
      { id: "2", question: "c", expectedAnswers: ["d"], relevantIds: [] },
      { id: "3", question: "e", expectedAnswers: ["f"], relevantIds: [] },
    ];
    for (const chunk of [2, 7]) {
      chunks(chunk, 24);
      expect((await QADataset.load(path)).samples).toEqual(expected);
      if (pipe !== undefined) {
        const piped = await throughPipe(pipe, content, () => QADataset.load(pipe));
        expect((piped as QADataset).samples).toEqual(expected);
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The whole-text reader that streaming replaced, kept as the oracle of the differential test.
// One change: papaparse numbers a malformed row counting the blank lines before it (skipped
// rows), so the old reader named a later row and line; here the row is counted without them, as
// the streaming reader does (see "names the row and the line it starts on in errors"). Two: a row
// after a skipped one that is not blank (a line `""`, one empty quoted cell) was said to start on
// the skipped line; here on its own, as the streaming reader says.

function oldLoadCsv(
  text: string,
  path: string,
  mapping: ColumnMapping | undefined,
  delimiter: string,
): LoadedSamples {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const builder = new SampleBuilder(mapping, {
    source: path,
    unit: "row",
    cellsAreText: true,
    ownsRecords: true,
    describe: (row) => ({ text: `row ${row} (line ${lineOfRow(text, delimiter, row)})` }),
  });
  forEachCsvRow(text, path, delimiter, (cells, row) => {
    if (row === 0) builder.setHeader(cells);
    else builder.addRow(cells, row);
  });
  return builder.result();
}

function forEachCsvRow(
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
    skipEmptyLines: false,
  });
  const error = parsed.errors[0];
  // The one change (see above): rows counted without the blank lines.
  let errorRow = Number.POSITIVE_INFINITY;
  const rows: string[][] = [];
  for (let i = 0; i < parsed.data.length; i++) {
    const cells = parsed.data[i]!;
    if (error !== undefined && i === error.row) errorRow = rows.length;
    if (!(cells.length === 1 && cells[0] === "")) rows.push(cells);
  }
  if (error !== undefined && errorRow === Number.POSITIVE_INFINITY) errorRow = rows.length;
  if (rows.length === 0 && error === undefined) {
    throw inputError(`${source}: line 1`, "empty CSV: expected a header row naming the columns");
  }
  for (let row = 0; row < rows.length; row++) {
    if (row === errorRow) break;
    onRow(rows[row]!, row);
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

function oneLineBreak(text: string): string {
  return text.includes("\r\n") && /(?:^|[^\r])\n/.test(text) ? text.replace(/\r\n/g, "\n") : text;
}

function lineOfRow(text: string, delimiter: string, row: number): number {
  text = oneLineBreak(text);
  let seen = 0;
  let start = 0;
  Papa.parse<string[]>(text, {
    delimiter,
    header: false,
    skipEmptyLines: false,
    step(results, parser) {
      // The second change: a skipped row (`""` alone) moves the start past it.
      const cells = results.data;
      if (cells.length === 1 && cells[0] === "") {
        start = results.meta.cursor;
        return;
      }
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

describe("differential: the streamed loader reads as the whole-text reader did", () => {
  it("gives the same samples, warnings or error for random CSV/TSV texts, in random chunks", async () => {
    const dir = await tempDir("csv-diff-");
    const pipe = fifo(dir, "pipe.csv");
    let n = 0;
    const header = fc.constantFrom(
      ["id", "question", "answers"],
      ["question", "relevant_ids"],
      ["qid", "query", "answer", "metadata"],
      ["question", "ground_truth", "relevance", "note"],
      ["id", "question"],
    );
    // Pieces of cells: delimiters, quotes, both line breaks, JSON/Python lists and objects, and
    // characters of 2, 3 and 4 bytes in UTF-8.
    const piece = fc.constantFrom(
      "a",
      "b c",
      "1",
      "é",
      "中",
      "😀",
      ",",
      "\t",
      '"',
      '""',
      "\n",
      "\r\n",
      " ",
      '["x", "y"]',
      "['p', 'q']",
      '{"d1": 2}',
      '"[""a"",""b""]"',
      '"{""k"": ""v""}"',
      "[",
      "}",
    );
    const text = fc.record({
      header,
      tsv: fc.boolean(),
      crlf: fc.boolean(),
      bom: fc.boolean(),
      // Well-formed rows without a bare `\n` first, some quoting a CRLF: a CRLF file found to mix
      // breaks only after those rows were read.
      before: fc.array(
        fc.array(fc.constantFrom("a", "é", "", '"x\r\ny"', '"[""p"", ""q""]"', '"1,\r\n2"'), {
          minLength: 2,
          maxLength: 4,
        }),
        { maxLength: 6 },
      ),
      body: fc.array(piece, { maxLength: 40 }),
      chunk: fc.integer({ min: 1, max: 24 }),
      extraGuess: fc.integer({ min: 0, max: 40 }),
    });
    await fc.assert(
      fc.asyncProperty(text, async (t) => {
        const delimiter = t.tsv ? "\t" : ",";
        const first = t.header.join(delimiter) + (t.crlf ? "\r\n" : "\n");
        const content =
          (t.bom ? "\ufeff" : "") +
          first +
          t.before
            .map((cells) => `${cells.slice(0, t.header.length).join(delimiter)}\r\n`)
            .join("") +
          t.body.join("");
        const path = join(dir, `d${n++}.${t.tsv ? "tsv" : "csv"}`);
        await writeFile(path, content);
        const expected = await outcome(async () => oldLoadCsv(content, path, undefined, delimiter));
        // The line break is guessed from a prefix holding the first line break, as 1 MiB does.
        chunks(t.chunk, first.length + 1 + t.extraGuess);
        const actual = await outcome(() => loadCsvDataset(path, undefined, delimiter));
        expect(actual, JSON.stringify(content)).toEqual(expected);
        if (pipe === undefined) return;
        const piped = await throughPipe(pipe, content, () =>
          loadCsvDataset(pipe, undefined, delimiter),
        );
        // The pipe's name in messages, for the file's.
        expect(piped, `piped: ${JSON.stringify(content)}`).toEqual(
          await outcome(async () => oldLoadCsv(content, pipe, undefined, delimiter)),
        );
      }),
      { numRuns: 400 },
    );
  });
});
