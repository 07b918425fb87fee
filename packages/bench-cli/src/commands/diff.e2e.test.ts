import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, demoResults } from "../__fixtures__/cli-process.js";

// End-to-end: these tests start the built binary as a child process, as a user or CI would.

let dir: string;
/** The demo results (see `runDemoConfigs`), read by the tests below. */
let out: string;
beforeAll(async () => {
  ({ dir, out } = await demoResults());
}, 120_000);

describe("fastrag-bench diff", () => {
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
