import { describe, expect, it } from "vitest";
import { makeResult } from "./__fixtures__/make-result.js";
import { Comparison } from "./comparison.js";

// "Pairs left out" counted in samples (issue 34, item 9). Three runs, two metrics, four samples:
// sample 1 errored in b (no score at all), sample 2 has a null m in a (scored n). Every test that
// involves a or b on a metric leaves them out: pairs summed over the tests (a–b, a–c, b–c on m and
// n) say 6, the samples are 2: one errored, one with a null score.
const a = makeResult({ name: "a", scores: { m: [1, null, 1, 0], n: [1, 1, 0, 1] } });
const b = makeResult({ name: "b", scores: { m: ["error", 1, 0, 0], n: ["error", 1, 1, 0] } });
const c = makeResult({ name: "c", scores: { m: [1, 1, 0, 1], n: [0, 1, 1, 1] } });

describe("samples left out of the tests", () => {
  it("counts each sample once, and says why", () => {
    const sig = Comparison.of([a, b, c]).table({ test: "t-test" }).significance;
    let pairs = 0;
    for (const t of [...(sig?.comparisons ?? []), ...(sig?.pairwise ?? [])]) pairs += t.leftOut;
    // a–b: m leaves out samples 1 and 2, n sample 1; a–c: m sample 2; b–c: m and n sample 1.
    expect(pairs).toBe(2 + 1 + 1 + 1 + 1);
    expect(sig?.leftOutSamples).toEqual({ samples: 2, errored: 1, unscored: 1 });
  });

  it("says so in the markdown legend and the JSON", () => {
    const comparison = Comparison.of([a, b, c]);
    expect(comparison.toMarkdown({ test: "t-test" })).toContain(
      "2 sample(s) (1 with no score in a run (errored), 1 with a null score for a tested metric) were left out of the tests",
    );
    const json = JSON.parse(comparison.toJson({ test: "t-test" }));
    expect(json.significance.left_out_samples).toEqual({ samples: 2, errored: 1, unscored: 1 });
  });

  it("reports nothing when every test used every pair", () => {
    const clean = Comparison.of([c, c]).table({ test: "t-test" }).significance;
    expect(clean?.leftOutSamples).toEqual({ samples: 0, errored: 0, unscored: 0 });
    expect(Comparison.of([c, c]).toMarkdown({ test: "t-test" })).not.toContain("left out");
  });
});
