import { ConfigurationError } from "@fastrag/bench-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bm25, dense, hybrid, sigRuns } from "./__fixtures__/comparison-runs.js";
import { makeResult } from "./__fixtures__/make-result.js";
import { Comparison } from "./comparison.js";

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
      /expected a statistic \(one of count, mean.*\), found the string "p42"/,
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
    const tooMany = "expected an integer in [1, 100000000], found the number 1e+21";
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
