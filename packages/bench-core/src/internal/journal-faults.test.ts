import { writeSync } from "node:fs";
import { mkdtemp, open, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { mountSmallDisk } from "../__fixtures__/small-disk.js";
import { ConfigurationError } from "../errors.js";
import type { SampleResult } from "../types.js";
import type { JournalHeader } from "./journal.js";
import { readJournal } from "./journal-read.js";
import { JournalWriter } from "./journal-writer.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-journal-faults-"));
});

const header: JournalHeader = {
  name: "run",
  fingerprint: "f",
  size: 10,
  metrics: ["exact"],
  shard: null,
};

function sample(i: number, answer = `answer ${i}`): SampleResult {
  return {
    sampleId: `q${i}`,
    question: `question ${i}`,
    status: "successful",
    scores: { exact: 1 },
    answer,
    retrievedIds: [`d${i}`],
    retrievedUris: [null],
    latencyMs: 1,
    error: null,
  };
}

const datasetSample = (i: number) => ({ id: `q${i}`, question: `question ${i}` });

/** A journal with the samples at `indexes`, written by the writer; its lines, header first. */
async function journalOf(path: string, indexes: number[]): Promise<string[]> {
  const writer = await JournalWriter.open(path, header, await readJournal(path, header));
  for (const i of indexes) writer.append(i, sample(i));
  await writer.close();
  return (await readFile(path, "utf8")).split("\n").slice(0, -1);
}

const read = (path: string) => readJournal(path, header, datasetSample);

describe("readJournal: torn lines anywhere", () => {
  it("drops a torn line in the middle with a warning naming its sample, keeping the rest", async () => {
    const path = join(dir, "torn-middle.jsonl");
    const lines = await journalOf(path, [0, 1, 2, 3, 4, 5]);
    lines[3] = (lines[3] as string).slice(0, 30); // sample 2's line, cut short
    await writeFile(path, `${lines.join("\n")}\n`);
    const r = await read(path);
    expect([...r.finished.keys()].sort()).toEqual([0, 1, 3, 4, 5]);
    expect(r.warnings).toEqual([
      `${path}:4: dropped a line cut short by a failed or interrupted write (30 bytes); it held sample index 2 (id "q2"), which runs again`,
    ]);
    expect(r.validBytes).toBe(r.readBytes);
  });

  it("keeps the whole entry that an append after a short write ran into", async () => {
    const path = join(dir, "ran-into.jsonl");
    const lines = await journalOf(path, [0, 1, 2, 3]);
    // Sample 2's write stopped after 40 bytes, and sample 3's line was appended right after.
    const torn = (lines[3] as string).slice(0, 40);
    await writeFile(path, `${lines[0]}\n${lines[1]}\n${lines[2]}\n${torn}${lines[4]}\n`);
    const r = await read(path);
    expect([...r.finished.keys()].sort()).toEqual([0, 1, 3]);
    expect(r.finished.get(3)?.answer).toBe("answer 3");
    expect(r.warnings).toEqual([
      `${path}:4: dropped the start of a line, cut short by a failed write, that the next line ran into (40 bytes); it held sample index 2 (id "q2"), which runs again`,
    ]);
  });

  it("reports nothing lost when a later line holds the torn line's sample", async () => {
    const path = join(dir, "rerun.jsonl");
    const lines = await journalOf(path, [0, 1, 2]);
    lines[2] = (lines[2] as string).slice(0, 25); // sample 1, torn
    const again = (await journalOf(join(dir, "rerun-src.jsonl"), [1]))[1] as string;
    await writeFile(path, `${[...lines, again].join("\n")}\n`);
    const r = await read(path);
    expect([...r.finished.keys()].sort()).toEqual([0, 1, 2]);
    expect(r.warnings).toEqual([]);
  });

  it("drops a middle line that is not valid UTF-8 (a write torn inside a character)", async () => {
    const path = join(dir, "utf8.jsonl");
    await journalOf(path, [0, 1, 2]);
    const bytes = await readFile(path);
    const at = bytes.indexOf("answer 1");
    bytes[at] = 0xff;
    await writeFile(path, bytes);
    const r = await read(path);
    expect([...r.finished.keys()].sort()).toEqual([0, 2]);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/utf8\.jsonl:3: dropped .* it held sample index 1 \(id "q1"\)/);
  });

  it("drops a torn last line with a warning, and the writer cuts it", async () => {
    const path = join(dir, "torn-tail.jsonl");
    const lines = await journalOf(path, [0, 1, 2]);
    await writeFile(path, `${lines.slice(0, 3).join("\n")}\n${(lines[3] as string).slice(0, 50)}`);
    const r = await read(path);
    expect([...r.finished.keys()].sort()).toEqual([0, 1]);
    expect(r.warnings).toEqual([
      `${path}:4: dropped the last line, cut short by an interrupted write (50 bytes); it held sample index 2 (id "q2"), which runs again`,
    ]);
    expect(r.readBytes - r.validBytes).toBe(50);
    const writer = await JournalWriter.open(path, header, r);
    writer.append(2, sample(2));
    await writer.close();
    expect((await readFile(path, "utf8")).split("\n").slice(0, -1)).toEqual(lines);
  });
});

describe("readJournal: streamed", () => {
  it("reads the same a few bytes at a time as in 1 MiB chunks (lines across chunks, BOM, CRLF)", async () => {
    const path = join(dir, "chunks.jsonl");
    const lines = await journalOf(path, [0, 1, 2, 3, 4, 5, 6]);
    lines[4] = (lines[4] as string).slice(0, 33);
    await writeFile(path, `\ufeff${lines.join("\r\n")}\r\n\r\n`);
    const whole = await read(path);
    for (const chunkBytes of [1, 7, 64, 4096]) {
      const r = await readJournal(path, header, datasetSample, {
        chunkBytes,
        maxLineBytes: 1 << 20,
      });
      expect(r.finished, `chunkBytes ${chunkBytes}`).toEqual(whole.finished);
      expect(r.warnings).toEqual(whole.warnings);
      expect(r.validBytes).toBe(whole.validBytes);
    }
    expect([...whole.finished.keys()].sort()).toEqual([0, 1, 2, 4, 5, 6]);
    expect(whole.warnings).toHaveLength(1);
  });

  it("skips a line too long for a journal without holding it, and names it", async () => {
    const path = join(dir, "nul-run.jsonl");
    const lines = await journalOf(path, [0, 1]);
    const nul = "\0".repeat(5000);
    await writeFile(path, `${lines[0]}\n${lines[1]}\n${nul}\n${lines[2]}\n`);
    const r = await readJournal(path, header, datasetSample, {
      chunkBytes: 512,
      maxLineBytes: 1000,
    });
    expect([...r.finished.keys()].sort()).toEqual([0, 1]);
    expect(r.warnings).toEqual([
      `${path}:3: dropped a line of 5,000 bytes, too long for a journal line (a run of NUL bytes a crash left, or another file's data); no sample could be read from it`,
    ]);
  });

  it("refuses, and leaves untouched, a file whose first line is too long to be a header", async () => {
    const path = join(dir, "long-first.jsonl");
    const text = `${"a".repeat(3000)}`;
    await writeFile(path, text);
    await expect(
      readJournal(path, header, datasetSample, { chunkBytes: 256, maxLineBytes: 1000 }),
    ).rejects.toThrow(`${path}: not a fastrag bench checkpoint journal`);
    expect(await readFile(path, "utf8")).toBe(text);
  });

  it("resumes a journal past 2 GiB (a sparse file: header, samples, 2.2 GiB of NUL, samples)", async (ctx) => {
    const path = join(dir, "huge.jsonl");
    const head = await journalOf(path, [0, 1, 2]);
    const tail = (await journalOf(join(dir, "huge-tail.jsonl"), [3, 4, 5])).slice(1);
    const size = Math.floor(2.2 * 2 ** 30);
    const prefix = (await stat(path)).size;
    const handle = await open(path, "r+");
    try {
      const torn = (tail[2] as string).slice(0, 60);
      const end = Buffer.from(`\n${tail[0]}\n${tail[1]}\n${torn}`);
      await handle.truncate(size);
      await handle.write(end, 0, end.length, size);
      const s = await handle.stat();
      // Sparse here: a few kilobytes on disk. A file system without holes would need 2.2 GB.
      if (s.blocks * 512 > 64 << 20) {
        await handle.close();
        await rm(path);
        return ctx.skip("this file system does not keep sparse files sparse");
      }
    } finally {
      await handle.close().catch(() => {});
    }
    const total = (await stat(path)).size;
    expect(total).toBeGreaterThan(2 ** 31);
    try {
      const r = await read(path);
      expect([...r.finished.keys()].sort()).toEqual([0, 1, 2, 3, 4]);
      expect(r.readBytes).toBe(total);
      expect(r.validBytes).toBe(total - 60);
      expect(r.warnings).toHaveLength(2);
      expect(r.warnings[0]).toBe(
        `${path}:5: dropped a line of ${(size - prefix).toLocaleString("en-US")} bytes, too long for a journal line (a run of NUL bytes a crash left, or another file's data); no sample could be read from it`,
      );
      expect(r.warnings[1]).toMatch(/huge\.jsonl:8: .* it held sample index 5 \(id "q5"\)/);
      // Resume: the torn tail past 2 GiB is cut and sample 5 appended after it.
      const writer = await JournalWriter.open(path, header, r);
      writer.append(5, sample(5));
      await writer.close();
      const again = await read(path);
      expect([...again.finished.keys()].sort()).toEqual([0, 1, 2, 3, 4, 5]);
      expect(again.warnings).toHaveLength(1);
      expect((head[0] as string).startsWith('{"journal"')).toBe(true);
    } finally {
      await rm(path, { force: true });
    }
  }, 120_000);
});

describe("JournalWriter: short and failed writes", () => {
  it("writes every line whole through short writes (a stub)", async () => {
    const path = join(dir, "short-stub.jsonl");
    const writer = await JournalWriter.open(
      path,
      header,
      await readJournal(path, header),
      (fd, buffer, offset, length) => writeSync(fd, buffer, offset, Math.min(length, 7)),
    );
    for (let i = 0; i < 10; i++) writer.append(i, sample(i, `a long answer ${"w".repeat(100)}`));
    await writer.close();
    const r = await read(path);
    expect(r.finished.size).toBe(10);
    expect(r.warnings).toEqual([]);
  });

  it("throws on the error after a short write; later appends do nothing; a resume keeps the whole lines", async () => {
    const path = join(dir, "enospc-stub.jsonl");
    let budget = 1000;
    const writer = await JournalWriter.open(
      path,
      header,
      await readJournal(path, header),
      (fd, buffer, offset, length) => {
        if (budget === 0) {
          throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
            code: "ENOSPC",
            errno: -28,
            syscall: "write",
          });
        }
        const n = writeSync(fd, buffer, offset, Math.min(length, budget));
        budget -= n;
        return n;
      },
    );
    let error: unknown;
    let appended = 0;
    for (let i = 0; i < 10 && error === undefined; i++) {
      try {
        writer.append(i, sample(i));
        appended++;
      } catch (e) {
        error = e;
      }
    }
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `${path}: cannot write the checkpoint journal: no space left on the device (ENOSPC)`,
    );
    expect(writer.linesWritten).toBe(appended);
    expect(appended).toBeGreaterThan(0);
    // After the failure, appends neither throw nor write.
    const before = (await stat(path)).size;
    writer.append(9, sample(9));
    expect((await stat(path)).size).toBe(before);
    await writer.close();
    const r = await read(path);
    expect([...r.finished.keys()]).toEqual(Array.from({ length: appended }, (_, i) => i));
    expect(r.warnings).toEqual([
      expect.stringMatching(
        new RegExp(`it held sample index ${appended} \\(id "q${appended}"\\), which runs again`),
      ),
    ]);
  });

  it("on a full disk (a 64 KiB tmpfs), throws ENOSPC at the first line that does not fit", async (ctx) => {
    const disk = await mountSmallDisk("64k");
    if (typeof disk === "string") return ctx.skip(disk);
    try {
      const path = join(disk.dir, "journal.jsonl");
      const writer = await JournalWriter.open(path, header, await readJournal(path, header));
      let error: unknown;
      let i = 0;
      for (; i < 100_000 && error === undefined; i++) {
        try {
          writer.append(i % 10, sample(i % 10, "x".repeat(1000)));
        } catch (e) {
          error = e;
        }
      }
      await writer.close();
      expect((error as Error).message).toBe(
        `${path}: cannot write the checkpoint journal: no space left on the device (ENOSPC)`,
      );
      expect(writer.linesWritten).toBe(i - 1);
      const r = await read(path);
      expect(r.finished.size).toBe(Math.min(10, writer.linesWritten));
      // Every whole line is readable: the bytes on disk are the header and whole lines, plus at
      // most one torn tail.
      expect(r.readBytes - r.validBytes).toBeLessThan(1200);
    } finally {
      await disk.remove();
    }
  });
});
