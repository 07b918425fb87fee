import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { makeResult } from "./__fixtures__/make-result.js";
import { diff } from "./diff.js";

describe("diff", () => {
  const base = makeResult({
    name: "base",
    scores: { "recall@5": [0.5, 0.5, 1, 0.2, "error", 0.7, null, "error", 0.3] },
  });
  const cand = makeResult({
    name: "cand",
    scores: { "recall@5": [1, 0.4, 0, 0.2, 0.9, "error", 0.6, "error", 0.8] },
  });

  it("sorts improved and regressed samples by change, with both scores", () => {
    const d = diff(base, cand, { metric: "recall@5" });
    expect(d.pairedBy).toBe("sample_id");
    expect(d.improved.map((s) => [s.sampleId, s.baseline, s.candidate])).toEqual([
      ["q1", 0.5, 1], // +0.5, ties keep dataset order
      ["q9", 0.3, 0.8], // +0.5
    ]);
    expect(d.regressed.map((s) => s.sampleId)).toEqual(["q3", "q2"]); // −1, then −0.1
    expect(d.regressed[0]).toMatchObject({ baseline: 1, candidate: 0, change: -1 });
    expect(d.newlyErrored).toEqual([
      expect.objectContaining({ sampleId: "q6", baseline: 0.7, candidate: null, error: "boom 6" }),
    ]);
    expect(d.recovered).toEqual([
      expect.objectContaining({ sampleId: "q5", baseline: null, candidate: 0.9, error: "boom 5" }),
    ]);
    expect(d.unchanged).toBe(1); // q4
    expect(d.leftOut).toBe(2); // q7 (null in base), q8 (errored in both)
  });

  it("follows a lower-is-better metric's direction", () => {
    const a = makeResult({ name: "a", scores: { latency_ms: [100, 100] } });
    const b = makeResult({ name: "b", scores: { latency_ms: [50, 300] } });
    const d = diff(a, b, { metric: "latency_ms" });
    expect(d.improved.map((s) => s.change)).toEqual([-50]);
    expect(d.regressed.map((s) => s.change)).toEqual([200]);
  });

  it("counts a change within floating-point rounding as unchanged", () => {
    // q1, q2: 0.1 + 0.2 = 0.30000000000000004 against 0.3; q3: −0.1 − 0.2 + 0.3 = 5.6e-17
    // against 0 (within 1e-14 of the largest score, 1); q4 changes by a real 1e-9.
    const a = makeResult({
      name: "a",
      scores: { m: [0.1 + 0.2, 0.1 + 0.2, -0.1 - 0.2 + 0.3, 0.5, 1] },
    });
    const b = makeResult({ name: "b", scores: { m: [0.3, 0.3, 0, 0.5 + 1e-9, 1] } });
    const forward = diff(a, b, { metric: "m" });
    expect(forward.unchanged).toBe(4);
    expect(forward.regressed).toEqual([]);
    expect(forward.improved.map((s) => s.sampleId)).toEqual(["q4"]);
    const back = diff(b, a, { metric: "m" });
    expect(back.unchanged).toBe(4);
    expect(back.improved).toEqual([]);
    expect(back.regressed.map((s) => s.sampleId)).toEqual(["q4"]);
    // Lower is better: the same noise is no change either way.
    const la = makeResult({ name: "la", scores: { latency_ms: [0.1 + 0.2, 100] } });
    const lb = makeResult({ name: "lb", scores: { latency_ms: [0.3, 100] } });
    expect(diff(la, lb, { metric: "latency_ms" })).toMatchObject({
      improved: [],
      regressed: [],
      unchanged: 2,
    });
  });

  it("keeps real changes of small scores beside a large one", () => {
    // Likelihoods of 1e-13 that fall 1000× to 1e-16, beside a sample of 0.9: four regressions
    // (a floor of 1e-12 of the largest score, 9e-13, used to call them unchanged).
    const a = makeResult({ name: "a", scores: { m: [0.9, 1e-13, 2e-13, 3e-13, 4e-13] } });
    const b = makeResult({ name: "b", scores: { m: [0.9, 1e-16, 2e-16, 3e-16, 4e-16] } });
    const d = diff(a, b, { metric: "m" });
    expect(d.unchanged).toBe(1);
    // Largest change first.
    expect(d.regressed.map((s) => s.sampleId)).toEqual(["q5", "q4", "q3", "q2"]);
  });

  it("refuses an unknown metric and different datasets", () => {
    expect(() => diff(base, cand, { metric: "mrr" })).toThrow(ConfigurationError);
    expect(() => diff(base, cand, { metric: "mrr" })).toThrow(
      /run "base" has no metric "mrr"; it has "recall@5"/,
    );
    const other = makeResult({ name: "o", scores: { "recall@5": [1] }, ids: ["zz"] });
    expect(() => diff(base, other, { metric: "recall@5" })).toThrow(/different datasets/);
  });

  it("refuses a run that is not a result, instead of a TypeError", () => {
    expect(() => diff(base, null as never, { metric: "recall@5" })).toThrow(
      "diff: candidate: expected a BenchmarkResult, found null",
    );
    expect(() => diff(undefined as never, cand, { metric: "recall@5" })).toThrow(
      "diff: baseline: expected a BenchmarkResult, found undefined",
    );
  });
});
