import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, scratchDir } from "../__fixtures__/cli-process.js";
import { countsOf, evalValues, trec, trecEvalValues } from "../__fixtures__/trec-eval.js";

// `eval`'s counts (num_q, num_ret, num_rel, num_rel_ret, against trec_eval's own outputs),
// `--save` read back by `compare`, and its refusals of a repeated flag and of swapped files. The
// built binary runs as a child process, as a user would run it.

let dir: string;
beforeAll(async () => {
  dir = await scratchDir();
});

describe("eval's trec_eval counts", () => {
  it("prints out.test.aql's counts per query and in all, under -l 2 on graded qrels", async () => {
    const r = cli([
      ...["eval", "--qrels", join(trec, "qrels.rel_level"), "--run", join(trec, "results.test")],
      ...["-l", "2", "-q", "-m", "map"],
    ]);
    expect(r.code, r.stderr).toBe(0);
    const expected = countsOf(await trecEvalValues("out.test.aql"));
    expect(expected.size).toBe(3 * 3 + 4);
    expect(countsOf(evalValues(r.stdout))).toEqual(expected);
    // trec_eval's order: a query's counts before its measures; the summary's counts first.
    const lines = r.stdout.trim().split("\n");
    expect(lines.slice(0, 4).map((l) => l.split("\t")[0])).toEqual([
      "num_ret",
      "num_rel",
      "num_rel_ret",
      "map",
    ]);
    expect(lines.slice(-5).map((l) => l.split("\t")[0])).toEqual([
      "num_q",
      "num_ret",
      "num_rel",
      "num_rel_ret",
      "map",
    ]);
  });

  it("puts the counts in --json", () => {
    const r = cli([
      ...["eval", "--qrels", join(trec, "qrels.test"), "--run", join(trec, "results.test")],
      ...["-m", "map", "--json"],
    ]);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout);
    // out.test: num_q 3, num_ret 1500, num_rel 561, num_rel_ret 131.
    expect([json.num_q, json.num_ret, json.num_rel, json.num_rel_ret]).toEqual([3, 1500, 561, 131]);
    expect(json.counts_per_query).toBeUndefined();
    const perQuery = cli([
      ...["eval", "--qrels", join(trec, "qrels.test"), "--run", join(trec, "results.test")],
      ...["-m", "map", "--json", "-q"],
    ]);
    // out.test.aq's per-query counts.
    expect(JSON.parse(perQuery.stdout).counts_per_query).toEqual({
      "301": { num_ret: 500, num_rel: 474, num_rel_ret: 71 },
      "302": { num_ret: 500, num_rel: 77, num_rel_ret: 50 },
      "303": { num_ret: 500, num_rel: 10, num_rel_ret: 10 },
    });
  });
});

describe("eval --save", () => {
  it("writes results that compare reads, with the numbers eval printed", async () => {
    const full = join(dir, "full.json");
    const trunc = join(dir, "trunc.json");
    const base = ["eval", "--qrels", join(trec, "qrels.test"), "-m", "map", "-m", "P_10"];
    const plain = cli([...base, "--run", join(trec, "results.test")]);
    const saved = cli([...base, "--run", join(trec, "results.test"), "--save", full]);
    expect(saved.code, saved.stderr).toBe(0);
    // The same output with or without --save.
    expect(saved.stdout).toBe(plain.stdout);
    const savedTrunc = cli([...base, "--run", join(trec, "results.trunc"), "--save", trunc]);
    expect(savedTrunc.code, savedTrunc.stderr).toBe(0);
    const json = JSON.parse(await readFile(full, "utf8"));
    expect(json.format).toBe("fastrag-bench-result/2");
    expect(json.samples.map((s: { sample_id: string }) => s.sample_id)).toEqual([
      "301",
      "302",
      "303",
    ]);
    const cmp = cli(["compare", full, trunc, "--label", `${trunc}=trunc`, "--format", "json"]);
    expect(cmp.code, cmp.stderr).toBe(0);
    const table = JSON.parse(cmp.stdout);
    const map = (i: number) => table.runs[i].values.map as number;
    // trec_eval: out.test's map 0.1785; out.test.aqc's (results.trunc, -c) 0.1016.
    expect(map(0).toFixed(4)).toBe("0.1785");
    expect(map(1).toFixed(4)).toBe("0.1016");
    expect(table.runs[1].name).toBe("trunc");
  });
});

describe("eval's refusals", () => {
  it("warns when --run (or --qrels) is given twice, naming both files, and scores the last", () => {
    const alone = cli([
      ...["eval", "--qrels", join(trec, "qrels.test"), "--run", join(trec, "results.trunc")],
    ]);
    expect(alone.code).toBe(0);
    const r = cli([
      ...["eval", "--qrels", join(trec, "qrels.test")],
      ...["--run", join(trec, "results.test"), "--run", join(trec, "results.trunc")],
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^warning: --run is given 2 times \(.*results\.test, .*results\.trunc\)/m,
    );
    expect(r.stderr).toContain(`uses the last, ${join(trec, "results.trunc")}`);
    expect(r.stdout).toBe(alone.stdout);
    const q = cli([
      ...["eval", "--qrels", join(trec, "qrels.rel_level"), "--qrels", join(trec, "qrels.test")],
      ...["--run", join(trec, "results.trunc")],
    ]);
    expect(q.code).toBe(0);
    expect(q.stderr).toMatch(/^warning: --qrels is given 2 times/m);
    expect(q.stdout).toBe(alone.stdout);
  });

  it("says that --qrels and --run look swapped, naming both flags", () => {
    const r = cli([
      ...["eval", "--qrels", join(trec, "results.test"), "--run", join(trec, "qrels.test")],
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--qrels .*results\.test looks like a run/);
    expect(r.stderr).toMatch(/--run .*qrels\.test looks like qrels/);
    expect(r.stderr).toContain(
      `--qrels ${join(trec, "qrels.test")} --run ${join(trec, "results.test")}`,
    );
    // One side wrong: the hint still names both flags.
    const one = cli([
      ...["eval", "--qrels", join(trec, "qrels.test"), "--run", join(trec, "qrels.test")],
    ]);
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/--run .*looks like qrels.*--qrels and --run swapped/);
  });

  it("knows no --threads (it never changed anything, and is gone)", () => {
    const r = cli([
      ...["eval", "--qrels", join(trec, "qrels.test"), "--run", join(trec, "results.test")],
      ...["--threads", "2"],
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: unknown option '--threads'/);
    expect(r.stdout).toBe("");
  });
});

describe("the built eval", () => {
  const bundle = fileURLToPath(new URL("../../dist/commands/eval-bundle.js", import.meta.url));

  it("is one file that shares with the CLI only io, the default measures and the record path", async () => {
    expect(existsSync(bundle)).toBe(true);
    const text = await readFile(bundle, "utf8");
    const imported = new Set(
      [...text.matchAll(/^import [^;]*? from "([^"]+)";$/gm)].map((m) => m[1] as string),
    );
    const dynamic = new Set([...text.matchAll(/import\("([^"]+)"\)/g)].map((m) => m[1] as string));
    // The packages' entries (core's runner, the metrics' judges, datasets' loaders) are not
    // loaded: eval's readers, metrics and core's errors and summaries are in the file.
    expect([...imported].filter((s) => !s.startsWith("node:")).sort()).toEqual([
      "../internal/io.js",
      "../internal/printable.js",
      "./eval-defaults.js",
    ]);
    expect([...dynamic]).toEqual(["../internal/eval-records.js"]);
    const loaded = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const m = await import(${JSON.stringify(bundle)}); console.log(typeof m.evalCommand);`,
      ],
      { encoding: "utf8" },
    );
    expect(loaded.stdout.trim(), loaded.stderr).toBe("function");
  });
});
