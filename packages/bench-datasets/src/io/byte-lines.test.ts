import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TrecRun } from "../trec/trec-run.js";

async function tempFile(name: string, content: string | Buffer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "byte-lines-"));
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

describe("feedFile, through the TREC run reader", () => {
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
