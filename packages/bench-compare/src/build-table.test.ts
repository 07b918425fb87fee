import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { makeResult } from "./__fixtures__/make-result.js";
import { Comparison } from "./comparison.js";

describe("significance marks over every pair of runs (ranx)", () => {
  const fill = (n: number, v: number) => new Array<number>(n).fill(v);
  /**
   * a = base: 0.5 on all 40 samples. b = worse: 0 on 30, 0.5 on 10 (mean 0.125).
   * c = close: 1 on the first sample, then as base (mean 20.5 / 40 = 0.5125).
   * c − a has one nonzero difference, so every sign flip gives |S| = 0.5: p = 1 exactly.
   * c − b has 30 nonzero differences (1, then 29 × 0.5): only the 2 all-equal sign patterns of
   * 2^30 reach |S| = 15.5, so p = (count + 1) / 10,001 ≈ 1e-4 < 0.05. a − b likewise.
   */
  function threeRuns() {
    return [
      makeResult({ name: "base", scores: { "recall@5": fill(40, 0.5) } }),
      makeResult({ name: "worse", scores: { "recall@5": [...fill(30, 0), ...fill(10, 0.5)] } }),
      makeResult({ name: "close", scores: { "recall@5": [1, ...fill(39, 0.5)] } }),
    ];
  }

  it("marks c with ᵇ when c beats b but not the baseline a", () => {
    const c = Comparison.of(threeRuns());
    const [table] = c.toMarkdown({ baseline: "base" }).split("\n\n");
    expect(table).toBe(
      [
        "| # | run | recall@5 |",
        "| --- | --- | ---: |",
        "| a | base | 0.5000ᵇ |",
        "| b | worse | 0.1250 |",
        "| c | close | 0.5125ᵇ |",
      ].join("\n"),
    );
    const t = c.table({ baseline: "base" });
    const cell = t.rows[2]!.cells[0]!;
    // The cell's own test stays the one against the baseline: p = 1, no winner.
    expect(cell.test).toMatchObject({ run: "close", baseline: "base", p: 1, better: null });
    expect(cell.beats).toEqual(["b"]);
    expect(cell.wins[0]).toMatchObject({
      run: "close",
      baseline: "worse",
      baselineLabel: "b",
      better: "run",
      significant: true,
      n: 40,
    });
    expect(cell.wins[0]!.p).toBeLessThan(0.001);
    expect(cell.wins[0]!.meanDiff).toBeCloseTo(15.5 / 40, 12);
    expect(t.significance).toMatchObject({ marks: "all-pairs", maxPairwiseRuns: 12 });
    expect(t.significance!.comparisons.map((x) => x.label)).toEqual(["b", "c"]);
    expect(t.significance!.pairwise.map((x) => `${x.label}/${x.baselineLabel}`)).toEqual(["c/b"]);
  });

  it("uses the same seed for every test, so a pairwise p equals pairedTest's", () => {
    const c = Comparison.of(threeRuns());
    const t = c.table({ baseline: "base", seed: 7, permutations: 2000 });
    const direct = c.pairedTest("close", "worse", {
      metric: "recall@5",
      seed: 7,
      permutations: 2000,
    });
    expect(t.significance!.pairwise[0]).toEqual(direct);
    expect(c.table({ baseline: "base", seed: 7, permutations: 2000 })).toEqual(t);
  });

  it("gives the same marks whichever run is the baseline", () => {
    const c = Comparison.of(threeRuns());
    const tableOf = (baseline: string) => c.toMarkdown({ baseline }).split("\n\n")[0];
    expect(tableOf("worse")).toBe(tableOf("base"));
    expect(tableOf("close")).toBe(tableOf("base"));
    expect(c.toMarkdown({ baseline: "close" })).toContain("baseline c (close)");
  });

  it("falls back to baseline-only marks past maxPairwiseRuns, and says so", () => {
    const c = Comparison.of(threeRuns());
    const md = c.toMarkdown({ baseline: "base", maxPairwiseRuns: 2 });
    const [table, legend] = md.split("\n\n");
    // The baseline still names the run it beats; c's win over b is no longer tested.
    expect(table).toContain("| a | base | 0.5000ᵇ |");
    expect(table).toContain("| c | close | 0.5125 |");
    expect(legend).toContain(
      "With 3 runs, more than the all-pairs limit of 2, each run is tested against the baseline a (base) only",
    );
    const sig = c.table({ baseline: "base", maxPairwiseRuns: 2 }).significance;
    expect(sig).toMatchObject({ marks: "baseline", maxPairwiseRuns: 2, pairwise: [] });
    expect(c.table({ baseline: "base", maxPairwiseRuns: 3 }).significance?.marks).toBe("all-pairs");
  });

  it("falls back above the default limit of 12 runs", () => {
    // a = base (0.5), b…l = 11 identical "bad" runs (mean 0.125), m = good (mean 0.875).
    const runs = [
      makeResult({ name: "base", scores: { s: fill(40, 0.5) } }),
      ...Array.from({ length: 11 }, (_, i) =>
        makeResult({ name: `bad${i}`, scores: { s: [...fill(30, 0), ...fill(10, 0.5)] } }),
      ),
      makeResult({ name: "good", scores: { s: [...fill(30, 1), ...fill(10, 0.5)] } }),
    ];
    const c = Comparison.of(runs);
    const fallback = c.table({ test: "randomization", permutations: 500 });
    expect(fallback.significance).toMatchObject({ marks: "baseline", maxPairwiseRuns: 12 });
    expect(fallback.significance?.pairwise).toEqual([]);
    expect(fallback.significance?.comparisons).toHaveLength(12);
    const bToL = "bcdefghijkl".split("");
    expect(fallback.rows[0]!.cells[0]!.beats).toEqual(bToL);
    expect(fallback.rows[12]!.cells[0]!.beats).toEqual(["a"]);
    expect(fallback.rows[1]!.cells[0]!.beats).toEqual([]);
    expect(c.toMarkdown({ test: "randomization", permutations: 500 })).toContain(
      "With 13 runs, more than the all-pairs limit of 12, each run is tested against the baseline a (base) only",
    );
    const all = c.table({ test: "randomization", permutations: 500, maxPairwiseRuns: 13 });
    expect(all.significance?.marks).toBe("all-pairs");
    expect(all.significance?.pairwise).toHaveLength(66); // 12 · 11 / 2 pairs without the baseline
    expect(all.rows[12]!.cells[0]!.beats).toEqual(["a", ...bToL]);
    expect(all.rows[0]!.cells[0]!.beats).toEqual(bToL);
    for (let i = 1; i <= 11; i++) expect(all.rows[i]!.cells[0]!.beats).toEqual([]);
  });

  it("refuses a bad maxPairwiseRuns", () => {
    const c = Comparison.of(threeRuns());
    expect(() => c.table({ baseline: 0, maxPairwiseRuns: -1 })).toThrow(
      /table: maxPairwiseRuns: expected an integer ≥ 0, found the number -1/,
    );
    expect(() => c.table({ baseline: 0, maxPairwiseRuns: 2.5 })).toThrow(ConfigurationError);
  });

  it("lists the pairwise tests in the JSON, naming the run each is against", () => {
    const json = JSON.parse(Comparison.of(threeRuns()).toJson({ baseline: "base" }));
    expect(json.significance).toMatchObject({ marks: "all-pairs", max_pairwise_runs: 12 });
    expect(json.significance.pairwise).toEqual([
      expect.objectContaining({
        run: "close",
        label: "c",
        against: "worse",
        against_label: "b",
        metric: "recall@5",
        better: "run",
        significant: true,
      }),
    ]);
    expect(json.runs.map((r: { beats: object }) => r.beats)).toEqual([
      { "recall@5": ["b"] },
      {},
      { "recall@5": ["b"] },
    ]);
  });
});
