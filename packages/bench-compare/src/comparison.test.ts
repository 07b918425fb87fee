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

  it("refuses an unknown statistic instead of printing zeros", () => {
    const c = Comparison.of([bm25]);
    expect(() => c.toMarkdown("p42" as never)).toThrow(ConfigurationError);
    expect(() => c.toMarkdown("p42" as never)).toThrow(
      /unknown statistic "p42"; expected one of count, mean/,
    );
  });

  it("prints — for a metric without scores and escapes pipes in run names", () => {
    const r = makeResult({ name: "a|b", scores: { m: [null, null] } });
    expect(Comparison.of([r]).toMarkdown()).toContain("| a\\|b | — |");
  });

  it("marks significant wins the way ranx does, with a legend", () => {
    const md = Comparison.of(sigRuns()).toMarkdown({ baseline: "base", test: "randomization" });
    const [table, legend] = md.split("\n\n");
    expect(table).toBe(
      [
        "| # | run | recall@5 | latency_ms |",
        "| --- | --- | ---: | ---: |",
        "| a | base | 0.5000ᶜ | 100.0ᶜ |",
        "| b | good | 0.8750ᵃ | 100.0 |",
        "| c | bad | 0.1250 | 200.0 |",
      ].join("\n"),
    );
    expect(legend).toContain("Runs: a = base, b = good, c = bad.");
    expect(legend).toContain(
      "approximate randomization test (10,000 permutations, seed 0), p < 0.05",
    );
    expect(legend).toContain("baseline a (base)");
    expect(legend).toContain("No multiple-comparison correction.");
  });

  it("gives the same marks with the t-test, and none when alpha is tiny", () => {
    const c = Comparison.of(sigRuns());
    const md = c.toMarkdown({ baseline: 0, test: "t-test" });
    expect(md).toContain("| b | good | 0.8750ᵃ | 100.0 |");
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
    expect(md).toContain("2 pair(s) with an errored or null score were left out");
    expect(md).toContain("| b | flaky | 1.0000ᵃ | 90.0ᵃ |");
  });

  it("refuses a bad baseline, and significance on a statistic other than the mean", () => {
    const c = Comparison.of(sigRuns());
    expect(() => c.toMarkdown({ baseline: "nope" })).toThrow(
      /no run named "nope"; runs are "base", "good", "bad"/,
    );
    expect(() => c.toMarkdown({ baseline: 7 })).toThrow(/out of range/);
    expect(() => c.toMarkdown({ stat: "p95", baseline: "base" })).toThrow(
      /significance marks need stat "mean"/,
    );
    expect(() => c.toMarkdown({ baseline: "base", alpha: 2 })).toThrow(/alpha/);
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
        },
      ),
      { numRuns: 60 },
    );
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
    expect(c.results.map((r) => r.name)).toEqual(["bm25", "hybrid"]);
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
    expect(json.metrics[1]).toEqual({ name: "latency_ms", higher_is_better: false });
    expect(json.runs[1]).toEqual({
      label: "b",
      name: "hybrid",
      values: { "recall@5": 0.125, "ndcg@5": 0.5 },
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
