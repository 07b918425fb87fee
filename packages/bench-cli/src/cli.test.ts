import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readlinkSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { sharedData } from "../../../test-support/shared-data.js";

// End-to-end: these tests start the built binary as a child process, as a user or CI would.
const bin = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
const fixtures = fileURLToPath(new URL("./__fixtures__/", import.meta.url));
const trec = sharedData("trec_eval/");

function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `fastrag-bench eval` of one of trec_eval's shared runs against its qrels.test. */
function evalTrec(run: string, ...args: string[]) {
  return cli(["eval", "--qrels", join(trec, "qrels.test"), "--run", join(trec, run), ...args]);
}

/** trec_eval's `all` (or per-query) values from one of its expected-output files. */
async function trecEvalValues(file: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const line of (await readFile(join(trec, file), "utf8")).split("\n")) {
    const [measure, query, value] = line.split("\t").map((s) => s.trim());
    if (measure && query && value !== undefined && !Number.isNaN(Number(value))) {
      out.set(`${measure}|${query}`, Number(value));
    }
  }
  return out;
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

function parseEval(stdout: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of stdout.trim().split("\n")) {
    const [metric, query, value] = line.split("\t");
    out.set(`${OURS_TO_TREC[metric as string] ?? metric}|${query}`, Number(value));
  }
  return out;
}

let dir: string;
beforeAll(async () => {
  expect(existsSync(bin), "build the package first (pnpm build)").toBe(true);
  dir = await mkdtemp(join(tmpdir(), "fastrag-cli-"));
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

  it("reads gzip-compressed qrels and runs, on one thread or several", async () => {
    const { gzipSync } = await import("node:zlib");
    const qrels = join(dir, "qrels.test.gz");
    const run = join(dir, "results.test.gz");
    await writeFile(qrels, gzipSync(await readFile(join(trec, "qrels.test"))));
    await writeFile(run, gzipSync(await readFile(join(trec, "results.test"))));
    const expected = evalTrec("results.test", "--per-query");
    expect(expected.code).toBe(0);
    for (const threads of ["1", "2"]) {
      const r = cli(["eval", "--qrels", qrels, "--run", run, "--per-query", "--threads", threads]);
      expect(r.stderr).toBe(expected.stderr);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(expected.stdout);
    }
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
    // On threads too: the shards have nothing to score either, and the error reads the same.
    for (const threads of ["1", "2"]) {
      const high = evalTrec(
        "results.test",
        "-l",
        "99",
        "-m",
        "map",
        "-m",
        "P.10",
        "--threads",
        threads,
      );
      expect(high.code).toBe(2);
      expect(high.stderr).toMatch(
        /qrels\.test: no query has a document of grade 99 or more.*lower -l/,
      );
    }
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
    const threads = evalTrec(
      "results.test",
      "-l",
      "99",
      "-m",
      "ndcg_cut.10",
      "-m",
      "map",
      "--threads",
      "2",
    );
    expect(threads.stdout).toBe(high.stdout);
    expect(threads.stderr).toBe(high.stderr);
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

describe("output into a pipe", () => {
  it("ends quietly, with its own exit code, when the reader stops early (| head)", async () => {
    // Enough per-query lines (about 0.5 MB) to overflow the pipe after the reader has gone.
    const qrels: string[] = [];
    const run: string[] = [];
    for (let q = 0; q < 20_000; q++) {
      qrels.push(`q${q} 0 d${q} 1`);
      run.push(`q${q} Q0 d${q} 1 1.0 t`);
    }
    await writeFile(join(dir, "pipe.qrels"), `${qrels.join("\n")}\n`);
    await writeFile(join(dir, "pipe.run"), `${run.join("\n")}\n`);
    const child = spawn(
      process.execPath,
      [
        bin,
        "eval",
        "--qrels",
        join(dir, "pipe.qrels"),
        "--run",
        join(dir, "pipe.run"),
        "--per-query",
      ],
      { env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    let first = "";
    child.stdout.once("data", (chunk) => {
      first = String(chunk);
      child.stdout.destroy(); // what `head -1` does once it has its line
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    // trec_eval's per-query counts come first (each query has 1 document, relevant and retrieved).
    expect(first).toMatch(
      /^num_ret\tq0\t1\nnum_rel\tq0\t1\nnum_rel_ret\tq0\t1\nmap\tq0\t1\.0000\n/,
    );
    expect(stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(code).toBe(0);
  });
});

describe("usage", () => {
  it("prints help for every command and exits 0", () => {
    for (const cmd of ["run", "rescore", "compare", "diff", "check", "eval", "merge"]) {
      const r = cli([cmd, "--help"]);
      expect(r.code, cmd).toBe(0);
      expect(r.stdout).toContain(`Usage: fastrag-bench ${cmd}`);
    }
    expect(cli(["--help"]).stdout).toMatch(/Commands:[\s\S]*eval/);
  });

  it("exits 2 for unknown commands, missing arguments and bad flags", () => {
    expect(cli(["frobnicate"]).code).toBe(2);
    expect(cli(["check"]).code).toBe(2);
    expect(cli([]).code).toBe(2);
    const r = cli(["compare", "x.json", "--format", "pdf"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/pdf/);
  });
});

describe("run, compare, diff, check, merge", () => {
  let out: string;
  beforeAll(() => {
    out = join(dir, "results");
  });

  it("runs every target of a config, saves results and prints a marked table", async () => {
    const r = cli(["run", join(fixtures, "demo.config.mjs"), "--out-dir", out]);
    expect(r.stderr).toMatch(/weak: 40 samples/);
    expect(r.code).toBe(0);
    expect(existsSync(join(out, "weak.json"))).toBe(true);
    expect(existsSync(join(out, "strong.json"))).toBe(true);
    const strong = JSON.parse(await readFile(join(out, "strong.json"), "utf8"));
    expect(strong.summary["recall@3"].mean).toBe(1);
    expect(strong.summary.mrr.mean).toBe(1);
    // weak: 20 of 40 found at rank 2 → recall 0.5, mrr 0.25
    const weak = JSON.parse(await readFile(join(out, "weak.json"), "utf8"));
    expect(weak.summary["recall@3"].mean).toBe(0.5);
    expect(weak.summary.mrr.mean).toBe(0.25);
    expect(r.stdout).toContain("recall@3");
    expect(r.stdout).toMatch(/strong/);
    // The strong run beats the baseline (weak, labelled a) significantly: a superscript a.
    expect(r.stdout).toMatch(/1\.0000ᵃ/);
    expect(existsSync(join(out, ".journal", "weak.jsonl"))).toBe(false);
  });

  it("loads a TypeScript config and makes run names file-safe", () => {
    const r = cli(["run", join(fixtures, "typed.config.ts"), "--out-dir", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(out, "typed_run.json"))).toBe(true);
  });

  it("reports errored samples without failing the run", () => {
    const r = cli(["run", join(fixtures, "flaky.config.mjs"), "--out-dir", out]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/flaky: 10 samples .*successful 9, incomplete 0, errored 1/);
  });

  it("ends once its results are saved, though the config left handles open", () => {
    const to = join(dir, "open-handle");
    const started = Date.now();
    const r = spawnSync(
      process.execPath,
      [bin, "run", join(fixtures, "open-handle.config.mjs"), "--out-dir", to],
      {
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "1" },
        timeout: 20_000,
        killSignal: "SIGKILL",
      },
    );
    expect(r.signal, "still running 20 s after the run").toBeNull();
    expect(r.status, r.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.stderr).toMatch(/pooled: 2 samples .*successful 1, incomplete 0, errored 1/);
    expect(r.stdout).toMatch(/\| pooled \| 1 \| 0 \| 1\.0000 \|/);
    expect(existsSync(join(to, "pooled.json"))).toBe(true);
  });

  it("resumes an interrupted run without re-running the targets that had finished", async () => {
    const to = join(dir, "resume");
    const calls = join(dir, "resume-calls.txt");
    const config = join(fixtures, "resume.config.mjs");
    const env = { FASTRAG_TEST_CALLS: calls };
    const callsOf = async () => (await readFile(calls, "utf8")).trim().split("\n");

    const stopped = cli(["run", config, "--out-dir", to], { ...env, FASTRAG_TEST_INTERRUPT: "1" });
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toMatch(/second: stopped; finished samples are kept/);
    const firstCalls = await callsOf();
    // first ran all 10; second stopped after q2, the in-flight call that saw the interrupt.
    expect(firstCalls.filter((c) => c.startsWith("first "))).toHaveLength(10);
    expect(firstCalls.filter((c) => c.startsWith("second "))).toEqual([
      "second q0",
      "second q1",
      "second q2",
    ]);
    const firstSaved = await readFile(join(to, "first.json"), "utf8");

    const resumed = cli(["run", config, "--out-dir", to], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/first: finished before the interruption; kept /);
    expect(resumed.stderr).toMatch(/second: resuming from /);
    // No call of first again; second calls only the seven samples it had not finished.
    const resumeCalls = (await callsOf()).slice(firstCalls.length);
    expect(resumeCalls).toEqual(
      ["q3", "q4", "q5", "q6", "q7", "q8", "q9"].map((q) => `second ${q}`),
    );
    // first's file is the one saved before the interruption, untouched.
    expect(await readFile(join(to, "first.json"), "utf8")).toBe(firstSaved);
    const second = JSON.parse(await readFile(join(to, "second.json"), "utf8"));
    expect(second.samples).toHaveLength(10);
    expect(second.summary.exact_match.mean).toBe(0.9);
    // Both targets are in the table, and nothing of the journal is left.
    expect(resumed.stdout).toMatch(/first/);
    expect(resumed.stdout).toMatch(/second/);
    expect(existsSync(join(to, ".journal"))).toBe(false);

    // A finished command leaves nothing to resume: the next run calls every target again.
    const again = cli(["run", config, "--out-dir", to], env);
    expect(again.code, again.stderr).toBe(0);
    expect((await callsOf()).length).toBe(firstCalls.length + resumeCalls.length + 20);
  });

  it("runs a kept target again under --fresh and --retry-errored", async () => {
    const to = join(dir, "resume-fresh");
    const calls = join(dir, "resume-fresh-calls.txt");
    const config = join(fixtures, "resume.config.mjs");
    const env = { FASTRAG_TEST_CALLS: calls };
    const count = async (who: string) =>
      (await readFile(calls, "utf8")).split("\n").filter((c) => c.startsWith(who)).length;
    expect(
      cli(["run", config, "--out-dir", to], { ...env, FASTRAG_TEST_INTERRUPT: "1" }).code,
    ).toBe(130);
    expect(await count("first ")).toBe(10);
    const fresh = cli(["run", config, "--out-dir", to, "--fresh"], env);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stderr).not.toMatch(/kept|resuming/);
    expect(await count("first ")).toBe(20);
    expect(await count("second ")).toBe(3 + 10);

    // --retry-errored replays a kept target from its journal (to re-run its errored samples;
    // first has none, so no call) instead of keeping its file as is.
    expect(
      cli(["run", config, "--out-dir", to], { ...env, FASTRAG_TEST_INTERRUPT: "1" }).code,
    ).toBe(130);
    expect(await count("first ")).toBe(30);
    const retry = cli(["run", config, "--out-dir", to, "--retry-errored"], env);
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stderr).toMatch(/first: resuming from /);
    expect(retry.stderr).not.toMatch(/kept/);
    expect(await count("first ")).toBe(30);
    expect(await count("second ")).toBe(13 + 3 + 7);
  });

  /** Starts `run` of hold.config.mjs, whose first call waits for `release` once `started`. */
  async function startHeld(to: string, tag: string) {
    const config = join(fixtures, "hold.config.mjs");
    const env = {
      FASTRAG_TEST_STARTED: join(dir, `${tag}-started`),
      FASTRAG_TEST_RELEASE: join(dir, `${tag}-release`),
    };
    const child = spawn(process.execPath, [bin, "run", config, "--out-dir", to], {
      env: { ...process.env, NO_COLOR: "1", ...env },
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((done) => child.on("exit", done));
    while (!existsSync(env.FASTRAG_TEST_STARTED) && child.exitCode === null) {
      await new Promise((wait) => setTimeout(wait, 20));
    }
    return {
      child,
      config,
      env,
      exited,
      stderr: () => stderr,
      /** Lets the held call return; kills the run should it not end (a failed test). */
      release: async () => {
        await writeFile(env.FASTRAG_TEST_RELEASE, "");
        const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
        const code = await exited;
        clearTimeout(timer);
        return code;
      },
    };
  }

  it("refuses to run a target that another run is running into the same directory", async () => {
    const to = join(dir, "locked");
    const held = await startHeld(to, "locked");
    try {
      const lock = join(to, ".journal", "held.lock");
      expect(existsSync(lock), held.stderr()).toBe(true);
      const second = cli(["run", held.config, "--out-dir", to], held.env);
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(
        `another fastrag-bench run (pid ${held.child.pid} on ${hostname()}`,
      );
      expect(second.stderr).toContain(`is running target "held" into this directory`);
      expect(second.stderr).toContain(`delete ${lock}`);
      expect(second.stderr.trim().split("\n")).toHaveLength(1);
      // The refused run touched nothing: the first one's lock and journal are still there.
      expect(existsSync(lock)).toBe(true);
      expect(existsSync(join(to, ".journal", "held.jsonl"))).toBe(true);
    } finally {
      expect(await held.release(), held.stderr()).toBe(0);
    }
    expect(JSON.parse(await readFile(join(to, "held.json"), "utf8")).samples).toHaveLength(3);
    expect(existsSync(join(to, ".journal"))).toBe(false);
  });

  it("stops on SIGTERM as on Ctrl-C: exit 143, journal kept, lock released", async () => {
    const to = join(dir, "terminated");
    const held = await startHeld(to, "terminated");
    let code: number | null;
    try {
      held.child.kill("SIGTERM");
      await new Promise((wait) => setTimeout(wait, 200));
    } finally {
      code = await held.release();
    }
    expect(code, held.stderr()).toBe(143);
    expect(held.stderr()).toMatch(/terminated: letting in-flight samples finish/);
    expect(existsSync(join(to, ".journal", "held.lock"))).toBe(false);
    expect(existsSync(join(to, ".journal", "held.jsonl"))).toBe(true);
    const resumed = cli(["run", held.config, "--out-dir", to], held.env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/held: resuming from /);
  });

  it("takes over a lock whose process has ended; a live one's holds however old", async () => {
    const to = join(dir, "stale-lock");
    const config = join(fixtures, "hold.config.mjs");
    const env = {
      FASTRAG_TEST_STARTED: join(dir, "stale-started"),
      FASTRAG_TEST_RELEASE: join(dir, "stale-release"),
    };
    await writeFile(env.FASTRAG_TEST_RELEASE, "");
    const lock = join(to, ".journal", "held.lock");
    // This machine as the lock module names it: host name, boot, pid namespace (Linux).
    const read = (f: () => string) => {
      try {
        return f();
      } catch {
        return "";
      }
    };
    const machine = `${hostname()}|${read(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim())}|${read(() => readlinkSync("/proc/self/ns/pid"))}`;
    const holder = (pid: number, where: string) =>
      JSON.stringify({
        pid,
        host: hostname(),
        machine: where,
        started: "2026-01-01T00:00:00.000Z",
        token: "other",
      });

    // Left by a process of this machine that has ended (killed with -9, say).
    const gone = spawnSync(process.execPath, ["-e", ""]).pid as number;
    await mkdir(dirname(lock), { recursive: true });
    await writeFile(lock, holder(gone, machine));
    const taken = cli(["run", config, "--out-dir", to], env);
    expect(taken.code, taken.stderr).toBe(0);
    expect(taken.stderr).toContain(
      `note: held: took over the lock ${lock}, whose process (pid ${gone}) has ended`,
    );
    expect(existsSync(lock)).toBe(false);

    // A live process of this machine (this test's), its lock untouched for an hour: held.
    await mkdir(dirname(lock), { recursive: true });
    await writeFile(lock, holder(process.pid, machine));
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(lock, hourAgo, hourAgo);
    const refused = cli(["run", config, "--out-dir", to], env);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`(pid ${process.pid} on ${hostname()}, since 2026-01-01`);
    // Another machine's (a container of the same host name), fresh: held.
    await writeFile(lock, holder(gone, `${hostname()}|another-boot|pid:[1]`));
    const elsewhere = cli(["run", config, "--out-dir", to], env);
    expect(elsewhere.code, elsewhere.stderr).toBe(2);
  });

  it("stops at once on Ctrl-C while it watches another machine's old lock", async () => {
    const to = join(dir, "watched-lock");
    const lock = join(to, ".journal", "held.lock");
    const other = JSON.stringify({
      pid: 42,
      host: "ci-runner-2",
      machine: "ci-runner-2|boot|pid:[1]",
      started: "2026-01-01T00:00:00.000Z",
      token: "other",
    });
    await mkdir(dirname(lock), { recursive: true });
    await writeFile(lock, other);
    const tenMinutesAgo = new Date(Date.now() - 600_000);
    await utimes(lock, tenMinutesAgo, tenMinutesAgo);
    const child = spawn(
      process.execPath,
      [bin, "run", join(fixtures, "hold.config.mjs"), "--out-dir", to],
      { env: { ...process.env, NO_COLOR: "1" } },
    );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((done) => child.on("exit", done));
    const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    try {
      while (!stderr.includes("watching it for") && child.exitCode === null) {
        await new Promise((wait) => setTimeout(wait, 20));
      }
      expect(stderr).toContain("looks abandoned; watching it for 20 s");
      const interrupted = Date.now();
      child.kill("SIGINT");
      expect(await exited, stderr).toBe(130);
      // Not the rest of the 20 s watch (nor the SIGKILL at 15 s).
      expect(Date.now() - interrupted).toBeLessThan(10_000);
    } finally {
      clearTimeout(killer);
    }
    expect(stderr).toContain(`held: stopped while watching the lock ${lock}; no target ran`);
    // The other machine's lock is left as it was, and nothing ran.
    expect(await readFile(lock, "utf8")).toBe(other);
    expect(existsSync(join(to, ".journal", "held.jsonl"))).toBe(false);
  });

  it("names --fresh when a target's journal belongs to another run", async () => {
    const to = join(dir, "foreign-journal");
    await mkdir(join(to, ".journal"), { recursive: true });
    const header = {
      journal: "fastrag-bench-journal/1",
      name: "flaky",
      dataset_fingerprint: "sha256:0000",
      dataset_size: 3,
      metrics: ["exact_match"],
      shard: null,
    };
    await writeFile(join(to, ".journal", "flaky.jsonl"), `${JSON.stringify(header)}\n`);
    const r = cli(["run", join(fixtures, "flaky.config.mjs"), "--out-dir", to]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/belongs to another run: dataset differs/);
    expect(r.stderr).toMatch(/fastrag-bench run --fresh/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // --fresh discards it and runs.
    expect(cli(["run", join(fixtures, "flaky.config.mjs"), "--out-dir", to, "--fresh"]).code).toBe(
      0,
    );
  });

  it("refuses an empty target name before any target runs", async () => {
    const to = join(dir, "empty-name");
    const calls = join(dir, "empty-name-calls.txt");
    const r = cli(["run", join(fixtures, "empty-name.config.mjs"), "--out-dir", to], {
      FASTRAG_TEST_CALLS: calls,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/a target has an empty name \(" "\)/);
    expect(existsSync(calls)).toBe(false);
    expect(existsSync(join(to, "ok.json"))).toBe(false);
  });

  it("says why samples errored, and which metric scored nothing", () => {
    const r = cli(["run", join(fixtures, "bad-output.config.mjs"), "--out-dir", join(dir, "bad")]);
    // strings errored on every sample: the run fails (issue 34), naming it; results are saved.
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain("error: strings: every sample errored (3 of 3)");
    // engine ran fine, but the dataset has no expected answers: exact_match scored no sample.
    expect(r.stderr).toMatch(
      /✓ engine: 3 samples .*\n {2}exact_match scored no sample: does the dataset have what it needs/,
    );
    // strings returned ids, not chunks: every sample errored, and the reason is printed.
    expect(r.stderr).toMatch(/! strings: 3 samples .*errored 3/);
    expect(r.stderr).toMatch(
      / {2}every sample errored, e\.g\. MalformedOutputError: query\(\) chunks\[0\] is a string \("d0"\), expected a chunk .*; or .*\("d1"\)/,
    );
    expect(r.stderr).toMatch(/ {2}every error is in .*strings\.json/);
    // booming ran, but the boom metric threw on every sample: a metric failure, not an errored
    // sample, and not the dataset's fault. Its two-line message is printed on one line.
    expect(r.stderr).toMatch(/✓ booming: 3 samples .*errored 0\)/);
    expect(r.stderr).toMatch(
      / {2}a metric failed on 3 samples, e\.g\. boom: exploded on a second line\n/,
    );
    expect(r.stderr).toMatch(/ {2}boom scored no sample: it failed on them \(see above\)/);
    expect(r.stderr).not.toMatch(/boom scored no sample: does the dataset/);
  });

  it("runs a TypeScript config that exports `config` rather than a default", () => {
    const to = join(dir, "named");
    const r = cli(["run", join(fixtures, "named-export.config.ts"), "--out-dir", to]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(to, "named.json"))).toBe(true);
  });

  it("warns of a misspelled config key, and refuses targets given as an array", () => {
    const typo = cli([
      "run",
      join(fixtures, "typo-key.config.mjs"),
      "--out-dir",
      join(dir, "typo"),
    ]);
    expect(typo.code, typo.stderr).toBe(0);
    expect(typo.stderr).toMatch(
      /^warning: .*typo-key\.config\.mjs: config key "maxConcurent" is not one run reads, so it is ignored; the keys are dataset, metrics, targets, maxConcurrent, outDir, timeoutMs, cache, keepChunkText, retries, rateLimit, trials, warmup$/m,
    );
    const array = cli([
      "run",
      join(fixtures, "array-targets.config.mjs"),
      "--out-dir",
      join(dir, "arr"),
    ]);
    expect(array.code).toBe(2);
    expect(array.stderr).toMatch(/targets must be an object of name → target/);
    expect(existsSync(join(dir, "arr"))).toBe(false);
  });

  it("refuses two targets that would overwrite one result file", () => {
    const r = cli(["run", join(fixtures, "collide.config.mjs"), "--out-dir", join(dir, "collide")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/targets "a\/b" and "a_b" would both be saved as a_b\.json/);
    expect(existsSync(join(dir, "collide"))).toBe(false);
  });

  it("refuses target names that collide only in case, or are too long for a file", () => {
    const to = join(dir, "target-names");
    const run = (names: string[]) =>
      cli(["run", join(fixtures, "named.config.mjs"), "--out-dir", to], {
        FASTRAG_TEST_TARGETS: JSON.stringify(names),
      });
    // One file on macOS and Windows, whose file systems ignore case.
    const cased = run(["BM25", "bm25"]);
    expect(cased.code).toBe(2);
    expect(cased.stderr).toMatch(
      /targets "BM25" and "bm25" would both be saved as bm25\.json on a case-insensitive file system/,
    );
    const long = run(["x".repeat(300)]);
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(
      /target "x{40}…" has a name too long for its result file \(300 characters once file-safe; at most 160\)/,
    );
    for (const r of [cased, long]) expect(r.stderr).not.toMatch(/\n\s+at |unexpected error/);
    expect(existsSync(to)).toBe(false);
    // At the limit, it runs.
    const longest = run(["y".repeat(160)]);
    expect(longest.code, longest.stderr).toBe(0);
    expect(existsSync(join(to, `${"y".repeat(160)}.json`))).toBe(true);
  });

  it("prints target names with their control characters escaped", () => {
    const to = join(dir, "control-names");
    const r = cli(["run", join(fixtures, "named.config.mjs"), "--out-dir", to], {
      FASTRAG_TEST_TARGETS: JSON.stringify(["bm25\u001b[2J", "dense\rfake ✓"]),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("bm25\\u001b[2J: ");
    expect(r.stderr).toContain("dense\\rfake ✓: ");
    expect(r.stderr.includes("\u001b") || r.stderr.includes("\r")).toBe(false);
  });

  it("refuses an output directory that is a file, or under one, in one line", async () => {
    const file = join(dir, "not-a-dir");
    await writeFile(file, "");
    for (const [to, found] of [
      [file, "is a file"],
      [join(file, "sub"), "lies under a file"],
    ] as const) {
      const r = cli(["run", join(fixtures, "demo.config.mjs"), "--out-dir", to]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`error: --out-dir ${to} ${found}`);
      expect(r.stderr).not.toMatch(/\n\s+at |unexpected error/);
    }
  });

  it("says where a JavaScript config, or a module it imports, does not parse", async () => {
    const own = join(dir, "syntax.config.mjs");
    await writeFile(own, "const a = 1;\nconst b = ;\nexport default {};\n");
    const lib = join(dir, "syntax-lib.mjs");
    await writeFile(lib, "export const x = ;\n");
    const importer = join(dir, "imports-syntax.config.mjs");
    await writeFile(importer, 'import { x } from "./syntax-lib.mjs";\nexport default { x };\n');
    const cjs = join(dir, "syntax.config.cjs");
    await writeFile(cjs, "module.exports = {\n  a: ,\n};\n");
    // A config that parses and imports a broken module from its top-level code: that code must
    // not run a second time to find the place (it may call paid APIs). Here it counts its runs.
    const runs = join(dir, "top-level-runs.txt");
    const dynamic = join(dir, "dynamic-syntax.config.mjs");
    await writeFile(
      dynamic,
      `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(runs)}, "run\\n");\nawait import("./syntax-lib.mjs");\nexport default {};\n`,
    );
    const bang = join(dir, "bang-syntax.config.mjs");
    await writeFile(bang, "#!/usr/bin/env node\nexport const x = ;\n");
    const first = join(dir, "first-line-syntax.config.mjs");
    await writeFile(first, "export const y = ;\n");
    for (const [config, where] of [
      [own, `${own}:2:11`],
      [importer, `${lib}:1:18`],
      [cjs, `${cjs}:2:6`],
      [bang, `${bang}:2:18`],
      [first, `${first}:1:18`],
    ] as const) {
      const r = cli(["run", config]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `error: ${config}: could not load the config: ${where}: SyntaxError: Unexpected token`,
      );
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    const r = cli(["run", dynamic]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `error: ${dynamic}: could not load the config: SyntaxError: Unexpected token`,
    );
    expect(await readFile(runs, "utf8")).toBe("run\n");
  });

  it("checks every target before the first one runs", () => {
    const to = join(dir, "mixed");
    const r = cli(["run", join(fixtures, "mixed.config.mjs"), "--out-dir", to]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/target "ret" is a Retriever .*exact_match needs an answer/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // "eng" comes first and is fine, but did not run: nothing was saved.
    expect(existsSync(join(to, "eng.json"))).toBe(false);
  });

  it("reports a config that throws while loading in one line, exit 2", () => {
    const r = cli(["run", join(fixtures, "broken.config.mjs")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /could not load the config: .*broken\.config\.mjs:\d+:\d+: OPENAI_API_KEY is not set/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("awaits a config exported as a promise", () => {
    const r = cli(["run", join(fixtures, "async.config.mjs"), "--out-dir", join(dir, "async")]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(dir, "async", "only.json"))).toBe(true);
  });

  it("refuses a config with one error, though its dataset was still loading", () => {
    const r = cli(["run", join(fixtures, "pending-dataset.config.mjs")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: .*targets must name at least one target/);
    expect(r.stderr).not.toMatch(/no-such-dataset|Unhandled|\n\s+at /);
    expect(r.stderr.trim().split("\n")).toHaveLength(2); // the error and its hint
  });

  it("runs with the config's rateLimit and retries and --adaptive; CI lines and the result say what the limiter did", async () => {
    const to = join(dir, "ratelimit");
    const r = cli([
      "run",
      join(fixtures, "ratelimit.config.mjs"),
      "--out-dir",
      to,
      "--adaptive",
      "--rpm",
      "60000",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/is not one run reads/);
    // Each sample's first call is refused: 20 rate-limited calls, none errored.
    const saved = JSON.parse(await readFile(join(to, "limited.json"), "utf8"));
    expect(saved.status).toEqual({ successful: 20, errored: 0, incomplete: 0 });
    expect(saved.rate_limit.rate_limited_calls).toBe(20);
    expect(saved.rate_limit.concurrency_min).toBeLessThan(8);
    expect(r.stderr).toMatch(
      /^limited: 20\/20 \| errored 0 \| concurrency \d+ \| rate-limited 20$/m,
    );
    expect(r.stderr).toMatch(
      /rate limit: 20 calls rate-limited \(each waited and ran again\); concurrency \d+ at the end, \d+ at the lowest/,
    );
  });

  it("refuses bad retries in a config, and a bad --rpm, naming them", () => {
    const retries = cli([
      "run",
      join(fixtures, "bad-retries.config.mjs"),
      "--out-dir",
      join(dir, "never2"),
    ]);
    expect(retries.code).toBe(2);
    expect(retries.stderr).toMatch(
      /^error: \S+bad-retries\.config\.mjs: retries\.retryOn must be a function \(error\) => boolean that marks transient errors, found none$/m,
    );
    const rpm = cli([
      "run",
      join(fixtures, "ratelimit.config.mjs"),
      "--rpm",
      "fast",
      "--out-dir",
      join(dir, "never2"),
    ]);
    expect(rpm.code).toBe(2);
    expect(rpm.stderr).toMatch(/--rpm "fast": expected a positive number per minute/);
    expect(existsSync(join(dir, "never2"))).toBe(false);
  });

  it("runs the config's trials, --trials overriding it; CI lines count trials; the result keeps them", async () => {
    const to = join(dir, "trials");
    const r = cli(["run", join(fixtures, "trials.config.mjs"), "--out-dir", to]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/is not one run reads/);
    expect(r.stderr).toMatch(/^flaky: 10\/10 \| trials 30\/30 \| errored 0$/m);
    expect(r.stderr).toMatch(/flaky: 10 samples × 3 trials in/);
    const saved = JSON.parse(await readFile(join(to, "flaky.json"), "utf8"));
    expect(saved.trials).toBe(3);
    // Even samples answer right, wrong, right: mean 2/3; odd ones 1. Over 10 samples: 5/6.
    expect(saved.summary.exact_match.mean).toBeCloseTo((5 * (2 / 3) + 5) / 10, 12);
    // Sample std (ddof 1) of [1, 0, 1] is √(1/3); of [1, 1, 1] 0: their mean is √(1/3) / 2.
    expect(saved.summary.exact_match.trial_std).toBeCloseTo(Math.sqrt(1 / 3) / 2, 12);
    const file = join(to, "flaky.json");
    const table = cli(["compare", file, "--stat", "trial_std"]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain("| flaky | 0.2887 |");
    expect(table.stdout).toContain("samples whose trials disagree (of 10): exact_match 5");
    expect(cli(["check", file, "--max", "exact_match:trial_std=0.25"]).code).toBe(1);
    expect(cli(["check", file, "--max", "exact_match:trial_std=0.3"]).code).toBe(0);
    const four = cli([
      "run",
      join(fixtures, "trials.config.mjs"),
      "--out-dir",
      to,
      "--trials",
      "4",
      "--fresh",
    ]);
    expect(four.code, four.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(to, "flaky.json"), "utf8")).trials).toBe(4);
  });

  it("refuses a bad --trials and a bad config trials, naming them", () => {
    const flag = cli([
      "run",
      join(fixtures, "trials.config.mjs"),
      "--trials",
      "0",
      "--out-dir",
      join(dir, "never-trials"),
    ]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--trials "0": expected a positive integer/);
    const config = cli([
      "run",
      join(fixtures, "bad-trials.config.mjs"),
      "--out-dir",
      join(dir, "never-trials"),
    ]);
    expect(config.code).toBe(2);
    expect(config.stderr).toMatch(/bad-trials\.config\.mjs: trials must be a positive integer/);
    expect(existsSync(join(dir, "never-trials"))).toBe(false);
  });

  it("refuses a config's rateLimit field that Benchmark refuses, in the config's terms", () => {
    const r = cli([
      "run",
      join(fixtures, "bad-ratelimit.config.mjs"),
      "--out-dir",
      join(dir, "never3"),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: \S+bad-ratelimit\.config\.mjs: rateLimit\.requestsPerMinute must be a positive number, found the number 0$/m,
    );
    expect(existsSync(join(dir, "never3"))).toBe(false);
  });

  it("refuses a config without a dataset, or with an outDir that is no path, in one line", () => {
    for (const [name, message] of [
      ["no-dataset.config.mjs", /dataset is missing \(or a promise of undefined\)/],
      ["outdir-number.config.mjs", /outDir must be a path \(a string\), found number/],
      [
        "bad-timeoutms.config.mjs",
        /^error: \S+bad-timeoutms\.config\.mjs: timeoutMs must be a positive number of milliseconds \(at most 2147483647\), found -5$/m,
      ],
      [
        "bad-maxconcurrent.config.mjs",
        /^error: \S+bad-maxconcurrent\.config\.mjs: maxConcurrent must be a positive integer, found 2\.5$/m,
      ],
    ] as const) {
      const r = cli(["run", join(fixtures, name), "--out-dir", join(dir, "never")]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at |unexpected error/);
      // Refused before anything is made: no journal, no result folder.
      expect(existsSync(join(dir, "never"))).toBe(false);
    }
  });

  it("refuses a config that is not code or does not exist", async () => {
    await writeFile(join(dir, "bad.json"), "{}");
    expect(cli(["run", join(dir, "bad.json")]).code).toBe(2);
    expect(cli(["run", join(dir, "none.mjs")]).code).toBe(2);
  });

  it("compares result files in every format", () => {
    const files = [join(out, "weak.json"), join(out, "strong.json")];
    const md = cli(["compare", ...files]);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain("| ");
    const p95 = cli(["compare", ...files, "--stat", "p95"]);
    expect(p95.stdout).toContain("latency_ms p95");
    const tested = cli(["compare", ...files, "--stat", "p95", "--test", "t-test"]);
    expect(tested.code).toBe(2);
    expect(tested.stderr).toMatch(/^error: --test t-test with --stat p95: .*--test none\n/);
    const csv = cli(["compare", ...files, "--format", "csv", "--test", "none"]);
    expect(csv.stdout.split("\n")[0]).toMatch(/recall@3/);
    const json = cli(["compare", join(out, "[ws]*.json"), "--format", "json", "--test", "t-test"]);
    expect(json.code).toBe(0);
    expect(() => JSON.parse(json.stdout)).not.toThrow();
    const report = join(dir, "report.html");
    const html = cli([
      "compare",
      ...files,
      "--format",
      "html",
      "--out",
      report,
      "--diff-metric",
      "mrr",
      "--title",
      "CLI <report>",
    ]);
    expect(html.code, html.stderr).toBe(0);
    return readFile(report, "utf8").then((text) => {
      expect(text.toLowerCase()).toMatch(/^<!doctype html>/);
      expect(text).toContain("CLI &lt;report&gt;");
      expect(text).not.toMatch(/(src|href)="https?:/);
      // Runs over different datasets refuse to pair, loudly.
      const mixed = cli(["compare", join(out, "*.json")]);
      expect(mixed.code).toBe(2);
      expect(mixed.stderr).toMatch(
        /\nerror: cannot pair runs .*For a table without significance tests: --test none\n/,
      );
      // With no test nothing pairs them: the table comes, with a warning.
      const untested = cli(["compare", join(out, "*.json"), "--test", "none"]);
      expect(untested.code).toBe(0);
      expect(untested.stderr).toMatch(/^warning: cannot pair runs .*not over one dataset\n/m);
      // flaky errored on 1 of its 10 samples, which its means leave out: said beside the table.
      expect(untested.stderr).toMatch(
        /^warning: 1 of 10 samples of "flaky" errored; its means leave them out \(a failure is never scored as 0\)$/m,
      );
      expect(untested.stderr.trim().split("\n")).toHaveLength(2);
      const none = cli(["compare", join(dir, "nothing-*.json")]);
      expect(none.code).toBe(2);
      expect(none.stderr).toMatch(/no file matches/);
      // A directory (`compare results`): its files are meant, and the error says how to give them.
      const folder = cli(["compare", `${out}/`]);
      expect(folder.code).toBe(2);
      expect(folder.stderr).toContain(
        `error: "${out}/" is a directory; give its result files, e.g. '${out}/*.json'\n`,
      );
    });
  });

  it("takes --baseline as a run name, or as a result file when two runs share a name", async () => {
    const weak = join(out, "weak.json");
    const strong = join(out, "strong.json");
    const again = join(dir, "seed2");
    await mkdir(again, { recursive: true });
    await copyFile(weak, join(again, "weak.json"));
    const files = [weak, strong, join(again, "weak.json")];
    const byName = cli(["compare", weak, strong, "--baseline", "strong", "--format", "json"]);
    expect(byName.code, byName.stderr).toBe(0);
    expect(JSON.parse(byName.stdout).significance.baseline).toBe("strong");
    const ambiguous = cli(["compare", ...files, "--baseline", "weak"]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(
      /^error: --baseline "weak": 2 runs have that name \(.*weak\.json, .*weak\.json\); pass the baseline's result file instead\n/,
    );
    const byFile = cli(["compare", ...files, "--baseline", strong, "--format", "json"]);
    expect(byFile.code, byFile.stderr).toBe(0);
    expect(JSON.parse(byFile.stdout).significance.baseline).toBe("strong");
    const unknown = cli(["compare", ...files, "--baseline", "nope"]);
    expect(unknown.code).toBe(2);
    // In the order the files were given (issue 34), not by path.
    expect(unknown.stderr).toMatch(/no run named "nope"; runs are "weak", "strong", "weak"/);
  });

  it("takes an existing file literally, even when its name reads as a glob", async () => {
    const weak = join(out, "weak.json");
    const strong = join(out, "strong.json");
    const odd = join(dir, "odd");
    await mkdir(odd, { recursive: true });
    await copyFile(weak, join(odd, "bm25 (k1=1.2).json"));
    await copyFile(weak, join(odd, "run[1].json"));
    await copyFile(strong, join(odd, "run1.json"));
    const parens = cli(["compare", join(odd, "bm25 (k1=1.2).json"), "--test", "none"]);
    expect(parens.code, parens.stderr).toBe(0);
    // As a glob, run[1].json would match run1.json (the strong run) instead.
    const brackets = cli([
      "compare",
      join(odd, "run[1].json"),
      "--test",
      "none",
      "--format",
      "json",
    ]);
    expect(brackets.code, brackets.stderr).toBe(0);
    expect(JSON.parse(brackets.stdout).runs.map((r: { name: string }) => r.name)).toEqual(["weak"]);
  });

  it("reports an --out it cannot write in one line, exit 2", async () => {
    const files = [join(out, "weak.json"), join(out, "strong.json")];
    const blocked = join(dir, "a-file");
    await writeFile(blocked, "");
    for (const [args, reason] of [
      [["compare", ...files, "--out", join(blocked, "x.md")], "a parent of it is a file"],
      [["compare", ...files, "--out", dir], "it is a directory"],
    ] as const) {
      const r = cli([...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`cannot write the file: ${reason}`);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it("diffs two runs and fails on regression when asked", () => {
    const weak = join(out, "weak.json");
    const strong = join(out, "strong.json");
    const better = cli(["diff", weak, strong, "--metric", "mrr", "--fail-on-regression"]);
    expect(better.code).toBe(0);
    expect(better.stdout).toMatch(/improved 40, regressed 0/);
    const worse = cli(["diff", strong, weak, "--metric", "mrr", "--fail-on-regression"]);
    expect(worse.code).toBe(1);
    expect(worse.stdout).toMatch(/regressed 40/);
    expect(cli(["diff", strong, weak, "--metric", "mrr"]).code).toBe(0);
    for (const bad of ["abc", "-1", "1.5", ""]) {
      const r = cli(["diff", strong, weak, "--metric", "mrr", "--limit", bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toMatch(/--limit .*expected a whole number of rows/);
      expect(r.stderr).toMatch(/fastrag-bench diff --help/);
    }
    const one = cli(["diff", strong, weak, "--metric", "mrr", "--limit", "1"]);
    expect(one.stdout).toMatch(/… 39 more/);
  });

  it("diffs as snake_case JSON, every row, with the regression exit code", () => {
    const weak = join(out, "weak.json");
    const strong = join(out, "strong.json");
    const r = cli([
      "diff",
      strong,
      weak,
      "--metric",
      "mrr",
      "--json",
      "--limit",
      "1",
      "--fail-on-regression",
    ]);
    expect(r.code).toBe(1);
    const d = JSON.parse(r.stdout);
    expect(Object.keys(d)).toEqual([
      "baseline",
      "candidate",
      "metric",
      "higher_is_better",
      "paired_by",
      "regressions",
      "improved",
      "regressed",
      "newly_errored",
      "recovered",
      "unchanged",
      "left_out",
    ]);
    expect(d).toMatchObject({ baseline: "strong", candidate: "weak", metric: "mrr" });
    expect(d.higher_is_better).toBe(true);
    expect(d.regressions).toBe(40);
    // --limit shortens the text sections only.
    expect(d.regressed).toHaveLength(40);
    // strong finds every answer at rank 1; weak half of them at rank 2 and half not at all
    // (mrr 0.25). Biggest loss first.
    expect(d.regressed.map((x: { change: number }) => x.change)).toEqual([
      ...new Array(20).fill(-1),
      ...new Array(20).fill(-0.5),
    ]);
    expect(d.regressed[0]).toMatchObject({
      baseline: 1,
      candidate: 0,
      change: -1,
      baseline_status: "successful",
      candidate_status: "successful",
      error: null,
    });
    expect(d.regressed[0].sample_id).toMatch(/^q\d+$/);
    expect(Object.keys(d.regressed[0])).not.toContain("baselineStatus");
  });

  it("gates on thresholds, printing every failed bound", () => {
    const weak = join(out, "weak.json");
    const pass = cli(["check", weak, "--min", "recall@3=0.5", "--max", "latency_ms:p95=100000"]);
    expect(pass.code).toBe(0);
    const fail = cli([
      "check",
      weak,
      "--min",
      "recall@3=0.9",
      "--min",
      "mrr=0.5",
      "--min",
      "ndcg@5=0.1",
    ]);
    expect(fail.code).toBe(1);
    expect(fail.stdout).toMatch(/recall@3/);
    expect(fail.stdout).toMatch(/mrr/);
    expect(fail.stdout).toMatch(/ndcg@5/);
    expect(cli(["check", weak, "--min", "recall@3"]).code).toBe(2);
    expect(cli(["check", weak, "--min", "recall@3:p42=1"]).code).toBe(2);
    // Contradictory bounds: nothing could pass, a usage error (the default stat is the mean).
    const contradictory = cli([
      "check",
      weak,
      "--min",
      "recall@3=0.5",
      "--max",
      "recall@3:mean=0.4",
    ]);
    expect(contradictory.code).toBe(2);
    expect(contradictory.stderr).toMatch(
      /--min recall@3:mean=0.5 is above --max recall@3:mean=0.4; nothing could pass/,
    );
    // Equal bounds, or bounds on another stat, are fine.
    expect(
      cli(["check", weak, "--min", "recall@3:p95=0.5", "--max", "recall@3=0.4"]).code,
    ).not.toBe(2);
    // A second "=" or a non-decimal number is a usage error, not a metric named "recall@3=".
    for (const bad of ["recall@3==0.8", "recall@3=0.8=0.9", "recall@3=0x10", "recall@3= "]) {
      const r = cli(["check", weak, "--min", bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toMatch(/expected METRIC\[:STAT\]=NUMBER/);
    }
  });

  it("gates as JSON: every failure with its metric, stat, value, bound and side", () => {
    const weak = join(out, "weak.json");
    const r = cli([
      "check",
      weak,
      "--json",
      "--min",
      "recall@3=0.9",
      "--max",
      "mrr:p50=0.1",
      "--max",
      "rouge_l=0.5",
      "--min",
      "recall@3:min=0",
    ]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ run: "weak", passed: false, bounds: 4 });
    const rows = report.failures.map(
      (f: Record<string, unknown>) => [f.metric, f.stat, f.kind, f.side, f.value, f.bound] as const,
    );
    // weak: recall@3 is 0.5 on average, mrr's median 0.25; the run has no rouge_l.
    expect(rows).toEqual([
      ["recall@3", "mean", "min", "min", 0.5, 0.9],
      ["mrr", "p50", "max", "max", 0.25, 0.1],
      ["rouge_l", "mean", "missing", "max", null, 0.5],
    ]);
    for (const f of report.failures) expect(f.message).toMatch(new RegExp(`^${f.metric}`));
  });

  it("warns of errored samples, and gates them with --max-errored", () => {
    // flaky: 1 of its 10 samples errored; exact_match's mean (1) leaves it out.
    const flaky = join(out, "flaky.json");
    const warned = cli(["check", flaky, "--min", "exact_match=1"]);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(
      /warning: 1 of 10 samples of "flaky" errored, and every mean leaves them out; gate them with --max-errored N/,
    );
    expect(cli(["check", join(out, "weak.json"), "--min", "mrr=0"]).stderr).toBe("");

    const failed = cli(["check", flaky, "--min", "exact_match=1", "--max-errored", "0"]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/1 of 2 bound\(s\) failed/);
    expect(failed.stdout).toMatch(/errored samples: 1 of 10, above the maximum 0/);
    expect(failed.stderr).toBe("");
    expect(cli(["check", flaky, "--max-errored", "1"]).code).toBe(0);
    // 10% of 10 allows 1; 9.9% allows none.
    expect(cli(["check", flaky, "--max-errored", "10%"]).code).toBe(0);
    const share = cli(["check", flaky, "--max-errored", "9.9%", "--json"]);
    expect(share.code).toBe(1);
    const report = JSON.parse(share.stdout);
    expect(report.status).toEqual({ successful: 9, incomplete: 0, errored: 1 });
    expect(report.failures).toEqual([
      expect.objectContaining({
        metric: "errored",
        stat: "count",
        value: 1,
        bound: 0,
        side: "max",
      }),
    ]);
    expect(report.failures[0].message).toMatch(/\(9\.9% of 10\)/);
    for (const bad of ["-1", "1.5", "101%", "x", ""]) {
      const r = cli(["check", flaky, "--max-errored", bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toMatch(/--max-errored/);
    }
  });

  it("reads and writes relative paths in main()'s cwd, not the process's", async () => {
    const { main } = await import("./cli.js");
    let stdout = "";
    let stderr = "";
    const io = {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      env: { NO_COLOR: "1" },
      cwd: dir,
    };
    expect(process.cwd()).not.toBe(dir);
    expect(await main(["check", "results/weak.json", "--min", "recall@3=0.5"], io), stderr).toBe(0);
    expect(stdout).toContain("✓ weak: all 1 bound(s) hold");
    const diffArgs = ["diff", "results/weak.json", "results/strong.json", "--metric", "mrr"];
    expect(await main(diffArgs, io), stderr).toBe(0);
    expect(stdout).toContain("mrr: weak → strong (paired by sample_id)");
    const compareArgs = ["compare", "results/weak.json", "results/strong.json", "--out", "cwd.md"];
    expect(await main(compareArgs, io), stderr).toBe(0);
    expect(await readFile(join(dir, "cwd.md"), "utf8")).toMatch(/^\| # \| run \| recall@3 /);
    const [qrels, run] = ["qrels.test", "results.test"].map((f) => relative(dir, join(trec, f)));
    stdout = "";
    expect(
      await main(["eval", "--qrels", qrels as string, "--run", run as string, "-m", "map"], io),
      stderr,
    ).toBe(0);
    // out.test's counts, then the measure.
    expect(stdout).toMatch(
      /^num_q\tall\t3\nnum_ret\tall\t1500\nnum_rel\tall\t561\nnum_rel_ret\tall\t131\nmap\tall\t0\.\d{4}\n$/,
    );
  });

  it("runs shards and merges them into the whole run", async () => {
    const shardOut = join(dir, "shards");
    for (const s of ["1/3", "2/3", "3/3"]) {
      expect(
        cli(["run", join(fixtures, "demo.config.mjs"), "--out-dir", shardOut, "--shard", s]).code,
      ).toBe(0);
    }
    const merged = join(dir, "merged-strong.json");
    const r = cli(["merge", join(shardOut, "strong.shard-*.json"), "--out", merged]);
    expect(r.code, r.stderr).toBe(0);
    const m = JSON.parse(await readFile(merged, "utf8"));
    expect(m.samples).toHaveLength(40);
    expect(m.samples.map((s: { sample_id: string }) => s.sample_id)).toEqual(
      Array.from({ length: 40 }, (_, i) => `q${i}`),
    );
    const incomplete = cli(["merge", join(shardOut, "strong.shard-1-of-3.json"), "--out", merged]);
    expect(incomplete.code).toBe(2);
    expect(incomplete.stderr).toMatch(/missing shard/);
    const blocked = join(dir, "not-a-dir");
    await writeFile(blocked, "");
    const unwritable = cli([
      "merge",
      join(shardOut, "strong.shard-*.json"),
      "--out",
      join(blocked, "m.json"),
    ]);
    expect(unwritable.code, unwritable.stderr).toBe(2);
    expect(unwritable.stderr).toContain("cannot write the file: a parent of it is a file");
    expect(unwritable.stderr).not.toMatch(/\n\s+at /);
    expect(cli(["run", join(fixtures, "demo.config.mjs"), "--shard", "4/3"]).code).toBe(2);
  });
});

describe("names from result files on the terminal, and --out's format", () => {
  /** A run name that would clear and recolour a terminal, then break a line into HTML. */
  const EVIL = "\u001b[2J\u001b[31mpwned\u009b1m\n<img src=x onerror=alert(1)>";
  let files: { base: string; evil: string };

  /**
   * Saves a result of 4 samples scoring `scores` on `metric` ("error" errors a sample). The second
   * sample's id would hide the rest of its line on a terminal.
   */
  async function saveRun(
    path: string,
    name: string,
    metric: string,
    scores: readonly (number | "error")[],
  ): Promise<string> {
    const sampleIds = ["q1", "q2\u001b[8m", "q3", "q4"];
    const { BenchmarkResult } = await import("@fastrag/bench-core");
    const samples = scores.map((s, i) => ({
      sampleId: sampleIds[i] as string,
      question: `question ${i + 1}?`,
      status: s === "error" ? ("errored" as const) : ("successful" as const),
      scores: { [metric]: s === "error" ? null : s },
      answer: s === "error" ? null : `answer ${i + 1}`,
      retrievedIds: [],
      retrievedUris: [],
      latencyMs: s === "error" ? null : 10,
      error: s === "error" ? "boom \u001b]0;owned\u0007 \u202eexe.txt" : null,
    }));
    await new BenchmarkResult({
      name,
      createdAt: new Date("2026-01-01T00:00:00Z"),
      durationS: 1,
      samples,
      higherIsBetter: { [metric]: true },
    }).save(path);
    return path;
  }

  beforeAll(async () => {
    const at = join(dir, "escaping");
    await mkdir(at, { recursive: true });
    files = {
      base: await saveRun(join(at, "base.json"), "base", "recall@5", [1, 1, 1, 1]),
      evil: await saveRun(join(at, "evil.json"), EVIL, "recall@5", [0, 0, 1, "error"]),
    };
  });

  it("compare escapes control characters and HTML in run names, on stdout and stderr", () => {
    const r = cli(["compare", files.base, files.evil, "--test", "none"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        "| run | errored | incomplete | recall@5 |",
        "| --- | ---: | ---: | ---: |",
        "| base | 0 | 0 | 1.0000 |",
        "| \\u001b[2J\\u001b[31mpwned\\u009b1m &lt;img src=x onerror=alert(1)&gt; | 1 | 0 | 0.3333 |",
        "",
        'Each metric is compared on the samples every run scored (recall@5 on 3), so a run is not ranked on only the samples it did not fail; each run\'s own all-samples statistic is available with samples "all" (`--samples all`).',
        "",
      ].join("\n"),
    );
    expect(r.stderr).toBe(
      'warning: 1 of 4 samples of "\\u001b[2J\\u001b[31mpwned\\u009b1m\\n<img src=x onerror=alert(1)>" errored; every run is compared on the samples all runs scored (a failure is never scored as 0)\n',
    );
    const json = cli(["compare", files.base, files.evil, "--test", "none", "--format", "json"]);
    expect(json.code, json.stderr).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is about control characters.
    expect(json.stdout).not.toMatch(/[\u001b\u009b]/);
    expect(JSON.parse(json.stdout).runs[1].name).toBe(EVIL);
    // An error naming the runs (here: a baseline no run has) is escaped too.
    const unknown = cli(["compare", files.base, files.evil, "--baseline", "nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'no run named "nope"; runs are "base", "\\u001b[2J\\u001b[31mpwned\\u009b1m',
    );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is about control characters.
    expect(unknown.stderr).not.toMatch(/[\u001b\u009b]/);
  });

  it("compare keeps a CSV's bytes in a pipe, and escapes them on a terminal", async () => {
    const piped = cli(["compare", files.base, files.evil, "--test", "none", "--format", "csv"]);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toContain(`"${EVIL}",1,0,0.3333333333333333\r\n`);
    // In process, with a stdout that says it is a terminal.
    const { main } = await import("./cli.js");
    let stdout = "";
    const code = await main(
      ["compare", files.base, files.evil, "--test", "none", "--format", "csv"],
      {
        stdout: { write: (s: string) => (stdout += s), isTTY: true },
        stderr: { write: () => true },
        env: { NO_COLOR: "1" },
        cwd: dir,
      },
    );
    expect(code).toBe(0);
    expect(stdout).toBe(
      'run,errored,incomplete,recall@5\r\nbase,0,0,1\r\n"\\u001b[2J\\u001b[31mpwned\\u009b1m\n<img src=x onerror=alert(1)>",1,0,0.3333333333333333\r\n',
    );
  });

  it("diff and check escape run names, sample ids and error messages", () => {
    const d = cli(["diff", files.base, files.evil, "--metric", "recall@5"]);
    expect(d.code, d.stderr).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is about control characters.
    expect(d.stdout).not.toMatch(/[\u001b\u009b\u202e]/);
    expect(d.stdout.split("\n")[0]).toBe(
      "recall@5: base → \\u001b[2J\\u001b[31mpwned\\u009b1m\\n<img src=x onerror=alert(1)> (paired by sample_id)",
    );
    expect(d.stdout).toContain("  q2\\u001b[8m: 1 → 0 (-1)");
    expect(d.stdout).toContain("  q4: 1 → —  boom \\u001b]0;owned\\u0007 \\u202eexe.txt");
    const dj = cli(["diff", files.base, files.evil, "--metric", "recall@5", "--json"]);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is about control characters.
    expect(dj.stdout).not.toMatch(/[\u001b\u009b\u202e]/);
    const parsed = JSON.parse(dj.stdout);
    expect(parsed.candidate).toBe(EVIL);
    expect(parsed.regressed.map((x: { sample_id: string }) => x.sample_id)).toEqual([
      "q1",
      "q2\u001b[8m",
    ]);
    const c = cli(["check", files.evil, "--min", "recall@5=0.5"]);
    expect(c.code).toBe(1);
    expect(c.stdout.split("\n")[0]).toBe(
      "✗ \\u001b[2J\\u001b[31mpwned\\u009b1m\\n<img src=x onerror=alert(1)>: 1 of 1 bound(s) failed",
    );
    expect(c.stderr).toContain('of "\\u001b[2J\\u001b[31mpwned\\u009b1m\\n<img');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is about control characters.
    expect(`${c.stdout}${c.stderr}`).not.toMatch(/[\u001b\u009b]/);
    const cj = cli(["check", files.evil, "--min", "recall@5=0.5", "--json"]);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is about control characters.
    expect(cj.stdout).not.toMatch(/[\u001b\u009b]/);
    expect(JSON.parse(cj.stdout).run).toBe(EVIL);
  });

  it("compare --out picks the format from the file's extension", async () => {
    const pair = [files.base, files.evil, "--test", "none"];
    const cases: [string, (text: string) => void][] = [
      ["report.html", (t) => expect(t.toLowerCase()).toMatch(/^<!doctype html>\n/)],
      ["report.HTM", (t) => expect(t.toLowerCase()).toMatch(/^<!doctype html>\n/)],
      [
        "table.csv",
        (t) => expect(t.startsWith("run,errored,incomplete,recall@5\r\nbase,0,0,1\r\n")).toBe(true),
      ],
      ["table.json", (t) => expect(JSON.parse(t).format).toBe("fastrag-bench-comparison/1")],
      [
        "table.markdown",
        (t) => expect(t.startsWith("| run | errored | incomplete | recall@5 |\n")).toBe(true),
      ],
      [
        "table.md",
        (t) => expect(t.startsWith("| run | errored | incomplete | recall@5 |\n")).toBe(true),
      ],
      // An extension that names no format keeps the default, markdown.
      [
        "table.txt",
        (t) => expect(t.startsWith("| run | errored | incomplete | recall@5 |\n")).toBe(true),
      ],
    ];
    for (const [name, expectText] of cases) {
      const path = join(dir, "escaping", name);
      const r = cli(["compare", ...pair, "--out", path]);
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
      expectText(await readFile(path, "utf8"));
    }
    // A --format that agrees with the extension, or with none, is taken.
    const htm = join(dir, "escaping", "agree.htm");
    expect(cli(["compare", ...pair, "--format", "html", "--out", htm]).code).toBe(0);
    expect((await readFile(htm, "utf8")).toLowerCase()).toMatch(/^<!doctype html>/);
    const txt = join(dir, "escaping", "data.txt");
    expect(cli(["compare", ...pair, "--format", "csv", "--out", txt]).code).toBe(0);
    expect(await readFile(txt, "utf8")).toMatch(/^run,errored,incomplete,recall@5\r\n/);
  });

  it("compare refuses a --format that contradicts --out's extension, writing nothing", () => {
    const path = join(dir, "escaping", "contradiction.html");
    const r = cli(["compare", files.base, files.evil, "--format", "md", "--out", path]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: --format md does not match --out "${path}" (a .html file): drop --format to write html, or give --out a .md name\nrun \`fastrag-bench compare --help\` for usage\n`,
    );
    expect(existsSync(path)).toBe(false);
    const help = cli(["compare", "--help"]);
    expect(help.stdout).toMatch(/--format <format> +output format \(default: from --out's/);
  });
});

describe("diff --fail-on-regression and floating-point rounding", () => {
  /** Writes a result of samples q1…qN scoring `scores` on the higher-is-better metric "m". */
  async function saveScores(name: string, scores: readonly number[]): Promise<string> {
    const { BenchmarkResult } = await import("@fastrag/bench-core");
    const at = join(dir, "rounding");
    await mkdir(at, { recursive: true });
    const path = join(at, `${name}.json`);
    await new BenchmarkResult({
      name,
      createdAt: new Date("2026-01-01T00:00:00Z"),
      durationS: 1,
      samples: scores.map((score, i) => ({
        sampleId: `q${i + 1}`,
        question: `question ${i + 1}?`,
        status: "successful" as const,
        scores: { m: score },
        answer: `answer ${i + 1}`,
        retrievedIds: [],
        retrievedUris: [],
        latencyMs: 10,
        error: null,
      })),
      higherIsBetter: { m: true },
    }).save(path);
    return path;
  }

  it("exits 0 on pure rounding noise and still 1 on a real regression", async () => {
    // 0.1 + 0.2 is 0.30000000000000004: b is below a by 5.6e-17 on every sample.
    const a = await saveScores("a", new Array<number>(5).fill(0.1 + 0.2));
    const b = await saveScores("b", new Array<number>(5).fill(0.3));
    const worse = await saveScores("worse", [0.3, 0.3, 0.2, 0.3, 0.3]);
    const noise = cli(["diff", a, b, "--metric", "m", "--fail-on-regression"]);
    expect(noise.code, noise.stdout + noise.stderr).toBe(0);
    expect(noise.stdout).toContain(
      "improved 0, regressed 0, newly errored 0, recovered 0, unchanged 5, left out 0",
    );
    const json = cli(["diff", a, b, "--metric", "m", "--fail-on-regression", "--json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ regressions: 0, regressed: [], unchanged: 5 });
    const real = cli(["diff", a, worse, "--metric", "m", "--fail-on-regression"]);
    expect(real.code, real.stdout + real.stderr).toBe(1);
    expect(real.stdout).toContain("regressed 1, newly errored 0, recovered 0, unchanged 4");
    expect(real.stdout).toContain("  q3: 0.3000 → 0.2000 (-0.1000)");
  });
});

describe("run --cache", () => {
  /** A dataset file of 12 samples, `edit` changing the question of q4. */
  async function writeDataset(path: string, edit = false): Promise<void> {
    const samples = Array.from({ length: 12 }, (_, i) => ({
      id: `q${i}`,
      question: edit && i === 4 ? "question four, edited" : `question ${i}`,
      expected_answers: [`answer q${i}`],
      relevant_ids: [],
    }));
    await writeFile(path, JSON.stringify({ samples }));
  }
  const calls = async (file: string) =>
    (await readFile(file, "utf8").catch(() => "")).split("\n").filter((l) => l !== "");

  it("calls the target 0 times the second time with the same scores; once after one edit; --refresh calls all", async () => {
    const out = join(dir, "cache-run");
    const dataset = join(dir, "cache-dataset.json");
    const log = join(dir, "cache-calls.txt");
    await writeDataset(dataset);
    const env = { DATASET: dataset, CALLS: log };
    const config = join(fixtures, "cache.config.mjs");

    const first = cli(["run", config, "--out-dir", out, "--cache"], env);
    expect(first.code, first.stderr).toBe(0);
    expect(await calls(log)).toHaveLength(12);
    expect(first.stderr).toMatch(/errored 0, 0 from the cache\)/);
    expect(existsSync(join(out, ".cache", "cache.sqlite"))).toBe(true);
    const firstResult = JSON.parse(await readFile(join(out, "echo.json"), "utf8"));

    const second = cli(["run", config, "--out-dir", out, "--cache"], env);
    expect(second.code, second.stderr).toBe(0);
    expect(await calls(log)).toHaveLength(12);
    expect(second.stderr).toMatch(/12 from the cache\)/);
    const secondResult = JSON.parse(await readFile(join(out, "echo.json"), "utf8"));
    const scores = (r: { samples: { scores: unknown }[] }) => r.samples.map((s) => s.scores);
    expect(scores(secondResult)).toEqual(scores(firstResult));
    // exact_match as the engine answers: every third sample right.
    expect(
      secondResult.samples.map((s: { scores: { exact_match: number } }) => s.scores.exact_match),
    ).toEqual(Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? 1 : 0)));

    await writeDataset(dataset, true);
    const edited = cli(["run", config, "--out-dir", out], { ...env, CONFIG_CACHE: "1" });
    expect(edited.code, edited.stderr).toBe(0);
    expect((await calls(log)).slice(12)).toEqual(["q4"]);
    expect(edited.stderr).toMatch(/11 from the cache\)/);

    const refreshed = cli(["run", config, "--out-dir", out, "--refresh"], env);
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(await calls(log)).toHaveLength(25);
    expect(refreshed.stderr).toMatch(/0 from the cache\)/);

    // Without the cache, nothing is said about it and every sample is called.
    const plain = cli(["run", config, "--out-dir", out], env);
    expect(plain.code, plain.stderr).toBe(0);
    expect(await calls(log)).toHaveLength(37);
    expect(plain.stderr).not.toMatch(/from the cache/);
  });

  it("two shards running at once share the store; the whole run then calls nothing", async () => {
    const out = join(dir, "cache-shards");
    const dataset = join(dir, "cache-dataset-3.json");
    const log = join(dir, "cache-calls-3.txt");
    await writeDataset(dataset);
    const env = { ...process.env, NO_COLOR: "1", DATASET: dataset, CALLS: log };
    const config = join(fixtures, "cache.config.mjs");
    const shard = (s: string) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          [bin, "run", config, "--out-dir", out, "--cache", "--shard", s],
          { env },
        );
        let stderr = "";
        child.stderr.on("data", (d: Buffer) => {
          stderr += d.toString();
        });
        child.on("exit", (code) => resolve({ code, stderr }));
      });
    const [a, b] = await Promise.all([shard("1/2"), shard("2/2")]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect((await calls(log)).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `q${i}`).sort());
    const whole = cli(["run", config, "--out-dir", out, "--cache"], {
      DATASET: dataset,
      CALLS: log,
    });
    expect(whole.code, whole.stderr).toBe(0);
    expect(await calls(log)).toHaveLength(12);
    expect(whole.stderr).toMatch(/12 from the cache\)/);
  });

  it("a damaged store is an error naming the file, before any call", async () => {
    const out = join(dir, "cache-damaged");
    const dataset = join(dir, "cache-dataset-2.json");
    const log = join(dir, "cache-calls-2.txt");
    await writeDataset(dataset);
    await mkdir(join(out, ".cache"), { recursive: true });
    await writeFile(join(out, ".cache", "cache.sqlite"), "not a database\n".repeat(300));
    const r = cli(["run", join(fixtures, "cache.config.mjs"), "--out-dir", out, "--cache"], {
      DATASET: dataset,
      CALLS: log,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${join(out, ".cache", "cache.sqlite")}: the file is not a SQLite database`,
    );
    expect(await calls(log)).toEqual([]);
  });

  it("refuses a cache key that is not a boolean", async () => {
    const config = join(dir, "cache-bad.config.mjs");
    await writeFile(
      config,
      `export default { dataset: [{ question: "q", expectedAnswers: ["a"], relevantIds: [] }], metrics: [{ name: "m", higherIsBetter: true, needsRelevantIds: false, needsAnswer: false, score: () => 1 }], targets: { t: { retrieve: async () => [] } }, cache: "yes" };\n`,
    );
    const r = cli(["run", config]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cache must be true or false/);
  });
});

describe("rescore", () => {
  const config = join(fixtures, "rescore.config.mjs");
  const scoresOf = async (file: string) =>
    JSON.parse(await readFile(file, "utf8")).samples.map(
      (s: { scores: Record<string, number | null> }) => s.scores,
    );

  it("scores saved outputs with the config's metrics, calling no target, as a fresh run does", async () => {
    const root = await mkdtemp(join(tmpdir(), "fastrag-cli-rescore-"));
    const calls = join(root, "calls.txt");
    const env = { FASTRAG_TEST_CALLS: calls };
    const first = cli(["run", config, "--out-dir", join(root, "a")], env);
    expect(first.code, first.stderr).toBe(0);
    expect(readFileSync(calls, "utf8").trim().split("\n")).toHaveLength(20);

    const r = cli(["rescore", config, join(root, "a", "engine.json")], {
      ...env,
      FASTRAG_TEST_METRICS: "second",
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(calls, "utf8").trim().split("\n")).toHaveLength(20);
    const written = join(root, "a", "engine.json");
    expect(r.stderr).toContain(`→ ${written}`);
    expect(r.stderr).toMatch(/added: ndcg@3 [\d.]+, f1 [\d.]+, tokens 19\.5/);
    expect(r.stderr).toMatch(/removed: exact_match/);
    expect(r.stderr).toMatch(/unchanged: recall@2/);

    const fresh = cli(["run", config, "--out-dir", join(root, "b")], {
      ...env,
      FASTRAG_TEST_METRICS: "second",
    });
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(readFileSync(calls, "utf8").trim().split("\n")).toHaveLength(40);
    expect(await scoresOf(written)).toEqual(await scoresOf(join(root, "b", "engine.json")));

    // --out-dir leaves the input as it was.
    const before = await readFile(written, "utf8");
    const elsewhere = cli(["rescore", config, written, "--out-dir", join(root, "c")]);
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    expect(await readFile(written, "utf8")).toBe(before);
    expect((await scoresOf(join(root, "c", "engine.json")))[0]).toEqual({
      "recall@2": 0.5,
      exact_match: 1,
    });
  });

  it("refuses a metric that reads chunk text the run did not keep, naming the option; keeps it with --keep-chunk-text", async () => {
    const root = await mkdtemp(join(tmpdir(), "fastrag-cli-rescore-"));
    expect(cli(["run", config, "--out-dir", join(root, "plain")]).code).toBe(0);
    const file = join(root, "plain", "engine.json");
    const before = await readFile(file, "utf8");
    const refused = cli(["rescore", config, file], { FASTRAG_TEST_METRICS: "faith" });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/faithfulness.*retrieved\[\]\.text.*--keep-chunk-text/);
    expect(await readFile(file, "utf8")).toBe(before);

    const kept = cli(["run", config, "--out-dir", join(root, "kept"), "--keep-chunk-text"]);
    expect(kept.code, kept.stderr).toBe(0);
    const keptFile = join(root, "kept", "engine.json");
    expect(JSON.parse(await readFile(keptFile, "utf8")).samples[0].retrieved[0].text).toBe(
      "doc-2: question 0",
    );
    const ok = cli(["rescore", config, keptFile], { FASTRAG_TEST_METRICS: "faith" });
    expect(ok.code, ok.stderr).toBe(0);
    const faith = cli(["run", config, "--out-dir", join(root, "fresh")], {
      FASTRAG_TEST_METRICS: "faith",
    });
    expect(faith.code, faith.stderr).toBe(0);
    expect(await scoresOf(keptFile)).toEqual(await scoresOf(join(root, "fresh", "engine.json")));
  });
});
