import { execFileSync } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigurationError } from "@fastrag/bench-core";
import { beforeAll, describe, expect, it } from "vitest";
import { TrecRun } from "./trec-run.js";

// Cases a review of the byte-level run reader found (each failed before its fix).
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-run-edge-"));
});

describe("TrecRun edge cases", () => {
  it("ties a score that is −0 as a float (−1e-50) with 0, in a ranking past 16 documents", () => {
    const lines = ["q Q0 d00 1 0 t", "q Q0 d99 2 -1e-50 t"];
    for (let i = 1; i <= 15; i++) lines.push(`q Q0 x${String(i).padStart(2, "0")} ${i + 2} ${i} t`);
    const ids = TrecRun.parse(lines.join("\n"))
      .ranking("q")
      .map((c) => c.id);
    // trec_eval: scores 15 … 1 first, then the tie of 0 and −0 broken by docno descending.
    expect(ids.slice(0, 3)).toEqual(["x15", "x14", "x13"]);
    expect(ids.slice(-2)).toEqual(["d99", "d00"]);
  });

  it("orders thousands of tied scores by docno descending", () => {
    const n = 3000;
    const lines: string[] = [];
    for (let i = 0; i < n; i++) lines.push(`q Q0 doc${String(i).padStart(5, "0")} ${i + 1} 1.0 t`);
    lines.push("q Q0 top 0 2.0 t");
    const ids = TrecRun.parse(lines.join("\n"))
      .ranking("q")
      .map((c) => c.id);
    expect(ids.length).toBe(n + 1);
    expect(ids[0]).toBe("top");
    expect(ids[1]).toBe("doc02999");
    expect(ids[n]).toBe("doc00000");
  });

  it("reads a run from a pipe (its size is reported as 0)", async () => {
    const fifo = join(dir, "run.fifo");
    execFileSync("mkfifo", [fifo]);
    const lines: string[] = [];
    for (let i = 0; i < 5000; i++) lines.push(`q${i % 7} Q0 d${i} ${i} ${i % 13} tag`);
    const writing = writeFile(fifo, `${lines.join("\n")}\n`);
    const run = await TrecRun.load(fifo);
    await writing;
    const total = run.queryIds().reduce((sum, q) => sum + run.ranking(q).length, 0);
    expect(total).toBe(5000);
    expect(run.queryIds()).toEqual(["q0", "q1", "q2", "q3", "q4", "q5", "q6"]);
    for (const q of run.queryIds()) {
      for (const c of run.ranking(q)) expect(typeof c.id).toBe("string");
    }
  });

  it("refuses a 2-byte file that only starts a BOM as invalid UTF-8", async () => {
    const path = join(dir, "two.run");
    await writeFile(path, Buffer.from([0xef, 0xbb]));
    const error = await TrecRun.load(path).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/UTF-8/);
  });
});
