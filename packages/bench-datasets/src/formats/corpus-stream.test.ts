import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { rejection, tempDir, tempFile } from "../__fixtures__/helpers.js";
import { textLimit } from "../io/text-limit.js";
import { QADataset } from "../qa-dataset.js";
import { loadCorpus } from "./corpus.js";
import { csvStreamOptions } from "./csv-stream.js";

const defaults = { ...csvStreamOptions, maxChars: textLimit.maxChars };
afterEach(() => {
  csvStreamOptions.chunkChars = defaults.chunkChars;
  csvStreamOptions.guessChars = defaults.guessChars;
  csvStreamOptions.readBytes = defaults.readBytes;
  textLimit.maxChars = defaults.maxChars;
});

/**
 * loadCorpus's passages, or its error message, with the file read `chunk` bytes at a time and
 * parsed `chunk` characters at a time. The line break is guessed from the first 16 characters
 * (not 1 MiB), which hold the first line breaks of every file here.
 */
async function chunked(path: string, chunk: number): Promise<unknown> {
  csvStreamOptions.chunkChars = chunk;
  csvStreamOptions.guessChars = 16;
  csvStreamOptions.readBytes = chunk;
  try {
    return await loadCorpus(path);
  } catch (error) {
    return (error as Error).message;
  } finally {
    csvStreamOptions.chunkChars = defaults.chunkChars;
  }
}

describe("loadCorpus reads CSV/TSV in chunks", () => {
  it("gives the same passages whatever the chunk size (quotes, line breaks in cells, CRLF)", async () => {
    const cases: [string, string, unknown][] = [
      [
        "p.csv",
        'id,title,text\n1,"A, b","line one\nline two"\n\n2,,"say ""hi"""\n3,é,ünï\n',
        [
          { id: "1", title: "A, b", text: "line one\nline two" },
          { id: "2", title: "", text: 'say "hi"' },
          { id: "3", title: "é", text: "ünï" },
        ],
      ],
      // Pure CRLF: a quoted CRLF stays in its cell.
      [
        "p.csv",
        'id,text\r\n1,"a\r\nb"\r\n2,c\r\n',
        [
          { id: "1", title: "", text: "a\r\nb" },
          { id: "2", title: "", text: "c" },
        ],
      ],
      // Mixed, found only after rows were read: every CRLF becomes \n, as when read whole.
      [
        "p.csv",
        'id,text\r\n1,"a\r\nb"\r\n2,c\r\n3,x\r\n4,"y\r\nz"\n5,e\n',
        [
          { id: "1", title: "", text: "a\nb" },
          { id: "2", title: "", text: "c" },
          { id: "3", title: "", text: "x" },
          { id: "4", title: "", text: "y\nz" },
          { id: "5", title: "", text: "e" },
        ],
      ],
      [
        "p.tsv",
        'doc_id\tcontents\nx\t"quoted\ttab"\ny\tplain\n',
        [
          { id: "x", title: "", text: "quoted\ttab" },
          { id: "y", title: "", text: "plain" },
        ],
      ],
    ];
    for (const [name, content, expected] of cases) {
      const path = await tempFile(name, content);
      for (const chunk of [1, 2, 3, 5, 8, 1 << 22]) {
        expect(await chunked(path, chunk), `${name} in ${chunk}-character chunks`).toEqual(
          expected,
        );
      }
    }
  });

  it("names the row and its line in errors, whatever the chunk size", async () => {
    const ragged = await tempFile("r.csv", 'id,text\n1,"two\nlines"\n\n2,b,extra\n');
    const badQuote = await tempFile("q.tsv", 'id\ttext\n1\ta\n2\t"Hi" she said\n');
    const unterminated = await tempFile("u.csv", 'id,text\n1,a\n2,"never closed\n');
    // BOM, then "é" (2 bytes) before the bad byte 0xff on line 3.
    const utf8 = await tempFile(
      "b.csv",
      Buffer.concat([
        Buffer.from("\ufeffid,text\n1,é\n2,aé"),
        Buffer.from([0xff]),
        Buffer.from("b\n"),
      ]),
    );
    for (const chunk of [1, 4, 1 << 22]) {
      expect(await chunked(utf8, chunk)).toBe(
        `${utf8}: line 3, column 5: invalid UTF-8 at byte 21 (found 0xff); expected a UTF-8 text file`,
      );
      expect(await chunked(ragged, chunk)).toBe(
        `${ragged}: row 2 (line 5): expected 2 cells (one per header column), found 3`,
      );
      expect(await chunked(badQuote, chunk)).toBe(
        `${badQuote}: row 2 (line 3): malformed TSV: Trailing quote on quoted field is malformed; a field starting with " is read as quoted, as pandas and Excel write TSV: quote such a field whole and double its quotes (\`"""Hi"" she said"\` for \`"Hi" she said\`)`,
      );
      expect(await chunked(unterminated, chunk)).toBe(
        `${unterminated}: row 2 (line 3): malformed CSV: Quoted field unterminated`,
      );
    }
  });

  it("never holds the file as one string: a TSV longer than the string limit loads", async () => {
    const rows = Array.from({ length: 200 }, (_, i) => `${i}\tpassage number ${i}`);
    const content = `id\ttext\n${rows.join("\n")}\n`;
    const path = await tempFile("big.tsv", content);
    const gz = await tempFile("big.tsv.gz", gzipSync(content));
    textLimit.maxChars = 1000; // the file has 4,000+ characters
    csvStreamOptions.chunkChars = 64;
    csvStreamOptions.guessChars = 64;
    csvStreamOptions.readBytes = 64;
    for (const file of [path, gz]) {
      const passages = await loadCorpus(file);
      expect(passages).toHaveLength(200);
      expect(passages[199]).toEqual({ id: "199", title: "", text: "passage number 199" });
    }
    // A quote that never closes makes a row as long as the file: an error, not a raw RangeError.
    const runaway = await tempFile("q.csv", `id,text\n1,"open\n${"2,x\n".repeat(400)}`);
    expect((await rejection(loadCorpus(runaway))).message).toBe(
      `${runaway}: row 1 (line 2): the row does not end within 1,000 characters, more than a string can hold (is a quoted field missing its closing quote?)`,
    );
  });
});

describe("a file too large to become one string", () => {
  it("is a ConfigurationError naming the file, its size, the limit and the fix", async () => {
    const records = Array.from({ length: 50 }, (_, i) => ({
      id: `q${i}`,
      question: `question ${i}`,
      expected_answers: ["a"],
    }));
    const json = JSON.stringify(records);
    const dir = await tempDir();
    const files = {
      "corpus.json": JSON.stringify(records.map((r) => ({ id: r.id, text: r.question }))),
      "data.json": json,
      "data.yaml": records
        .map((r) => `- id: ${r.id}\n  question: ${r.question}\n  expected_answers: [a]\n`)
        .join(""),
    };
    for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
    await writeFile(join(dir, "data.json.gz"), gzipSync(json));
    textLimit.maxChars = 500; // each file has more characters
    const size = (name: string) => Buffer.byteLength(files[name as keyof typeof files]);
    const fix = "write it as JSONL (one record per line), which is read line by line";
    const limit = "a JavaScript string holds at most 500 characters";
    expect((await rejection(loadCorpus(join(dir, "corpus.json")))).message).toBe(
      `${join(dir, "corpus.json")}: too large to read as one string: ${size("corpus.json").toLocaleString("en-US")} bytes, and ${limit}; ${fix}`,
    );
    // CSV/TSV datasets are streamed (see csv-dataset-stream.test.ts).
    for (const name of ["data.json", "data.yaml"]) {
      const error = await rejection(QADataset.load(join(dir, name)));
      expect(error.name).toBe("ConfigurationError");
      expect(error.message).toBe(
        `${join(dir, name)}: too large to read as one string: ${size(name).toLocaleString("en-US")} bytes, and ${limit}; ${fix}`,
      );
    }
    const gz = join(dir, "data.json.gz");
    expect((await rejection(QADataset.load(gz))).message).toBe(
      `${gz}: too large to read as one string: ${json.length.toLocaleString("en-US")} bytes unpacked (${gzipSync(json).length.toLocaleString("en-US")} bytes of gzip), and ${limit}; ${fix}`,
    );
  });
});

describe("a TSV without a header (MS MARCO's collection.tsv)", () => {
  it("reads pid<TAB>passage lines as they are written, quotes included", async () => {
    const content = '0\tThe presence of communication.\n1\t"Hello" is a song\n\n7\tit\'s "x\n';
    const expected = [
      { id: "0", title: "", text: "The presence of communication." },
      { id: "1", title: "", text: '"Hello" is a song' },
      { id: "7", title: "", text: "it's \"x" },
    ];
    expect(await loadCorpus(await tempFile("collection.tsv", content))).toEqual(expected);
    expect(await loadCorpus(await tempFile("collection.tsv.gz", gzipSync(content)))).toEqual(
      expected,
    );
    expect(
      await chunked(await tempFile("collection.tsv", content.replace(/\n/g, "\r\n")), 3),
    ).toEqual(expected);
  });

  it("still reads a header when the first line names the columns", async () => {
    const path = await tempFile("c.tsv", "0\ttext\n5\tfive\n");
    // "0<TAB>text": the second field is a column name, so the first line is a header.
    expect((await rejection(loadCorpus(path))).message).toMatch(/^.*: row 1: no passage id column/);
    expect(await loadCorpus(await tempFile("c.tsv", "pid\tpassage\n5\tfive\n"))).toEqual([
      { id: "5", title: "", text: "five" },
    ]);
  });

  it("names a bad line", async () => {
    const extra = await tempFile("collection.tsv", "0\ta\n1\tb\tc\n");
    expect((await rejection(loadCorpus(extra))).message).toBe(
      `${extra}: line 2: expected "pid<TAB>passage text" (the file has no header row: its first line is one, as in MS MARCO's collection.tsv), found 3 tab-separated fields`,
    );
    const noTab = await tempFile("collection.tsv", "0\ta\n\n1 b\n");
    expect((await rejection(loadCorpus(noTab))).message).toBe(
      `${noTab}: line 3: expected "pid<TAB>passage text" (the file has no header row: its first line is one, as in MS MARCO's collection.tsv), found 1 tab-separated field`,
    );
    const dup = await tempFile("collection.tsv", "0\ta\n0\tb\n");
    expect((await rejection(loadCorpus(dup))).message).toBe(
      `${dup}: line 2: duplicate passage id "0"`,
    );
  });
});
