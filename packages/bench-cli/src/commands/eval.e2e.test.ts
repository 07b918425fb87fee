import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, scratchDir } from "../__fixtures__/cli-process.js";
import { evalValues, trec, trecEvalValues } from "../__fixtures__/trec-eval.js";

// End-to-end: these tests start the built binary as a child process, as a user or CI would.

/** `fastrag-bench eval` of one of trec_eval's shared runs against its qrels.test. */
function evalTrec(run: string, ...args: string[]) {
  return cli(["eval", "--qrels", join(trec, "qrels.test"), "--run", join(trec, run), ...args]);
}

const OURS_TO_TREC: Record<string, string> = {
  map: "map",
  mrr: "recip_rank",
  r_precision: "Rprec",
  "ndcg@10": "ndcg_cut_10",
  "recall@100": "recall_100",
  "precision@10": "P_10",
  "precision@5": "P_5",
  "recall@1000": "recall_1000",
  "hit_rate@10": "success_10",
  "map@1000": "map_cut_1000",
};

/** Our metric name as trec_eval names it: `precision@5` → `P_5`. */
function trecName(name: string): string {
  return name
    .replace(/^precision@/, "P_")
    .replace(/^ndcg@/, "ndcg_cut_")
    .replace(/^map@/, "map_cut_")
    .replace(/^recall@/, "recall_")
    .replace(/^hit_rate@/, "success_");
}

/**
 * Checks every `metric<TAB>query<TAB>value` line of `eval` against trec_eval's value, printed
 * with 4 decimals as trec_eval prints it; returns the `measure|query` keys compared.
 */
function expectTrecEvalLines(stdout: string, expected: Map<string, number>): string[] {
  const keys: string[] = [];
  for (const line of stdout.trim().split("\n")) {
    const [metric, query, value] = line.split("\t") as [string, string, string];
    const key = `${trecName(metric)}|${query}`;
    expect(expected.get(key), key).toBeDefined();
    // The counts (num_ret…) print as integers, as trec_eval prints them.
    const count = TREC_COUNTS.includes(metric);
    expect(value, key).toBe(
      count ? String(expected.get(key)) : (expected.get(key) as number).toFixed(4),
    );
    keys.push(key);
  }
  return keys;
}

/** trec_eval's counts, printed first (num_q under "all" only). */
const TREC_COUNTS = ["num_q", "num_ret", "num_rel", "num_rel_ret"];

const parseEval = (stdout: string) => evalValues(stdout, (m) => OURS_TO_TREC[m] ?? m);

let dir: string;
beforeAll(async () => {
  dir = await scratchDir();
});

describe("fastrag-bench eval", () => {
  it("prints trec_eval's values for the default measures", async () => {
    const r = evalTrec("results.test");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines.map((l) => l.split("\t")[0])).toEqual([
      ...TREC_COUNTS,
      "map",
      "mrr",
      "r_precision",
      "ndcg@10",
      "recall@100",
      "precision@10",
    ]);
    const expected = await trecEvalValues("out.test.a");
    for (const [key, value] of parseEval(r.stdout)) {
      expect(expected.get(key), key).toBeDefined();
      expect(value.toFixed(4), key).toBe((expected.get(key) as number).toFixed(4));
    }
  });

  it("reads gzip-compressed qrels and runs", async () => {
    const { gzipSync } = await import("node:zlib");
    const qrels = join(dir, "qrels.test.gz");
    const run = join(dir, "results.test.gz");
    await writeFile(qrels, gzipSync(await readFile(join(trec, "qrels.test"))));
    await writeFile(run, gzipSync(await readFile(join(trec, "results.test"))));
    const expected = evalTrec("results.test", "--per-query");
    expect(expected.code).toBe(0);
    const r = cli(["eval", "--qrels", qrels, "--run", run, "--per-query"]);
    expect(r.stderr).toBe(expected.stderr);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(expected.stdout);
    expect(expected.stdout.split("\n").length).toBeGreaterThan(20);
  });

  it("matches trec_eval per query, including a query missing from the run (-c)", async () => {
    const args = [
      "-m",
      "map",
      "-m",
      "P_5",
      "-m",
      "ndcg_cut_10",
      "-m",
      "recip_rank",
      "-m",
      "success_10",
      "-m",
      "ndcg",
    ];
    for (const [run, file] of [
      ["results.test", "out.test.aq"],
      ["results.trunc", "out.test.aqc"],
    ] as const) {
      const r = evalTrec(run, "--per-query", ...args);
      expect(r.code).toBe(0);
      const expected = await trecEvalValues(file);
      const ours = parseEval(r.stdout);
      // 3 queries + all, 6 measures; num_ret, num_rel, num_rel_ret per query and with num_q in
      // "all" (trec_eval's counts: for the query missing from results.trunc, num_ret 0).
      expect(ours.size).toBe(6 * 4 + 3 * 3 + 4);
      for (const [key, value] of ours)
        expect(value.toFixed(4), `${file} ${key}`).toBe(expected.get(key)?.toFixed(4));
    }
  });

  it("takes trec_eval's lists of cutoffs (-m P.5,7,3) and matches its values", async () => {
    const r = evalTrec(
      "results.test",
      "-q", // trec_eval's spelling of --per-query
      "-m",
      "P.5,7,3",
      "-m",
      "ndcg_cut.10,20,23",
      "-m",
      "recall.20,2000",
      "-m",
      "success.2,5,20",
    );
    expect(r.code, r.stderr).toBe(0);
    const names = [
      ...new Set(
        r.stdout
          .trim()
          .split("\n")
          .map((l) => l.split("\t")[0] as string)
          .filter((name) => !TREC_COUNTS.includes(name)),
      ),
    ];
    expect(names).toEqual([
      "precision@5",
      "precision@7",
      "precision@3",
      "ndcg@10",
      "ndcg@20",
      "ndcg@23",
      "recall@20",
      "recall@2000",
      "hit_rate@2",
      "hit_rate@5",
      "hit_rate@20",
    ]);
    // out.test.meas_params has only the measures asked for, not trec_eval's counts.
    const measures = r.stdout
      .split("\n")
      .filter((l) => !TREC_COUNTS.includes(l.split("\t")[0] as string))
      .join("\n");
    const compared = expectTrecEvalLines(measures, await trecEvalValues("out.test.meas_params"));
    expect(compared).toHaveLength(11 * 4); // 3 queries + all
    const twice = evalTrec("results.test", "-m", "P.5,5");
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/-m precision@5 is given twice/);
  });

  it("takes a measure without cutoffs (-m P) with trec_eval's default cutoffs", async () => {
    const r = evalTrec(
      "results.test",
      "-q",
      ...["P", "recall", "ndcg_cut", "map_cut", "success"].flatMap((m) => ["-m", m]),
    );
    expect(r.code, r.stderr).toBe(0);
    const expected = await trecEvalValues("out.test.aq");
    const names = new Set(
      expectTrecEvalLines(r.stdout, expected)
        .map((k) => k.split("|")[0] as string)
        .filter((name) => !TREC_COUNTS.includes(name)),
    );
    // Every cutoff trec_eval prints for these five measures, and no other.
    const trecNames = [...expected.keys()]
      .map((k) => k.split("|")[0] as string)
      .filter((m) => /^(P|recall|ndcg_cut|map_cut|success)_\d+$/.test(m));
    expect([...names].sort()).toEqual([...new Set(trecNames)].sort());
    expect(names.size).toBe(4 * 9 + 3);
  });

  it("under -l, notes the queries each measure left out, ndcg keeping graded ones", async () => {
    const qrels = join(dir, "l2.qrels");
    const run = join(dir, "l2.run");
    // At -l 2 only q1 has a relevant document; q2 has a grade-1 one that ndcg still counts.
    await writeFile(qrels, "q1 0 a 2\nq2 0 b 1\nq3 0 c 0\n");
    await writeFile(run, "q1 Q0 a 1 3 t\nq2 Q0 x 1 3 t\nq2 Q0 b 2 2 t\nq3 Q0 c 1 1 t\n");
    const args = ["eval", "--qrels", qrels, "--run", run, "-l", "2", "-m", "map", "-m", "ndcg@5"];
    const r = cli([...args, "-q"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("map\tall\t1.0000");
    expect(r.stdout).not.toContain("map\tq2");
    expect(r.stdout).toContain("ndcg@5\tq2\t0.6309");
    expect(r.stderr).toContain(
      "note: left out 2 queries with no relevant documents (q2, q3) (left out of map: 2, ndcg@5: 1); trec_eval averages them in as 0",
    );
    const json = JSON.parse(cli([...args, "--json"]).stdout);
    expect(json.left_out).toEqual(["q2", "q3"]);
    expect([json.metrics.map.count, json.metrics["ndcg@5"].count]).toEqual([1, 2]);
  });

  it("rounds a score halfway between two 4-decimal values as trec_eval's printf does", async () => {
    // Recall 1 of 32 is 0.03125 exactly: printf("%.4f") gives 0.0312 (ties to even), where
    // toFixed(4) would give 0.0313.
    const qrels = join(dir, "tie.qrels");
    const run = join(dir, "tie.run");
    await writeFile(qrels, Array.from({ length: 32 }, (_, i) => `q1 0 d${i} 1\n`).join(""));
    await writeFile(run, "q1 Q0 d0 1 5 t\nq1 Q0 x 2 4 t\n");
    const r = cli(["eval", "--qrels", qrels, "--run", run, "-m", "recall@100", "--per-query"]);
    expect(r.code).toBe(0);
    // Counted by hand: 2 documents retrieved, 32 relevant, 1 of them retrieved.
    expect(r.stdout).toBe(
      "num_ret\tq1\t2\nnum_rel\tq1\t32\nnum_rel_ret\tq1\t1\nrecall@100\tq1\t0.0312\n" +
        "num_q\tall\t1\nnum_ret\tall\t2\nnum_rel\tall\t32\nnum_rel_ret\tall\t1\nrecall@100\tall\t0.0312\n",
    );
  });

  it("emits JSON with --json", () => {
    const r = evalTrec("results.test", "-m", "map", "--json");
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.metrics.map.all.toFixed(4)).toBe("0.1785");
    expect(json.queries).toBe(3);
  });

  it("names the qrels file when there is nothing to score", async () => {
    const empty = join(dir, "empty.qrels");
    await writeFile(empty, "");
    const none = cli(["eval", "--qrels", empty, "--run", join(trec, "results.test")]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error: .*empty\.qrels: no judgments/);
    const high = evalTrec("results.test", "-l", "99", "-m", "map", "-m", "P.10");
    expect(high.code).toBe(2);
    expect(high.stderr).toMatch(
      /qrels\.test: no query has a document of grade 99 or more.*lower -l/,
    );
  });

  it("scores ndcg under -l above every grade, as trec_eval does", () => {
    // trec_eval's -l narrows the binary measures only: ndcg_cut_10 stays at out.test.a's 0.3016.
    const high = evalTrec("results.test", "-l", "99", "-m", "ndcg_cut.10", "-m", "map");
    expect(high.code).toBe(0);
    // No document has grade 99: nothing relevant to count, but ndcg scored all 3 queries.
    expect(high.stdout).toBe(
      "num_q\tall\t3\nnum_ret\tall\t1500\nnum_rel\tall\t0\nnum_rel_ret\tall\t0\n" +
        "ndcg@10\tall\t0.3016\nmap\tall\t—\n",
    );
    expect(high.stderr).toMatch(
      /warning: map scored no query: no query has a document of grade 99 or more \(lower -l\)/,
    );
  });

  it("says how many judged queries the run has no ranking for", async () => {
    const trunc = evalTrec("results.trunc");
    expect(trunc.code).toBe(0);
    expect(trunc.stderr).toMatch(
      /note: the run has no ranking for 1 of the 3 queries with a relevant document; they score 0/,
    );
    const other = join(dir, "other.run");
    await writeFile(other, "zzz Q0 doc 1 1.0 t\n");
    const r = cli(["eval", "--qrels", join(trec, "qrels.test"), "--run", other, "--json"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /warning: the run has no ranking for any of the 3 queries with a relevant document/,
    );
    expect(JSON.parse(r.stdout).not_in_run).toBe(3);
    // A query with no relevant document is left out, not scored 0: it is not counted as missing.
    const qrels = join(dir, "mixed.qrels");
    await writeFile(qrels, "q1 0 d1 1\nq2 0 d2 0\nq3 0 d3 1\n");
    const run = join(dir, "mixed.run");
    await writeFile(run, "q1 Q0 d1 1 2.0 t\nq3 Q0 d9 1 2.0 t\n");
    const mixed = cli(["eval", "--qrels", qrels, "--run", run, "-m", "map", "--json"]);
    expect(mixed.code).toBe(0);
    expect(mixed.stderr).not.toMatch(/no ranking/);
    expect(mixed.stderr).toMatch(/left out 1 query with no relevant documents \(q2\)/);
    expect(JSON.parse(mixed.stdout).not_in_run).toBe(0);
    // A query id holding an escape sequence is shown escaped in that note, never sent raw.
    const escaped = join(dir, "escape.qrels");
    await writeFile(escaped, "q1 0 d1 1\nq\u001b[2J 0 d2 0\n");
    const noted = cli(["eval", "--qrels", escaped, "--run", run, "-m", "map"]);
    expect(noted.code).toBe(0);
    expect(noted.stderr).toContain("(q\\u001b[2J)");
    expect(noted.stderr).not.toContain("\u001b");
  });

  it("exits 2 with a one-line error and no stack trace on bad input", () => {
    const r = cli([
      "eval",
      "--qrels",
      join(dir, "missing.qrels"),
      "--run",
      join(trec, "results.test"),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: .*missing\.qrels/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const bad = evalTrec("results.test", "-m", "bpref");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown metric "bpref"/);
  });
});
