import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QADataset } from "../qa-dataset.js";
import type { ByteLineParser } from "./byte-lines.js";
import { feedFile } from "./files.js";
import { forEachLine } from "./lines.js";

// Readers must be linear in the input: a line of n chunks once cost n scans of all it held so far
// (a 100 MB line: 17.7 s; 200 MB: 75 s). No wall clock here (the machines are shared): the bytes
// and characters the newline search looks at are counted, and must stay within a small multiple
// of the input. bench/long-lines.mjs measures the times.

const MB = 1_000_000;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-long-lines-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs `body` while counting the length of every string or buffer `name` is called on. */
async function scanned<T>(
  proto: { [k: string]: unknown },
  name: string,
  body: () => Promise<T>,
): Promise<{ value: T; scanned: number }> {
  const original = proto[name] as (this: { length: number }, ...args: unknown[]) => unknown;
  let total = 0;
  proto[name] = function (this: { length: number }, ...args: unknown[]) {
    total += this.length;
    return original.apply(this, args);
  };
  try {
    const value = await body();
    return { value, scanned: total };
  } finally {
    proto[name] = original;
  }
}

describe("the JSONL line reader on a 100 MB line", () => {
  it("reads it, and the line after it, looking at each character a bounded number of times", async () => {
    const path = join(dir, "long.jsonl");
    const answer = "a".repeat(100 * MB);
    const first = JSON.stringify({ id: "long", question: "q", answer });
    const second = JSON.stringify({ id: "next", question: "q2", answer: "b" });
    await writeFile(path, `${first}\r\n${second}\n`);
    const lines: [number, number][] = [];
    const { scanned: chars } = await scanned(
      String.prototype as unknown as { [k: string]: unknown },
      "indexOf",
      () => forEachLine(path, (line, n) => void lines.push([n, line.length])),
    );
    expect(lines).toEqual([
      [1, first.length],
      [2, second.length],
    ]);
    // About 100 chunks of 1 MiB, each searched once: the old reader searched 5·10^9 characters.
    expect(chars).toBeLessThan(3 * first.length);
  });

  it("loads it as a dataset", async () => {
    const path = join(dir, "long-dataset.jsonl");
    await writeFile(
      path,
      `${JSON.stringify({ id: "long", question: "q", answer: "z".repeat(100 * MB) })}\n{"id":"next","question":"q2","answer":"b"}\n`,
    );
    const dataset = await QADataset.load(path);
    expect(dataset.samples.map((s) => s.id)).toEqual(["long", "next"]);
    expect(dataset.samples[0]?.expectedAnswers[0]?.length).toBe(100 * MB);
  });
});

describe("the byte line reader (TREC files) on a 100 MB line", () => {
  /** Counts lines and their lengths, as a TREC parser would see them. */
  function lineCounter(): ByteLineParser & { lengths: number[]; linesRead: number } {
    const lengths: number[] = [];
    return {
      lengths,
      linesRead: 0,
      reserve() {},
      feed(bytes, from, end, last) {
        let start = from;
        for (;;) {
          const nl = bytes.indexOf(10, start);
          if (nl === -1 || nl >= end) break;
          lengths.push(nl - start);
          this.linesRead++;
          start = nl + 1;
        }
        if (last && start < end) {
          lengths.push(end - start);
          this.linesRead++;
          return end;
        }
        return start;
      },
    };
  }

  for (const gzip of [false, true]) {
    it(`reads it${gzip ? " gzipped (the decompressor hands over 1 MiB at a time)" : ""}, searching each byte a bounded number of times`, async () => {
      const text = Buffer.from(`q1 Q0 d1 1 1.0 t\n${"x".repeat(100 * MB)}\nq2 Q0 d2 1 1.0 t\n`);
      const path = join(dir, gzip ? "long.run.gz" : "long.run");
      await writeFile(path, gzip ? gzipSync(text) : text);
      const parser = lineCounter();
      const { scanned: bytes } = await scanned(
        Buffer.prototype as unknown as { [k: string]: unknown },
        "lastIndexOf",
        () => feedFile(path, parser),
      );
      expect(parser.lengths).toEqual([16, 100 * MB, 16]);
      expect(bytes).toBeLessThan(3 * text.length);
    });
  }
});
