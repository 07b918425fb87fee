import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { ConfigurationError } from "@fastrag/bench-core";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeResult } from "./__fixtures__/make-result.js";
import { Comparison } from "./comparison.js";

// Means worked by hand: bm25 recall (1 + 0 + 0.5 + 1)/4 = 0.625, dense 0.875, hybrid 0.125;
// latency means 250 and 300; p95 of [100, 200, 300, 400] = 300 + 0.85·100 = 385 (numpy linear).
const bm25 = makeResult({
  name: "bm25",
  scores: { "recall@5": [1, 0, 0.5, 1], latency_ms: [100, 200, 300, 400] },
});
const dense = makeResult({
  name: "dense",
  scores: { "recall@5": [1, 1, 0.5, 1], latency_ms: [150, 250, 350, 450] },
});
const hybrid = makeResult({
  name: "hybrid",
  scores: { "recall@5": [0, 0, 0.5, 0], "ndcg@5": [0.5, 0.5, 0.5, 0.5] },
});

/** 40 samples: "good" wins 30 recall pairs by 0.5, "bad" loses 30 and is 100 ms slower on all. */
function sigRuns() {
  const fill = (n: number, v: number | "error" | null) => new Array(n).fill(v);
  return [
    makeResult({ name: "base", scores: { "recall@5": fill(40, 0.5), latency_ms: fill(40, 100) } }),
    makeResult({
      name: "good",
      scores: { "recall@5": [...fill(30, 1), ...fill(10, 0.5)], latency_ms: fill(40, 100) },
    }),
    makeResult({
      name: "bad",
      scores: { "recall@5": [...fill(30, 0), ...fill(10, 0.5)], latency_ms: fill(40, 200) },
    }),
  ];
}

describe("Comparison.of", () => {
  it("keeps the results in order and lists metrics in first-seen order", () => {
    const c = Comparison.of([bm25, dense, hybrid]);
    expect(c.results.map((r) => r.name)).toEqual(["bm25", "dense", "hybrid"]);
    expect(c.metrics()).toEqual(["recall@5", "latency_ms", "ndcg@5"]);
    expect(c.label("hybrid")).toBe("c");
  });

  it("refuses an empty comparison, non-results and conflicting directions", () => {
    expect(() => Comparison.of([])).toThrow(ConfigurationError);
    expect(() => Comparison.of([{} as never])).toThrow(/results\[0\]: expected a BenchmarkResult/);
    const flipped = makeResult({
      name: "odd",
      scores: { "recall@5": [1] },
      higherIsBetter: { "recall@5": false },
    });
    expect(() => Comparison.of([bm25, flipped])).toThrow(
      /runs disagree on the direction of "recall@5": "bm25" says higher is better, "odd" says lower/,
    );
  });
});

describe("toMarkdown", () => {
  it("renders one row per run, one column per metric, — for a missing metric", () => {
    expect(Comparison.of([bm25, dense, hybrid]).toMarkdown()).toBe(
      [
        "| run | recall@5 | latency_ms | ndcg@5 |",
        "| --- | ---: | ---: | ---: |",
        "| bm25 | 0.6250 | 250.0 | — |",
        "| dense | 0.8750 | 300.0 | — |",
        "| hybrid | 0.1250 | — | 0.5000 |",
        "",
      ].join("\n"),
    );
  });

  it("puts the statistic in every header when it is not the mean", () => {
    const md = Comparison.of([bm25, dense]).toMarkdown("p95");
    expect(md.split("\n")[0]).toBe("| run | recall@5 p95 | latency_ms p95 |");
    expect(md).toContain("| bm25 | 1.0000 | 385.0 |");
    expect(md).toContain("| dense | 1.0000 | 435.0 |");
    expect(Comparison.of([bm25]).toMarkdown({ stat: "count" })).toContain("| bm25 | 4 | 4 |");
  });

  it("never prints a non-zero value as 0 in a column of large values", () => {
    const cache = makeResult({ name: "cache", scores: { latency_ms: [0.4, 0.4] } });
    const cold = makeResult({ name: "cold", scores: { latency_ms: [1500, 1500] } });
    const tiny = makeResult({ name: "tiny", scores: { latency_ms: [0.0049, 0.0049] } });
    const md = Comparison.of([cache, cold, tiny]).toMarkdown();
    expect(md).toContain("| cache | 0.40 |");
    expect(md).toContain("| cold | 1500 |");
    expect(md).toContain("| tiny | 0.0049 |");
    // A column of scores in [0, 1] has 4 decimals: a cost of $0.00002 still shows.
    const mini = makeResult({ name: "mini", scores: { cost: [0.00002, 0.00002] } });
    const big = makeResult({ name: "big", scores: { cost: [0.04, 0.04] } });
    const costs = Comparison.of([mini, big]).toMarkdown();
    expect(costs).toContain("| mini | 0.000020 |");
    expect(costs).toContain("| big | 0.0400 |");
    // Below 1 in a column of 1 decimal: two significant digits, so 0.13 and 0.05 stay apart.
    const fast = makeResult({ name: "fast", scores: { latency_ms: [0.13, 0.13] } });
    const faster = makeResult({ name: "faster", scores: { latency_ms: [0.05, 0.05] } });
    const slow = makeResult({ name: "slow", scores: { latency_ms: [700, 700] } });
    const mixed = Comparison.of([fast, faster, slow]).toMarkdown();
    expect(mixed).toContain("| fast | 0.13 |");
    expect(mixed).toContain("| faster | 0.050 |");
    expect(mixed).toContain("| slow | 700.0 |");
    // Rounding up keeps the column's order: 0.996 beside 1.004 (0 decimals) both read "1", and
    // 0.0996 reads "0.10", not "0.100".
    const near = (name: string, v: number) => makeResult({ name, scores: { m: [v] } });
    const around = Comparison.of([
      near("under", 0.996),
      near("over", 1.004),
      near("tenth", 0.0996),
      near("neg", -0.996),
      near("big", 1500),
    ]).toMarkdown();
    expect(around).toContain("| under | 1 |");
    expect(around).toContain("| over | 1 |");
    expect(around).toContain("| tenth | 0.10 |");
    expect(around).toContain("| neg | -1 |");
    const zero = makeResult({ name: "zero", scores: { latency_ms: [0, 0] } });
    expect(Comparison.of([zero, cold]).toMarkdown()).toContain("| zero | 0 |");
  });

  it("says that tests use only the pairs both runs scored, when some were left out", () => {
    const a = makeResult({ name: "a", scores: { m: [0.1, 0.2, 0.3, 0.4] } });
    const b = makeResult({ name: "b", scores: { m: [0.9, "error", 0.8, "error"] } });
    const md = Comparison.of([a, b]).toMarkdown({ baseline: 0, test: "t-test" });
    expect(md).toContain(
      "2 sample(s) (2 with no score in a run (errored)) were left out of the tests, which compare only the samples both runs scored.",
    );
    // The means are over samples 1 and 3, which both runs scored: (0.1 + 0.3) / 2, (0.9 + 0.8) / 2.
    expect(md).toContain("| a | 0 | 0 | 0.2000 |");
    expect(md).toContain("| b | 2 | 0 | 0.8500 |");
    const all = Comparison.of([a, b]).toMarkdown({ baseline: 0, test: "t-test", samples: "all" });
    expect(all).toContain(
      "2 sample(s) (2 with no score in a run (errored)) were left out of the tests, which compare only the samples both runs scored; each mean in the table is over all of its own run's scores",
    );
    expect(all).toContain("| a | 0 | 0 | 0.2500 |");
  });

  it("refuses an unknown statistic instead of printing zeros", () => {
    const c = Comparison.of([bm25]);
    expect(() => c.toMarkdown("p42" as never)).toThrow(ConfigurationError);
    expect(() => c.toMarkdown("p42" as never)).toThrow(
      /unknown statistic "p42"; expected one of count, mean/,
    );
  });

  it("prints — for a metric without scores and escapes pipes in run names", () => {
    const r = makeResult({ name: "a|b", scores: { m: [null, null] } });
    expect(Comparison.of([r]).toMarkdown()).toContain("| a\\|b | 0 | 2 | — |");
  });

  it("marks significant wins the way ranx does, with a legend", () => {
    const md = Comparison.of(sigRuns()).toMarkdown({ baseline: "base", test: "randomization" });
    const [table, legend] = md.split("\n\n");
    expect(table).toBe(
      [
        "| # | run | recall@5 | latency_ms |",
        "| --- | --- | ---: | ---: |",
        // Every pair is tested: good beats base and bad on recall, and bad on latency too.
        "| a | base | 0.5000ᶜ | 100.0ᶜ |",
        "| b | good | 0.8750ᵃᶜ | 100.0ᶜ |",
        "| c | bad | 0.1250 | 200.0 |",
      ].join("\n"),
    );
    expect(legend).toContain("Runs: a = base, b = good, c = bad.");
    expect(legend).toContain(
      "approximate randomization test (10,000 permutations, seed 0), p < 0.05",
    );
    expect(legend).toContain(
      "Every pair of runs is tested on every metric (3 tests per metric); baseline a (base)",
    );
    expect(legend).toContain("No multiple-comparison correction.");
  });

  it("gives the same marks with the t-test, and none when alpha is tiny", () => {
    const c = Comparison.of(sigRuns());
    const md = c.toMarkdown({ baseline: 0, test: "t-test" });
    expect(md).toContain("| a | base | 0.5000ᶜ | 100.0ᶜ |");
    expect(md).toContain("| b | good | 0.8750ᵃᶜ | 100.0ᶜ |");
    expect(md).toContain("paired two-sided t-test");
    // Randomization p is at least 1/10001 ≈ 1e-4, so alpha 1e-5 can mark nothing.
    const none = c.toMarkdown({ baseline: 0, test: "randomization", alpha: 1e-5 });
    expect(none.split("\n\n")[0]).not.toMatch(/[ᵃᵇᶜ]/);
  });

  it("reports pairs left out in the legend", () => {
    const runs = sigRuns();
    const withError = makeResult({
      name: "flaky",
      scores: {
        "recall@5": ["error", ...new Array(39).fill(1)],
        latency_ms: ["error", ...new Array(39).fill(90)],
      },
    });
    const md = Comparison.of([runs[0]!, withError]).toMarkdown({ baseline: "base" });
    // One errored sample, left out of the tests of both metrics: counted once, as a sample.
    expect(md).toContain("1 sample(s) (1 with no score in a run (errored)) were left out");
    expect(md).toContain("| b | flaky | 1 | 0 | 1.0000ᵃ | 90.0ᵃ |");
  });

  it("refuses a bad baseline, and significance on a statistic other than the mean", () => {
    const c = Comparison.of(sigRuns());
    expect(() => c.toMarkdown({ baseline: "nope" })).toThrow(
      /no run named "nope"; runs are "base", "good", "bad"/,
    );
    expect(() => c.toMarkdown({ baseline: 7 })).toThrow(/out of range/);
    // Also when no test runs: a mistyped baseline is an error, not silently the first run.
    expect(() => c.toMarkdown({ baseline: "nope", test: "none" })).toThrow(/no run named "nope"/);
    expect(() => c.toMarkdown({ stat: "p95", baseline: "nope", test: "none" })).toThrow(
      /no run named "nope"/,
    );
    expect(() => Comparison.of(sigRuns().slice(0, 1)).toMarkdown({ baseline: "nope" })).toThrow(
      /no run named "nope"/,
    );
    expect(c.toMarkdown({ stat: "p95", baseline: "good", test: "none" })).toContain("p95");
    expect(() => c.toMarkdown({ stat: "p95", baseline: "base" })).toThrow(
      /significance marks need stat "mean"/,
    );
    expect(() => c.toMarkdown({ baseline: "base", alpha: 2 })).toThrow(/alpha/);
    // permutations is bounded on every path that resolves test options, the t-test included.
    const tooMany = "expected an integer in [1, 100000000], found 1e+21";
    expect(() => c.table({ baseline: "base", permutations: 1e21 })).toThrow(
      `table: permutations: ${tooMany}`,
    );
    expect(() => c.significance({ permutations: 1e21 })).toThrow(
      `significance: permutations: ${tooMany}`,
    );
    expect(() =>
      c.pairedTest("good", "base", { metric: "recall@5", test: "t-test", permutations: 1e21 }),
    ).toThrow(`pairedTest: permutations: ${tooMany}`);
  });

  it("property: with identical runs every p is 1 and nothing is marked", () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }), {
          minLength: 2,
          maxLength: 60,
        }),
        fc.constantFrom("randomization" as const, "t-test" as const),
        (scores, test) => {
          const runs = ["x", "y", "z"].map((name) => makeResult({ name, scores: { s: scores } }));
          const c = Comparison.of(runs);
          const scored = scores.filter((s) => s !== null).length;
          for (const t of c.significance({ test, permutations: 100 })) {
            if (scored >= (test === "t-test" ? 2 : 1)) expect(t.p).toBe(1);
            else expect(t.p).toBeNull();
            expect(t.significant).toBe(false);
          }
          const table = c.toMarkdown({ baseline: "x", test, permutations: 100 }).split("\n\n")[0];
          expect(table).not.toMatch(/[ᵃᵇᶜ]/);
          // All pairs: y against z too, and no cell names any run.
          const sig = c.table({ test, permutations: 100 }).significance;
          expect(sig?.marks).toBe("all-pairs");
          expect(sig?.pairwise.map((t) => `${t.label}/${t.baselineLabel}`)).toEqual(["c/b"]);
          for (const t of sig?.pairwise ?? []) {
            if (scored >= (test === "t-test" ? 2 : 1)) expect(t.p).toBe(1);
            expect(t.significant).toBe(false);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("runs equal but for floating-point rounding", () => {
  // 0.1 + 0.2 is 0.30000000000000004: "sum" differs from "exact" on every sample by 5.6e-17.
  const runs = () => [
    makeResult({ name: "exact", scores: { m: new Array<number>(30).fill(0.3) } }),
    makeResult({ name: "sum", scores: { m: new Array<number>(30).fill(0.1 + 0.2) } }),
    makeResult({ name: "real", scores: { m: new Array<number>(30).fill(0.4) } }),
  ];

  it("are not significant with either test, and carry no mark", () => {
    const c = Comparison.of(runs());
    for (const test of ["randomization", "t-test"] as const) {
      const [noise, real] = c.significance({ baseline: "exact", test });
      expect(noise).toMatchObject({ run: "sum", p: 1, meanDiff: 0, significant: false });
      expect(noise?.better).toBeNull();
      // A real difference on the same samples is still significant.
      expect(real).toMatchObject({ run: "real", significant: true, better: "run" });
      const [table] = c.toMarkdown({ baseline: "exact", test }).split("\n\n");
      expect(table).toBe(
        [
          "| # | run | m |",
          "| --- | --- | ---: |",
          "| a | exact | 0.3000 |",
          "| b | sum | 0.3000 |",
          "| c | real | 0.4000ᵃᵇ |",
        ].join("\n"),
      );
    }
  });

  it("report an effect of exactly 0 for the same scores in another pairing", () => {
    // Both runs score 0.1, 0.7 and 0.2, on different samples: the mean difference is 0. Summed
    // pair by pair, 0.1 − 0.7, 0.7 − 0.2 and 0.2 − 0.1 gave −2.8e-17, so mean_diff −9.25e-18.
    const c = Comparison.of([
      makeResult({ name: "x", scores: { m: [0.1, 0.7, 0.2] } }),
      makeResult({ name: "y", scores: { m: [0.7, 0.2, 0.1] } }),
    ]);
    for (const test of ["randomization", "t-test"] as const) {
      const json = JSON.parse(c.toJson({ baseline: "y", test }));
      expect(json.significance.comparisons[0]).toMatchObject({ run: "x", p: 1, mean_diff: 0 });
      expect(Object.is(json.significance.comparisons[0].mean_diff, 0)).toBe(true);
    }
  });

  it("report a zero effect when one pair is too few for the t-test", () => {
    const one = Comparison.of([
      makeResult({ name: "exact", scores: { m: [0.3] } }),
      makeResult({ name: "sum", scores: { m: [0.1 + 0.2] } }),
    ]);
    expect(one.pairedTest("sum", "exact", { metric: "m", test: "t-test" })).toMatchObject({
      p: null,
      meanDiff: 0,
      n: 1,
      significant: false,
    });
  });
});

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
      /table: maxPairwiseRuns: expected an integer ≥ 0, found -1/,
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

describe("metrics named after Object.prototype members", () => {
  // x: __proto__ mean (1 + 0 + 1 + 1)/4 = 0.75, constructor 0.5, no toString.
  // y: __proto__ mean 0.5, toString 1, no constructor.
  const x = makeResult({
    name: "x",
    scores: { ["__proto__"]: [1, 0, 1, 1], constructor: [0.5, 0.5, 0.5, 0.5] },
  });
  const y = makeResult({
    name: "y",
    scores: { ["__proto__"]: [0, 0, 1, 1], toString: [1, 1, 1, 1] },
  });
  const c = Comparison.of([x, y]);

  it("tabulates them, with — where a run lacks one", () => {
    expect(c.metrics()).toEqual(["__proto__", "constructor", "toString"]);
    expect(c.toMarkdown()).toBe(
      [
        // Escaped: a bare __proto__ renders as a bold "proto".
        "| run | \\_\\_proto\\_\\_ | constructor | toString |",
        "| --- | ---: | ---: | ---: |",
        "| x | 0.7500 | 0.5000 | — |",
        "| y | 0.5000 | — | 1.0000 |",
        "",
      ].join("\n"),
    );
    expect(c.toCsv()).toBe("run,__proto__,constructor,toString\r\nx,0.75,0.5,\r\ny,0.5,,1\r\n");
    expect(c.best("__proto__").name).toBe("x");
    expect(c.best("constructor").name).toBe("x");
    expect(c.best("toString").name).toBe("y");
  });

  it("writes them as ordinary JSON keys", () => {
    const text = c.toJson();
    expect(text).toContain('"__proto__": 0.75');
    const json = JSON.parse(text);
    expect(Object.keys(json.runs[0].values)).toEqual(["__proto__", "constructor"]);
    expect(Object.getOwnPropertyDescriptor(json.runs[0].values, "__proto__")?.value).toBe(0.75);
    expect(Object.keys(json.runs[1].values)).toEqual(["__proto__", "toString"]);
  });

  it("tests and diffs them, and names the run that lacks one", () => {
    const tests = c.significance({ test: "t-test" });
    // __proto__ differences y − x: [−1, 0, 0, 0]: mean −0.25, sd 0.5, t = −0.25 / (0.5 / 2) = −1.
    expect(tests[0]).toMatchObject({ metric: "__proto__", n: 4, t: -1, df: 3 });
    expect(tests[0]!.meanDiff).toBeCloseTo(-0.25, 12);
    expect(tests[1]).toMatchObject({
      metric: "constructor",
      p: null,
      reason: 'run "y" has no metric "constructor"',
    });
    expect(tests[2]).toMatchObject({
      metric: "toString",
      p: null,
      reason: 'run "x" has no metric "toString"',
    });
    const d = c.diff("x", "y", { metric: "__proto__" });
    expect(d.regressed.map((s) => [s.sampleId, s.baseline, s.candidate])).toEqual([["q1", 1, 0]]);
    expect(d.unchanged).toBe(3);
    expect(() => c.diff("x", "y", { metric: "constructor" })).toThrow(
      /diff: run "y" has no metric "constructor"/,
    );
    expect(() => c.diff("y", "x", { metric: "toString" })).toThrow(
      /diff: run "x" has no metric "toString"/,
    );
  });

  it("marks a significant win on a metric named __proto__", () => {
    const fill = (n: number, v: number) => new Array<number>(n).fill(v);
    const a = makeResult({
      name: "a",
      scores: { ["__proto__"]: [...fill(30, 1), ...fill(10, 0.5)] },
    });
    const b = makeResult({ name: "b", scores: { ["__proto__"]: fill(40, 0.5) } });
    const both = Comparison.of([a, b]);
    expect(both.toMarkdown({ baseline: "b" })).toContain("| a | a | 0.8750ᵇ |");
    const json = JSON.parse(both.toJson({ baseline: "b" }));
    expect(Object.getOwnPropertyDescriptor(json.runs[0].beats, "__proto__")?.value).toEqual(["b"]);
    expect(Object.keys(json.runs[0].values)).toEqual(["__proto__"]);
  });
});

describe("best", () => {
  const c = Comparison.of([bm25, dense, hybrid]);
  it("follows each metric's own direction", () => {
    expect(c.best("recall@5").name).toBe("dense");
    expect(c.best("latency_ms").name).toBe("bm25");
    expect(c.best("latency_ms", "p95").name).toBe("bm25");
    expect(c.best("ndcg@5").name).toBe("hybrid");
  });

  it("gives a tie up to floating-point rounding to the earlier run, as an exact tie", () => {
    // Means 0.3 and 0.1 + 0.2 = 0.30000000000000004: the same score, computed in another order.
    const first = makeResult({ name: "first", scores: { f1: [0.3], latency_ms: [5e-17] } });
    const later = makeResult({ name: "later", scores: { f1: [0.1 + 0.2], latency_ms: [0] } });
    const tied = Comparison.of([first, later]);
    expect(tied.best("f1").name).toBe("first");
    expect(Comparison.of([later, first]).best("f1").name).toBe("later");
    // A real difference still wins, however small against the values: 1e-9 of them.
    const ahead = makeResult({ name: "ahead", scores: { f1: [0.3 + 3e-10], latency_ms: [0] } });
    expect(Comparison.of([first, ahead]).best("f1").name).toBe("ahead");
    // Lower is better: 5e-17 against 0 is no rounding remainder of anything here (no other
    // value to be one of), so 0 wins.
    expect(tied.best("latency_ms").name).toBe("later");
  });

  it("refuses an unknown metric or statistic", () => {
    expect(() => c.best("mrr")).toThrow(
      /best: unknown metric "mrr"; the runs have "recall@5", "latency_ms", "ndcg@5"/,
    );
    expect(() => c.best("recall@5", "p42" as never)).toThrow(ConfigurationError);
  });
});

describe("significance and pairedTest", () => {
  it("reports p, effect and pairs for every run and metric against the baseline", () => {
    const c = Comparison.of(sigRuns());
    const all = c.significance({ baseline: "base", test: "t-test" });
    expect(all.map((t) => `${t.run}/${t.metric}`)).toEqual([
      "good/recall@5",
      "good/latency_ms",
      "bad/recall@5",
      "bad/latency_ms",
    ]);
    const good = all[0]!;
    expect(good.meanDiff).toBeCloseTo(0.375, 12); // 30 × 0.5 / 40
    expect(good.n).toBe(40);
    expect(good.better).toBe("run");
    expect(all[1]).toMatchObject({ p: 1, meanDiff: 0, significant: false, better: null });
    expect(all[3]).toMatchObject({ meanDiff: 100, better: "baseline", significant: true });
    const one = c.pairedTest("good", "base", { metric: "recall@5", seed: 3 });
    expect(one.p).toBeLessThan(0.001);
    expect(c.pairedTest("good", "base", { metric: "recall@5", seed: 3 })).toEqual(one);
  });

  it("refuses options that are not an object, instead of a TypeError", () => {
    const c = Comparison.of(sigRuns());
    expect(() => c.significance(null as never)).toThrow(
      "significance: expected an options object, found null",
    );
    expect(() => c.pairedTest("good", "base", null as never)).toThrow(
      'pairedTest: expected options with a metric ({ metric: "…" }), found null',
    );
    expect(() => c.bootstrapCi(null as never)).toThrow(
      "bootstrapCi: expected an options object, found null",
    );
    expect(() => c.significance({ metrics: "recall@5" as never })).toThrow(
      'significance: metrics: expected an array of metric names, found "recall@5"',
    );
    expect(() => c.bootstrapCi({ metrics: 5 as never })).toThrow(
      "bootstrapCi: metrics: expected an array of metric names, found 5",
    );
  });

  it("gives a null p with a reason when a run lacks the metric", () => {
    const c = Comparison.of([bm25, hybrid]);
    const t = c.significance({ metrics: ["latency_ms"] })[0]!;
    expect(t.p).toBeNull();
    expect(t.reason).toBe('run "hybrid" has no metric "latency_ms"');
  });

  it("refuses runs over different datasets", () => {
    const other = makeResult({ name: "other", scores: { "recall@5": [1, 1] }, ids: ["z1", "z2"] });
    expect(() => Comparison.of([bm25, other]).significance()).toThrow(
      /cannot pair runs "other" and "bm25"/,
    );
  });

  it("computes seeded bootstrap intervals per run and metric", () => {
    const c = Comparison.of([bm25, hybrid]);
    const cis = c.bootstrapCi({ metrics: ["ndcg@5"], resamples: 200, seed: 1 });
    expect(cis[0]).toMatchObject({ run: "bm25", interval: null });
    expect(cis[1]?.interval).toMatchObject({ mean: 0.5, lower: 0.5, upper: 0.5 });
  });
});

describe("files", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "compare-"));
    await dense.save(join(dir, "b-dense.json"));
    await bm25.save(join(dir, "a-bm25.json"));
    await hybrid.save(join(dir, "c[1].json"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("loads a glob sorted by path, relative or absolute", async () => {
    const abs = await Comparison.load(join(dir, "*.json"));
    expect(abs.results.map((r) => r.name)).toEqual(["bm25", "dense", "hybrid"]);
    const rel = await Comparison.load(`${relative(process.cwd(), dir)}/*-*.json`);
    expect(rel.results.map((r) => r.name)).toEqual(["bm25", "dense"]);
    expect(rel.toMarkdown()).toBe(Comparison.of([bm25, dense]).toMarkdown());
  });

  it("takes an existing path literally, and merges several patterns", async () => {
    const c = await Comparison.load(join(dir, "c[1].json"), join(dir, "a-*.json"));
    // In the order the patterns were given (issue 34): c[1].json first.
    expect(c.results.map((r) => r.name)).toEqual(["hybrid", "bm25"]);
  });

  it("excludes what a ! pattern matches from the other patterns, as globby does", async () => {
    // Globbed on its own, "!…" matched every file of the working directory (sources included).
    const c = await Comparison.load(join(dir, "*.json"), `!${join(dir, "b-*.json")}`);
    expect(c.results.map((r) => r.name)).toEqual(["bm25", "hybrid"]);
    const first = await Comparison.load(`!${join(dir, "c*.json")}`, join(dir, "*.json"));
    expect(first.results.map((r) => r.name)).toEqual(["bm25", "dense"]);
    // A file named literally is still itself beside an exclusion ("[1]" is not a character class).
    const literal = await Comparison.load(join(dir, "c[1].json"), `!${join(dir, "b-*")}`);
    expect(literal.results.map((r) => r.name)).toEqual(["hybrid"]);
  });

  it("refuses only exclusions, and a pattern whose files are all excluded", async () => {
    const not = `!${join(dir, "b-*.json")}`;
    await expect(Comparison.load(not)).rejects.toThrow(
      `Comparison.load: expected a pattern that selects files, found only exclusions ("${not}")`,
    );
    const pattern = join(dir, "b-*.json");
    await expect(Comparison.load(join(dir, "a-*.json"), pattern, not)).rejects.toThrow(
      `pattern "${pattern}" matched no file (working directory ${process.cwd()}, after excluding "${not}")`,
    );
  });

  it("refuses a pattern that matches nothing, naming it", async () => {
    const pattern = join(dir, "*.yaml");
    await expect(Comparison.load(pattern)).rejects.toThrow(ConfigurationError);
    await expect(Comparison.load(join(dir, "*.json"), pattern)).rejects.toThrow(
      `pattern "${pattern}" matched no file`,
    );
    await expect(Comparison.load()).rejects.toThrow(/at least one glob pattern/);
  });

  it("saves the mean table atomically", async () => {
    const c = Comparison.of([bm25, dense]);
    const path = join(dir, "out", "table.md");
    await c.save(path);
    expect(await readFile(path, "utf8")).toBe(c.toMarkdown());
  });
});

describe("toCsv and toJson", () => {
  it("writes CSV with full-precision numbers, empty missing cells and CRLF", () => {
    expect(Comparison.of([bm25, hybrid]).toCsv()).toBe(
      "run,recall@5,latency_ms,ndcg@5\r\nbm25,0.625,250,\r\nhybrid,0.125,,0.5\r\n",
    );
  });

  it("neutralizes formulas in text but keeps negative numbers numeric", () => {
    const evil = makeResult({
      name: '=HYPERLINK("http://x","y")',
      scores: { "-delta": [-0.5, -0.5] },
      higherIsBetter: { "-delta": true },
    });
    const csv = Comparison.of([evil]).toCsv();
    expect(csv).toBe(`run,'-delta\r\n"'=HYPERLINK(""http://x"",""y"")",-0.5\r\n`);
  });

  it("adds labels and p-value columns when a test is on", () => {
    const csv = Comparison.of(sigRuns()).toCsv({ baseline: "base", test: "t-test" });
    const lines = csv.split("\r\n");
    expect(lines[0]).toBe("label,run,recall@5,latency_ms,recall@5 p,latency_ms p");
    expect(lines[1]).toBe("a,base,0.5,100,,");
    expect(lines[2]).toMatch(/^b,good,0\.875,100,[0-9.e-]+,1$/);
  });

  it("writes JSON with snake_case keys, absent missing metrics and the tests", () => {
    const json = JSON.parse(Comparison.of([bm25, hybrid]).toJson());
    expect(json.format).toBe("fastrag-bench-comparison/1");
    expect(json.samples).toBe("common");
    expect(json.metrics[1]).toEqual({
      name: "latency_ms",
      higher_is_better: false,
      common_samples: 4,
    });
    expect(json.runs[1]).toEqual({
      label: "b",
      name: "hybrid",
      status: { successful: 4, errored: 0, incomplete: 0 },
      values: { "recall@5": 0.125, "ndcg@5": 0.5 },
      all_samples_values: { "recall@5": 0.125, "ndcg@5": 0.5 },
    });
    const sig = JSON.parse(Comparison.of(sigRuns()).toJson({ baseline: "base" }));
    expect(sig.significance).toMatchObject({
      test: "randomization",
      permutations: 10_000,
      seed: 0,
      baseline: "base",
      correction: "none",
    });
    expect(sig.runs[0].beats).toEqual({ "recall@5": ["c"], latency_ms: ["c"] });
    expect(sig.significance.comparisons[0]).toMatchObject({
      run: "good",
      metric: "recall@5",
      n: 40,
      left_out: 0,
      better: "run",
    });
  });
});

describe("load errors", () => {
  it("passes on core's ConfigurationError for a file that is not a result", async () => {
    const dir = await mkdtemp(join(tmpdir(), "compare-bad-"));
    try {
      const { writeFile } = await import("node:fs/promises");
      await writeFile(join(dir, "x.json"), '{"hello": 1}');
      await expect(Comparison.load(join(dir, "*.json"))).rejects.toThrow(
        /x\.json: not a fastrag bench result/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
