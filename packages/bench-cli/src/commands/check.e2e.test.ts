import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, demoResults } from "../__fixtures__/cli-process.js";

// End-to-end: these tests start the built binary as a child process, as a user or CI would.

/** The demo results (see `runDemoConfigs`), read by the tests below. */
let out: string;
beforeAll(async () => {
  ({ out } = await demoResults());
}, 120_000);

describe("fastrag-bench check", () => {
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
});
