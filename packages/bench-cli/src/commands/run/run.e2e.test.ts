import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { bin, cli, fixtures, scratchDir } from "../../__fixtures__/cli-process.js";

// End-to-end: these tests start the built binary as a child process, as a user or CI would.

let dir: string;
beforeAll(async () => {
  dir = await scratchDir();
});

describe("fastrag-bench run", () => {
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
      / {2}every sample errored, e\.g\. MalformedOutputError: query\(\) chunks\[0\] is the string "d0", expected a chunk .*; or .*"d1"/,
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
});
