import { describe, expect, it } from "vitest";
import { bm25, hybrid, sigRuns } from "./__fixtures__/comparison-runs.js";
import { makeResult } from "./__fixtures__/make-result.js";
import { Comparison } from "./comparison.js";

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
      'significance: metrics: expected an array of metric names, found the string "recall@5"',
    );
    expect(() => c.bootstrapCi({ metrics: 5 as never })).toThrow(
      "bootstrapCi: metrics: expected an array of metric names, found the number 5",
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
