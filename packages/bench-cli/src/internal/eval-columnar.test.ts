import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ConfigurationError, type Metric } from "@fastrag/bench-core";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { sharedData } from "../../../../test-support/shared-data.js";
import { HandOver } from "./eval-read.js";
import { type EvalInput, type EvalScores, evalRecords } from "./eval-records.js";
import { evalColumnar } from "./eval-score.js";
import { retrievalMetric } from "./metric-spec.js";

// The differential test of `eval`'s two paths: the columnar one (typed columns, the metric
// kernels called directly) must give exactly what the record path gives (the datasets package's
// loaders, the Benchmark runner and the metric classes): every per-query score bit for bit, the
// same nulls, the same means and counts, the same query order and "missing" count. And where the
// record path refuses an input, the columnar one must hand it over rather than score it.

const trec = sharedData("trec_eval/");
const ALL = [
  "map",
  "map@5",
  "mrr",
  "mrr@3",
  "r_precision",
  "ndcg",
  "ndcg@1",
  "ndcg@10",
  "recall@5",
  "recall@100",
  "precision@1",
  "precision@10",
  "hit_rate@1",
  "hit_rate@5",
];

let dir: string;
let files = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-eval-columnar-"));
});

async function file(text: string | Buffer): Promise<string> {
  const path = join(dir, `f${files++}.txt`);
  await writeFile(path, text);
  return path;
}

function input(qrels: string, run: string, level?: number): EvalInput {
  return { qrels, run, relevanceLevel: level, metrics: ALL };
}

const metrics = (): Metric[] => ALL.map(retrievalMetric);

/** Each path's outcome: its scores, or the class and message of what it threw. */
async function outcome(
  path: (i: EvalInput, m: readonly Metric[]) => Promise<EvalScores>,
  i: EvalInput,
): Promise<EvalScores | { thrown: string; message?: string }> {
  try {
    return await path(i, metrics());
  } catch (error) {
    if (error instanceof HandOver) return { thrown: "HandOver", message: error.message };
    if (ConfigurationError.isInstance(error)) return { thrown: "ConfigurationError" };
    throw error;
  }
}

const ids = (scores: EvalScores): string[] =>
  Array.from({ length: scores.queries }, (_, i) => scores.id(i));

/** The two outcomes agree: equal scores (Object.is per value), or a hand-over where the record path throws. */
function expectSame(
  columnar: EvalScores | { thrown: string },
  records: EvalScores | { thrown: string },
) {
  if ("thrown" in records) {
    expect(columnar).toMatchObject({ thrown: "HandOver" });
    return;
  }
  if ("thrown" in columnar) {
    // Handed over on input the record path reads: allowed only for what the columnar path does
    // not read by design (never in these tests but where a test says so).
    throw new Error(`the columnar path handed over an input the record path scores`);
  }
  expect(ids(columnar)).toEqual(ids(records));
  expect(columnar.errored).toEqual(records.errored);
  expect(columnar.missing).toBe(records.missing);
  // trec_eval's counts per query (num_ret, num_rel, num_rel_ret): the same on both paths.
  expect(Array.from(columnar.counts.retrieved)).toEqual(Array.from(records.counts.retrieved));
  expect(Array.from(columnar.counts.relevant)).toEqual(Array.from(records.counts.relevant));
  expect(Array.from(columnar.counts.relevantRetrieved)).toEqual(
    Array.from(records.counts.relevantRetrieved),
  );
  expect(columnar.scores.length).toBe(records.scores.length);
  for (let m = 0; m < records.scores.length; m++) {
    const a = columnar.scores[m] as Float64Array;
    const b = records.scores[m] as Float64Array;
    expect(a.length).toBe(b.length);
    for (let q = 0; q < b.length; q++) {
      if (!Object.is(a[q], b[q])) {
        throw new Error(`${ALL[m]} of query ${records.id(q)}: columnar ${a[q]}, records ${b[q]}`);
      }
    }
    // What eval prints of a summary: the count and the mean, the runner's to the bit.
    const own = columnar.summaries[m];
    const runner = records.summaries[m];
    expect(own?.count).toBe(runner?.count);
    expect(Object.is(own?.mean, runner?.mean), `${ALL[m]}: ${own?.mean} vs ${runner?.mean}`).toBe(
      true,
    );
  }
}

describe("eval's columnar path against the record path", () => {
  it("agrees on trec_eval's own test files, and computes trec_eval's numbers", async () => {
    for (const level of [undefined, 0, 1, 2]) {
      const i = input(join(trec, "qrels.test"), join(trec, "results.test"), level);
      const columnar = await outcome(evalColumnar, i);
      expect(columnar, JSON.stringify(columnar).slice(0, 200)).not.toHaveProperty("thrown");
      expectSame(columnar, await outcome(evalRecords, i));
    }
    // An independent check that the numbers are trec_eval's, not merely equal to each other:
    // out.test.a's map, recip_rank, P_10 and ndcg_cut_10 over its 3 queries, each of which has a
    // relevant document (so trec_eval's average and ours cover the same queries).
    const scored = (await evalColumnar(
      input(join(trec, "qrels.test"), join(trec, "results.test")),
      metrics(),
    )) as EvalScores;
    const mean = (name: string) => scored.summaries[ALL.indexOf(name)]?.mean as number;
    expect(scored.queries).toBe(3);
    expect(mean("map").toFixed(4)).toBe("0.1785");
    expect(mean("mrr").toFixed(4)).toBe("0.4064");
    expect(mean("precision@10").toFixed(4)).toBe("0.3000");
    expect(mean("ndcg@10").toFixed(4)).toBe("0.3016");
    // out.test.aq's num_ret, num_rel and num_rel_ret of queries 301, 302, 303.
    expect(Array.from(scored.counts.retrieved)).toEqual([500, 500, 500]);
    expect(Array.from(scored.counts.relevant)).toEqual([474, 77, 10]);
    expect(Array.from(scored.counts.relevantRetrieved)).toEqual([71, 50, 10]);
  });

  it("agrees with qrels.rel_level (graded judgments) under every -l", async () => {
    for (const level of [undefined, -1, 0, 1, 2, 3, 99]) {
      const i = input(join(trec, "qrels.rel_level"), join(trec, "results.test"), level);
      const columnar = await outcome(evalColumnar, i);
      expect(columnar, `-l ${level}`).not.toHaveProperty("thrown");
      expectSame(columnar, await outcome(evalRecords, i));
    }
  });

  it("agrees on random runs and qrels (ties, grades, -l, missing and run-only queries)", async () => {
    // Docnos from a small alphabet, so that the run and qrels share them, ties need the docno
    // order, and prefixes (d1 < d10) and multi-byte characters (é, 𝄞, U+FFFD) are compared as
    // strcmp compares them; scores from a few values (ties, and 0.1 vs 0.10000000149: equal as
    // single-precision floats, as trec_eval compares them).
    const docno = fc
      .array(fc.constantFrom("d", "1", "0", "é", "𝄞", "\uFFFD", "Z", "\u0001"), {
        minLength: 1,
        maxLength: 2,
      })
      .map((chars) => chars.join(""));
    const qid = fc.constantFrom("1", "2", "10", "ä");
    const score = fc.oneof(
      fc.constantFrom("1", "1.0", "0.5", "-0", "0", "2.5", "1e0", "0.1", "0.10000000149"),
      fc.double({ min: -10, max: 10, noNaN: true }).map((x) => String(x)),
    );
    const grade = fc.constantFrom("0", "1", "1", "2", "3", "-1", "1.5");
    const space = fc.constantFrom(" ", "\t", "  ", " \t");
    const eol = fc.constantFrom("\n", "\r\n");
    // Now and then a malformed line (a field short or one too many): both paths must refuse it.
    const shape = fc.integer({ min: 0, max: 60 });
    const qrelsLine = fc.tuple(qid, docno, grade, space, eol, shape);
    const runLine = fc.tuple(qid, docno, score, space, eol, fc.boolean(), shape);
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(qrelsLine, { maxLength: 40 }),
        fc.array(runLine, { maxLength: 80 }),
        fc.option(fc.constantFrom(-1, 0, 1, 2, 3), { nil: undefined }),
        fc.boolean(),
        async (qrelsLines, runLines, level, reverse) => {
          // Qrels: each (query, docno) once, as the loader requires (duplicates tested apart).
          const judged = new Set<string>();
          let qrels = "";
          for (const [q, d, g, s, e, odd] of qrelsLines) {
            if (judged.has(`${q} ${d}`)) continue;
            judged.add(`${q} ${d}`);
            if (odd === 0) qrels += `${q}${s}0${s}${d}${e}`;
            else if (odd === 1) qrels += `${q}${s}0${s}${d}${s}${g}${s}x${e}`;
            else qrels += `${q}${s}0${s}${d}${s}${g}${e}`;
          }
          // Run: each query's lines together (grouped by first appearance), each docno once.
          const listed = new Set<string>();
          const byQuery = new Map<string, string[]>();
          for (const [q, d, sc, s, e, extra, odd] of runLines) {
            if (listed.has(`${q} ${d}`)) continue;
            listed.add(`${q} ${d}`);
            const lines = byQuery.get(q) ?? [];
            const tail = extra ? " more fields" : "";
            const tag = odd === 0 ? "" : `${s}tag${tail}`;
            lines.push(`${q}${s}Q0${s}${d}${s}${lines.length + 1}${s}${sc}${tag}${e}`);
            byQuery.set(q, lines);
          }
          const groups = [...byQuery.values()];
          if (reverse) groups.reverse();
          const run = groups.map((lines) => lines.join("")).join("");
          const i = input(await file(qrels), await file(run), level);
          const records = await outcome(evalRecords, i);
          if (!("thrown" in records)) compared++;
          expectSame(await outcome(evalColumnar, i), records);
        },
      ),
      { numRuns: 200 },
    );
    // Most cases are scored by both paths, not refused by both.
    expect(compared).toBeGreaterThan(100);
  });

  it("agrees on the same judgments whatever the file layout (BOM, blank lines, qrels out of order)", async () => {
    const qrels = "\uFEFF2 0 b 1\n\n1 0 a 2\n2 0 c 0\n1 0 c 1\n";
    const run = "\uFEFF1 Q0 c 1 2 t\n1 Q0 a 2 2 t\n\n  \n2 Q0 b 1 0.5 t\n3 Q0 z 1 9 t";
    const i = input(await file(qrels), await file(run));
    const columnar = await outcome(evalColumnar, i);
    expect("thrown" in columnar).toBe(false);
    expectSame(columnar, await outcome(evalRecords, i));
    // Query 1: tied scores, docno descending puts c (relevant, 1) before a (2).
    const s = columnar as EvalScores;
    expect(ids(s)).toEqual(["2", "1"]);
    expect([...(s.scores[ALL.indexOf("mrr")] as Float64Array)]).toEqual([1, 1]);
    expect([...(s.scores[ALL.indexOf("precision@1")] as Float64Array)]).toEqual([1, 1]);
  });

  it("hands over what the record path refuses, and what it reads only there", async () => {
    const good = await file("1 0 a 1\n");
    const goodRun = await file("1 Q0 a 1 1 t\n");
    const cases: [string, string][] = [
      ["1 0 a\n", "1 Q0 a 1 1 t\n"], // 3 fields
      ["1 0 a 1 x\n", "1 Q0 a 1 1 t\n"], // 5 fields
      ["1 0 a one\n", "1 Q0 a 1 1 t\n"], // grade not a number
      ["1 0 a 1\n1 0 a 2\n", "1 Q0 a 1 1 t\n"], // judged twice
      ["1 0 a 1\n2 0 b 1\n1 0 a 2\n", "1 Q0 a 1 1 t\n"], // judged twice, apart
      ["", "1 Q0 a 1 1 t\n"], // no judgments
      ["1 0 a 0\n", "1 Q0 a 1 1 t\n"], // nothing relevant
      ["1 0 a 1\n", "1 Q0 a 1 1\n"], // 5 fields
      ["1 0 a 1\n", "1 Q0 a 1 high t\n"], // score not a number
      ["1 0 a 1\n", "1 Q0 a 1 Infinity t\n"], // score not finite
      ["1 0 a 1\n", "1 Q0 a 1 1 t\n1 Q0 a 2 0 t\n"], // listed twice
      ["1 0 a 1\n", "9 Q0 a 1 1 t\n9 Q0 a 2 0 t\n"], // listed twice, in a run-only query
    ];
    for (const [qrels, run] of cases) {
      const i = input(await file(qrels), await file(run));
      const records = await outcome(evalRecords, i);
      expect(records, `${JSON.stringify(qrels)} / ${JSON.stringify(run)}`).toEqual({
        thrown: "ConfigurationError",
      });
      expect(await outcome(evalColumnar, i)).toMatchObject({ thrown: "HandOver" });
    }
    // Read by the record path only, and scored there alike: gzip, invalid UTF-8, a missing file,
    // and a run whose query's lines are split (trec_eval's results.trunc interleaves two queries).
    const handed = [
      input(await file(gzipSync("1 0 a 1\n")), goodRun),
      input(
        good,
        await file(
          Buffer.from([
            0x31, 0x20, 0x51, 0x30, 0x20, 0xff, 0x20, 0x31, 0x20, 0x31, 0x20, 0x74, 0x0a,
          ]),
        ),
      ),
      input(join(dir, "absent.txt"), goodRun),
      input(good, await file("1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n1 Q0 c 2 0 t\n")),
      input(join(trec, "qrels.test"), join(trec, "results.trunc")),
    ];
    for (const i of handed)
      expect(await outcome(evalColumnar, i)).toMatchObject({ thrown: "HandOver" });
    const split = handed[3] as EvalInput;
    const records = (await evalRecords(split, metrics())) as EvalScores;
    expect([...(records.scores[ALL.indexOf("precision@10")] as Float64Array)]).toEqual([0.1]);
  });
});
