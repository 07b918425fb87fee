import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { sharedData } from "../../../../test-support/shared-data.js";
import { TrecRun } from "./trec-run.js";

// The worker thread starts from the built module (a worker cannot run the TypeScript source), so
// this test loads the package's dist, which `turbo test` builds first; the source module is the
// reference it must agree with.
const built = new URL("../../dist/index.js", import.meta.url);
const { TrecRun: BuiltTrecRun } = (await import(built.href)) as { TrecRun: typeof TrecRun };

const data = (name: string) => sharedData(`trec_eval/${name}`);

describe("TrecRun.load(path, { thread: true })", () => {
  it("reads trec_eval's results.test on a worker thread exactly as on this one", async () => {
    const path = data("results.test");
    const threaded = await BuiltTrecRun.load(path, { thread: true });
    const here = await TrecRun.load(path);
    expect(threaded.queryIds()).toEqual(here.queryIds());
    expect(threaded.tag).toBe(here.tag);
    expect(threaded.queryIds().length).toBeGreaterThan(0);
    for (const q of here.queryIds()) {
      expect(threaded.ranking(q)).toEqual(here.ranking(q));
    }
    // Known from the file (sort -k5,5gr): topic 301 has 500 documents, the top two by score.
    const top = threaded.ranking("301");
    expect(top.length).toBe(500);
    expect(top.slice(0, 2).map((c) => c.id)).toEqual(["FBIS4-50478", "FBIS3-21938"]);
  });

  it("rethrows the parser's ConfigurationError, naming the line and column", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fastrag-run-thread-"));
    const path = join(dir, "bad.run");
    await writeFile(path, "q1 Q0 d1 1 1.5 tag\nq1 Q0 d2 2 high tag\n");
    const error = await BuiltTrecRun.load(path, { thread: true }).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/line 2, column 5 \(score\)/);
    const missing = await BuiltTrecRun.load(join(dir, "none.run"), { thread: true }).catch(
      (e: unknown) => e,
    );
    expect(ConfigurationError.isInstance(missing)).toBe(true);
    expect((missing as Error).message).toContain("none.run");
    expect((missing as Error & { cause?: { code?: string } }).cause?.code).toBe("ENOENT");
  });

  it("decompresses a gzip run on the worker thread, and reports damaged gzip from there", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fastrag-run-thread-"));
    const text = await readFile(data("results.test"));
    const path = join(dir, "results.test.gz");
    await writeFile(path, gzipSync(text));
    const threaded = await BuiltTrecRun.load(path, { thread: true });
    const here = await TrecRun.load(data("results.test"));
    expect(threaded.queryIds()).toEqual(here.queryIds());
    for (const q of here.queryIds()) expect(threaded.ranking(q)).toEqual(here.ranking(q));
    const cut = join(dir, "cut.gz");
    const whole = gzipSync(text);
    await writeFile(cut, whole.subarray(0, whole.length >> 1));
    const error = await BuiltTrecRun.load(cut, { thread: true }).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("the compressed data ends too early");
  });

  it("parses on this thread when the worker module is not there (running from source)", async () => {
    const run = await TrecRun.load(data("results.test"), { thread: true });
    expect(run.queryIds()).toEqual((await TrecRun.load(data("results.test"))).queryIds());
  });
});
