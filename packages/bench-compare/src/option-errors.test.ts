// A refused option is a ConfigurationError of kind "invalid-option" that names the option, so that
// code (the CLI, a caller's own checks) can react to it without reading the message.
import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { sigRuns } from "./__fixtures__/comparison-runs.js";
import { bootstrapCi } from "./bootstrap-ci.js";
import { Comparison } from "./comparison.js";

function fieldsOf(call: () => unknown): { kind: string; option: string | undefined } {
  try {
    call();
  } catch (error) {
    expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
    const e = error as ConfigurationError;
    return { kind: e.kind, option: e.option };
  }
  throw new Error("expected a ConfigurationError, nothing was thrown");
}

describe("a bad option names itself", () => {
  const c = Comparison.of(sigRuns());
  const cases: [string, () => unknown, string | undefined][] = [
    ["table: stat", () => c.table({ stat: "p42" as never }), "stat"],
    ["table: samples", () => c.table({ samples: "some" as never }), "samples"],
    ["table: maxPairwiseRuns", () => c.table({ maxPairwiseRuns: -1 }), "maxPairwiseRuns"],
    ["table: options", () => c.table(5 as never), undefined],
    ["significance: alpha", () => c.significance({ baseline: "base", alpha: 1 }), "alpha"],
    [
      "significance: permutations",
      () => c.significance({ baseline: "base", permutations: 0 }),
      "permutations",
    ],
    ["significance: seed", () => c.significance({ baseline: "base", seed: 0.5 }), "seed"],
    ["significance: test", () => c.significance({ baseline: "base", test: "z" as never }), "test"],
    ["significance: metrics", () => c.significance({ metrics: "m" as never }), "metrics"],
    ["significance: options", () => c.significance(null as never), undefined],
    ["best: stat", () => c.best("recall@5", "p42" as never), "stat"],
    ["toHtml: title", () => c.toHtml({ title: 5 as never }), "title"],
    ["toHtml: diffMetric", () => c.toHtml({ diffMetric: "nope" }), "diffMetric"],
    ["toHtml: latencyMetrics", () => c.toHtml({ latencyMetrics: ["nope"] }), "latencyMetrics"],
    ["toHtml: maxDiffRows", () => c.toHtml({ maxDiffRows: -1 }), "maxDiffRows"],
    ["toHtml: maxJudgmentRows", () => c.toHtml({ maxJudgmentRows: 1.5 }), "maxJudgmentRows"],
    ["bootstrapCi: resamples", () => bootstrapCi([1], { resamples: 0 }), "resamples"],
    ["bootstrapCi: level", () => bootstrapCi([1], { level: 2 }), "level"],
    ["bootstrapCi: seed", () => bootstrapCi([1], { seed: Number.NaN }), "seed"],
  ];
  for (const [name, call, option] of cases) {
    it(name, () => {
      expect(fieldsOf(call)).toEqual({ kind: "invalid-option", option });
    });
  }
});
