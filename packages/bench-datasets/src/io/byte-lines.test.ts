import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { QADataset } from "../qa-dataset.js";
import { TrecRun } from "../trec/trec-run.js";
import { ByteInterner, parseSimpleDecimal } from "./byte-lines.js";

async function tempFile(name: string, content: string | Buffer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "byte-lines-"));
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

const bytesOf = (text: string) => Buffer.from(text, "latin1");

describe("parseSimpleDecimal", () => {
  it("reads plain decimals exactly as Number() does", () => {
    for (const text of [
      "0",
      "-0",
      "+7",
      "3.340779",
      "-2.5",
      ".5",
      "5.",
      "007",
      "0.1",
      "12.345678901234",
    ]) {
      const b = bytesOf(text);
      expect(Object.is(parseSimpleDecimal(b, 0, b.length), Number(text))).toBe(true);
    }
  });

  it("declines what it does not read (callers fall back to Number())", () => {
    for (const text of [
      "1e5",
      "0x1F",
      "Infinity",
      "",
      ".",
      "-",
      "1.2.3",
      "12345678901234567890",
      "0.12345678901234567890123",
    ]) {
      const b = bytesOf(text);
      expect(Number.isNaN(parseSimpleDecimal(b, 0, b.length))).toBe(true);
    }
  });

  it("equals Number() on random decimals, whenever it answers", () => {
    const decimal = fc
      .tuple(
        fc.constantFrom("", "-", "+"),
        fc.stringMatching(/^[0-9]{0,17}$/),
        fc.option(fc.stringMatching(/^[0-9]{0,24}$/), { nil: undefined }),
      )
      .map(([sign, int, frac]) => `${sign}${int}${frac === undefined ? "" : `.${frac}`}`);
    fc.assert(
      fc.property(decimal, (text) => {
        const b = bytesOf(text);
        const value = parseSimpleDecimal(b, 0, b.length);
        if (!Number.isNaN(value)) expect(Object.is(value, Number(text))).toBe(true);
        // Up to 15 digits and 22 decimals the fast path always answers.
        const digits = text.replace(/[^0-9]/g, "").length;
        const decimals = text.includes(".") ? (text.split(".")[1] as string).length : 0;
        if (digits > 0 && digits <= 15 && decimals <= 22) expect(Number.isNaN(value)).toBe(false);
      }),
    );
  });
});

describe("ByteInterner", () => {
  it("gives equal bytes one id and one string, across rehashes", () => {
    const interner = new ByteInterner();
    const words = Array.from({ length: 5000 }, (_, i) => `doc-${i}`);
    const ids = words.map((w) => interner.intern(Buffer.from(w), 0, w.length));
    expect(new Set(ids).size).toBe(5000);
    const again = words.map((w) => interner.intern(Buffer.from(` ${w} `), 1, w.length + 1));
    expect(again).toEqual(ids);
    expect(interner.strings[ids[4321] as number]).toBe("doc-4321");
    const utf8 = Buffer.from("café", "utf8");
    expect(interner.strings[interner.intern(utf8, 0, utf8.length)]).toBe("café");
  });
});

describe("TREC files read as bytes", () => {
  it("groups a run whose queries are not contiguous, and still finds a document listed twice", async () => {
    const run = TrecRun.parse("q1 Q0 a 1 1 t\nq2 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq2 Q0 b 2 1 t\n");
    expect(run.queryIds()).toEqual(["q1", "q2"]);
    expect(run.ranking("q1")).toEqual([
      { id: "b", score: 2 },
      { id: "a", score: 1 },
    ]);
    expect(run.ranking("q2").map((c) => c.id)).toEqual(["a", "b"]);
    // "a" is listed again for q1 on line 4, after q2 also listed it (so q1 is not the last to).
    expect(() =>
      TrecRun.parse("q1 Q0 a 1 1 t\nq2 Q0 a 1 3 t\nq1 Q0 c 2 2 t\nq1 Q0 a 3 2 t\n", "run.txt"),
    ).toThrow(/run\.txt: line 4, column 3 \(docno\): document "a" is listed twice for query "q1"/);
  });

  it("merges the judgments of a qrels query that appears twice, and finds a docno judged twice", async () => {
    const qrels = await tempFile("qrels", "1 0 a 1\n2 0 a 2\n1 0 b 0\n");
    const dataset = await QADataset.fromTrec({ qrels });
    expect(dataset.samples.map((s) => s.relevance)).toEqual([{ a: 1, b: 0 }, { a: 2 }]);
    expect(dataset.samples.map((s) => s.relevantIds)).toEqual([["a"], ["a"]]);
    const twice = await tempFile("qrels", "1 0 a 1\n2 0 a 2\n1 0 a 0\n");
    await expect(QADataset.fromTrec({ qrels: twice })).rejects.toThrow(
      /line 3, column 3 \(docno\): document "a" is judged twice for query "1"/,
    );
  });

  it("reads a file larger than its buffer: lines across chunk boundaries, a BOM, CRLF", async () => {
    // About 3 MB, so lines straddle the 1 MiB read buffer; one docno is 2 MB long.
    const lines: string[] = [];
    for (let q = 0; q < 40_000; q++) lines.push(`q${q % 4000} Q0 d${q} ${q} ${(q % 97) / 10} tag`);
    const long = `L${"x".repeat(2_000_000)}`;
    lines.splice(20_000, 0, `q0 Q0 ${long} 1 99 tag`);
    const path = await tempFile("run.txt", `\uFEFF${lines.join("\r\n")}\r\n`);
    const run = await TrecRun.load(path);
    expect(run.queryIds()).toHaveLength(4000);
    expect(run.tag).toBe("tag");
    const q0 = run.ranking("q0");
    expect(q0).toHaveLength(11);
    expect(q0[0]).toEqual({ id: long, score: 99 });
    // q0's lines are q = 0, 4000, …, 36000, scored (q % 97) / 10 (hand-computed), after the 99.
    expect(q0.map((c) => c.score)).toEqual([99, 9.2, 8.7, 6.9, 6.4, 4.6, 4.1, 2.3, 1.8, 1.3, 0]);
  });

  it("names the line and column of invalid UTF-8 past the first chunk", async () => {
    let good = ""; // about 1.6 MB
    for (let i = 0; i < 100_000; i++) good += `q Q0 d${i} 1 1 t\n`;
    const path = await tempFile(
      "bad.txt",
      Buffer.concat([Buffer.from(good), Buffer.from("q Q0 x\xff 1 1 t\n", "latin1")]),
    );
    await expect(TrecRun.load(path)).rejects.toThrow(
      /bad\.txt: line 100001, column 7: invalid UTF-8/,
    );
  });
});

describe("trec_eval order", () => {
  it("keeps a run already in trec_eval's order, and reorders one that is not", () => {
    // Hand-ordered: score descending, the tie at 2 broken by docno descending (c > b).
    const inOrder = "q Q0 d 1 3 t\nq Q0 c 2 2 t\nq Q0 b 3 2 t\nq Q0 a 4 1 t\n";
    expect(
      TrecRun.parse(inOrder)
        .ranking("q")
        .map((c) => c.id),
    ).toEqual(["d", "c", "b", "a"]);
    // The same lines with the tie in file order b, c: sorted, not kept.
    const tieOutOfOrder = "q Q0 d 1 3 t\nq Q0 b 2 2 t\nq Q0 c 3 2 t\nq Q0 a 4 1 t\n";
    expect(
      TrecRun.parse(tieOutOfOrder)
        .ranking("q")
        .map((c) => c.id),
    ).toEqual(["d", "c", "b", "a"]);
    // A long ranking (merge sort) written in reverse: scores 0..39, expected 39..0.
    let reversed = "";
    for (let i = 0; i < 40; i++) reversed += `q Q0 doc${i} ${40 - i} ${i} t\n`;
    const ids = TrecRun.parse(reversed)
      .ranking("q")
      .map((c) => c.id);
    expect(ids).toEqual(Array.from({ length: 40 }, (_, i) => `doc${39 - i}`));
  });
});
