import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigurationError, type EvalSample } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { sharedData } from "../../../../test-support/shared-data.js";
import { TrecRun } from "./trec-run.js";

const data = (name: string) => sharedData(`trec_eval/${name}`);

const call = (sample: EvalSample) => ({ signal: new AbortController().signal, sample });
const sample = (id: string): EvalSample => ({
  id,
  question: `q ${id}`,
  expectedAnswers: [],
  relevantIds: [],
});

describe("TrecRun", () => {
  it("orders by score descending, ties by docno descending, ignoring the rank column", async () => {
    const run = TrecRun.parse(
      [
        "q1 Q0 b 1 1.0 tag",
        "q1 Q0 a 2 2.0 tag",
        "q1 Q0 c 3 1.0 tag",
        "q1 Q0 B 4 1.0 tag", // "B" < "b" < "c" in strcmp order
        "q1 Q0 d 5 -3 tag",
      ].join("\n"),
    );
    const ids = (await run.retrieve("ignored", call(sample("q1")))).map((c) => c.id);
    expect(ids).toEqual(["a", "c", "b", "B", "d"]);
  });

  it("compares docnos byte-wise like strcmp (a shorter prefix sorts first)", async () => {
    const run = TrecRun.parse("q Q0 doc1 1 5 t\nq Q0 doc10 2 5 t\nq Q0 doc2 3 5 t\n");
    expect(run.ranking("q").map((c) => c.id)).toEqual(["doc2", "doc10", "doc1"]);
  });

  it("replays trec_eval's order on results.test (ties in topics 302 and 303)", async () => {
    const run = await TrecRun.load(data("results.test"));
    expect(run.queryIds()).toEqual(["301", "302", "303"]);
    expect(run.tag).toBe("STANDARD");
    for (const q of ["301", "302", "303"]) expect(run.ranking(q)).toHaveLength(500);
    // Top 5 per topic from `LC_ALL=C sort -k5,5gr -k3,3r`.
    expect(
      run
        .ranking("301")
        .slice(0, 5)
        .map((c) => c.id),
    ).toEqual(["FBIS4-50478", "FBIS3-21938", "FBIS3-22085", "FBIS3-9399", "FBIS4-24388"]);
    expect(run.ranking("301")[0]!.score).toBe(3.340779);
    const r302 = run.ranking("302").map((c) => c.id);
    expect(r302.indexOf("FBIS3-43197") + 1).toBe(r302.indexOf("FBIS3-43143"));
    expect(r302.indexOf("FBIS4-25574") + 1).toBe(r302.indexOf("FBIS4-25561"));
    const r303 = run.ranking("303").map((c) => c.id);
    const at = r303.indexOf("FBIS3-43221");
    expect(r303.slice(at, at + 3)).toEqual(["FBIS3-43221", "FBIS3-43167", "FBIS3-24664"]);
  });

  it("ignores words after the sixth field (results.trunc)", async () => {
    const run = await TrecRun.load(data("results.trunc"));
    expect(run.queryIds()).toEqual(["301", "303"]);
    expect(run.ranking("301").some((c) => c.id === "FBIS3-27619")).toBe(true);
  });

  it("answers [] for a query the run lacks (scored 0, like trec_eval -c)", async () => {
    const run = await TrecRun.load(data("results.trunc"));
    expect(run.has("302")).toBe(false);
    await expect(run.retrieve("302", call(sample("302")))).resolves.toEqual([]);
  });

  it("answers by sample id, not by question text", async () => {
    const run = TrecRun.parse("7 Q0 x 1 1 t\n");
    await expect(run.retrieve("7", call(sample("8")))).resolves.toEqual([]);
    await expect(run.retrieve("whatever", call(sample("7")))).resolves.toEqual([
      { id: "x", score: 1 },
    ]);
  });

  it("rejects with the signal's reason when aborted", async () => {
    const run = TrecRun.parse("7 Q0 x 1 1 t\n");
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(
      run.retrieve("7", { signal: controller.signal, sample: sample("7") }),
    ).rejects.toThrow("stop");
  });

  it("names line and column of malformed lines", async () => {
    expect(() => TrecRun.parse("q Q0 d 1 1 t\nq Q0 d2 1\n", "run.txt")).toThrow(
      /run\.txt: line 2, column 5 \(score\): expected 6 fields/,
    );
    expect(() => TrecRun.parse("q Q0 d 1 high t\n", "run.txt")).toThrow(
      /line 1, column 5 \(score\)/,
    );
    expect(() => TrecRun.parse("q Q0 d 1 1 t\nq Q0 d 2 0.5 t\n", "run.txt")).toThrow(
      /line 2, column 3.*twice/,
    );
    const error = (() => {
      try {
        TrecRun.parse("q Q0 d", "run.txt");
      } catch (e) {
        return e;
      }
    })();
    expect(ConfigurationError.isInstance(error)).toBe(true);
  });

  it("reports a missing file as a ConfigurationError", async () => {
    const dir = await mkdtemp(join(tmpdir(), "trecrun-"));
    await expect(TrecRun.load(join(dir, "nope.txt"))).rejects.toThrow(/no such file/);
    await writeFile(join(dir, "empty.txt"), "");
    expect((await TrecRun.load(join(dir, "empty.txt"))).queryIds()).toEqual([]);
  });
});

describe("TrecRun score precision", () => {
  it("compares scores as trec_eval's single-precision floats", () => {
    // 0.12345679 and 0.123456789 are one float: a tie, broken by docno descending.
    const run = TrecRun.parse(
      "q1 Q0 docA 1 0.12345679 t\nq1 Q0 docB 2 0.123456789 t\n",
      "float.run",
    );
    expect(run.ranking("q1").map((c) => c.id)).toEqual(["docB", "docA"]);
    // Scores that differ as floats keep their order.
    const apart = TrecRun.parse("q1 Q0 docA 1 0.5 t\nq1 Q0 docB 2 0.25 t\n", "apart.run");
    expect(apart.ranking("q1").map((c) => c.id)).toEqual(["docA", "docB"]);
  });
});

describe("the run parser", () => {
  it("groups a run whose queries are not contiguous, and still finds a document listed twice", () => {
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
});
