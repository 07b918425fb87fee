import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { makeResult } from "./__fixtures__/make-result.js";
import { check } from "./check.js";

// recall mean (1 + 0.5 + 0.5 + 1)/4 = 0.75; latency p95 of [100, 200, 300, 1400] = 300 + 0.85·1100 = 1235.
const run = makeResult({
  name: "run",
  scores: {
    "recall@5": [1, 0.5, 0.5, 1],
    latency_ms: [100, 200, 300, 1400],
    judge: [null, null, null, null],
  },
});

describe("check", () => {
  it("passes with an empty list when every bound holds", () => {
    expect(
      check(run, { "recall@5": { min: 0.7 }, latency_ms: { stat: "p95", max: 1300 } }),
    ).toEqual([]);
  });

  it("returns every failure with metric, stat, value and bound", () => {
    const failures = check(run, {
      "recall@5": { min: 0.8 },
      latency_ms: { stat: "p95", max: 1200 },
    });
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatchObject({
      metric: "recall@5",
      stat: "mean",
      value: 0.75,
      bound: 0.8,
      kind: "min",
    });
    expect(failures[0]?.message).toBe("recall@5 mean = 0.7500 is below the minimum 0.8000");
    expect(failures[1]).toMatchObject({
      metric: "latency_ms",
      stat: "p95",
      bound: 1200,
      kind: "max",
    });
    expect(failures[1]?.value).toBeCloseTo(1235, 9);
  });

  it("passes a mean that is the bound but for floating-point rounding", () => {
    // The mean of 0, 0 and 0.3 comes out 0.09999999999999999 in doubles: mathematically 0.1.
    const rounded = makeResult({ name: "r", scores: { "recall@5": [0, 0, 0.3] } });
    expect(rounded.summary["recall@5"]?.mean).toBeLessThan(0.1);
    expect(check(rounded, { "recall@5": { min: 0.1 } })).toEqual([]);
    expect(check(rounded, { "recall@5": { max: 0.1 } })).toEqual([]);
    // A real shortfall, however small next to the 4 decimals, still fails.
    const short = makeResult({ name: "s", scores: { "recall@5": [0.79999, 0.8] } });
    expect(check(short, { "recall@5": { min: 0.8 } })).toHaveLength(1);
  });

  it("prints as many decimals as it takes to tell the value from the bound", () => {
    const close = makeResult({ name: "c", scores: { "recall@5": [0.79998, 0.8] } });
    const [failure] = check(close, { "recall@5": { min: 0.8 } });
    expect(failure?.message).toBe("recall@5 mean = 0.79999 is below the minimum 0.80000");
    const [above] = check(close, { "recall@5": { max: 0.79998 } });
    expect(above?.message).toBe("recall@5 mean = 0.79999 is above the maximum 0.79998");
    // An integer bound prints as one, and the value with the decimals that set it apart.
    const almostOne = makeResult({ name: "o", scores: { m: [0.99999] } });
    expect(check(almostOne, { m: { min: 1 } })[0]?.message).toBe(
      "m mean = 0.99999 is below the minimum 1",
    );
    const almostZero = makeResult({ name: "z", scores: { m: [0.00001] } });
    expect(check(almostZero, { m: { max: 0 } })[0]?.message).toBe(
      "m mean = 0.000010 is above the maximum 0",
    );
  });

  it("allows a mean that is a bound of 0 but for rounding, at the scale of its scores", () => {
    // -0.1, -0.2 and 0.3 average to -1.85e-17 in doubles: mathematically 0.
    const signed = makeResult({ name: "s", scores: { m: [-0.1, -0.2, 0.3] } });
    expect(signed.summary.m?.mean).toBeLessThan(0);
    expect(check(signed, { m: { min: 0 } })).toEqual([]);
    const below = makeResult({ name: "b", scores: { m: [-0.1, -0.2, 0.2999] } });
    expect(check(below, { m: { min: 0 } })).toHaveLength(1);
  });

  it("fails an unknown metric and a metric without scores instead of passing them", () => {
    const failures = check(run, { "ndcg@5": { min: 0.5 }, judge: { max: 1 } });
    expect(failures).toEqual([
      expect.objectContaining({ metric: "ndcg@5", value: null, bound: 0.5, kind: "missing" }),
      expect.objectContaining({ metric: "judge", value: null, bound: 1, kind: "missing" }),
    ]);
    expect(failures[0]?.message).toBe(
      `ndcg@5 mean: run "run" has no metric "ndcg@5" (it has "recall@5", "latency_ms", "judge"), so the threshold cannot pass`,
    );
  });

  it("refuses malformed thresholds", () => {
    expect(() => check(run, { "recall@5": {} })).toThrow(/expected a min or a max, found neither/);
    expect(() => check(run, { "recall@5": { min: 0.9, max: 0.1 } })).toThrow(
      /min 0.9 is above max 0.1/,
    );
    expect(() => check(run, { "recall@5": { stat: "p42" as never, min: 0 } })).toThrow(
      ConfigurationError,
    );
    expect(() => check(run, { "recall@5": { min: Number.NaN } })).toThrow(
      /min: expected a finite number/,
    );
    expect(() => check(run, null as never)).toThrow(ConfigurationError);
    expect(() => check(null as never, { "recall@5": { min: 0 } })).toThrow(
      "check: result: expected a BenchmarkResult, found null",
    );
    // A misspelled stat must not quietly gate the mean (1,235 at p95 fails; the mean, 500, passes).
    for (const key of ["stats", "Stat", "statistic"]) {
      expect(() => check(run, { latency_ms: { [key]: "p95", max: 1200 } as never })).toThrow(
        new RegExp(`threshold "latency_ms": unknown key "${key}"; expected min, max and stat`),
      );
    }
  });

  it("fails metrics named after Object.prototype members that the run lacks", () => {
    for (const metric of ["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf"]) {
      const thresholds: Record<string, { min?: number; max?: number }> = {};
      Object.defineProperty(thresholds, metric, {
        value: { min: 0.5 },
        enumerable: true,
        writable: true,
        configurable: true,
      });
      expect(check(run, thresholds)).toEqual([
        expect.objectContaining({ metric, value: null, bound: 0.5, kind: "missing" }),
      ]);
    }
    expect(check(run, { constructor: { max: 0.5 } })).toEqual([
      expect.objectContaining({ metric: "constructor", value: null, bound: 0.5, kind: "missing" }),
    ]);
    expect(check(run, { toString: { min: 0.5 } })[0]?.kind).toBe("missing");
    expect(check(run, { ["__proto__"]: { min: 0.5 } })[0]?.kind).toBe("missing");
  });

  it("refuses thresholds whose __proto__ key set the prototype instead", () => {
    // An object literal's `__proto__:` key leaves no own threshold: passing would be silent.
    expect(() => check(run, { __proto__: { min: 0.5 } } as never)).toThrow(/custom prototype/);
  });

  it("checks a metric literally named __proto__ or constructor", () => {
    // Means by hand: __proto__ (1 + 0)/2 = 0.5; constructor (0.25 + 0.75)/2 = 0.5.
    const odd = makeResult({
      name: "odd",
      scores: { ["__proto__"]: [1, 0], constructor: [0.25, 0.75] },
    });
    expect(odd.metrics).toEqual(["__proto__", "constructor"]);
    expect(check(odd, { ["__proto__"]: { min: 0.5 }, constructor: { max: 0.5 } })).toEqual([]);
    const failures = check(odd, { ["__proto__"]: { min: 0.6 }, constructor: { max: 0.4 } });
    expect(failures).toEqual([
      expect.objectContaining({ metric: "__proto__", value: 0.5, bound: 0.6, kind: "min" }),
      expect.objectContaining({ metric: "constructor", value: 0.5, bound: 0.4, kind: "max" }),
    ]);
  });
});
