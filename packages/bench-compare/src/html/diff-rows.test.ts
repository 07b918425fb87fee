import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeResult } from "../__fixtures__/make-result.js";
import { diff } from "../diff.js";
import { runDiff } from "./diff-rows.js";

describe("runDiff", () => {
  it("classifies like diff() and keeps both sides' records", () => {
    // q1 1 → 0 regressed, q2 0 → 1 improved, q3 unchanged, q4 newly errored, q5 recovered,
    // q6 errored on both sides (left out).
    const base = makeResult({
      name: "base",
      scores: { "recall@5": [1, 0, 0.5, 1, "error", "error"] },
    });
    const cand = makeResult({
      name: "cand",
      scores: { "recall@5": [0, 1, 0.5, "error", 1, "error"] },
    });
    const d = runDiff([base, cand], 0, 1, "recall@5", true, 500);
    expect(d.counts).toEqual({
      improved: 1,
      regressed: 1,
      newlyErrored: 1,
      recovered: 1,
      unchanged: 1,
      leftOut: 1,
    });
    expect(d.rows.map((r) => [r.kind, r.base.sampleId, r.baseline, r.candidate, r.change])).toEqual(
      [
        ["regressed", "q1", 1, 0, -1],
        ["improved", "q2", 0, 1, 1],
        ["newly-errored", "q4", 1, null, null],
        ["recovered", "q5", null, 1, null],
      ],
    );
    expect(d.rows[2]?.cand.error).toBe("boom 4");
    expect(d.rows[3]?.base.error).toBe("boom 5");
    expect(d.omitted).toBe(0);
  });

  it("caps each category and counts what it left out", () => {
    const base = makeResult({ name: "base", scores: { "recall@5": [0, 0, 0, 0, 1, 1] } });
    const cand = makeResult({ name: "cand", scores: { "recall@5": [1, 0.5, 1, 0.25, 0, 0] } });
    const d = runDiff([base, cand], 0, 1, "recall@5", true, 2);
    // Improved by size: q1 (+1), q3 (+1), q2 (+0.5), q4 (+0.25): the first two stay.
    expect(d.rows.map((r) => r.base.sampleId)).toEqual(["q5", "q6", "q1", "q3"]);
    expect(d.omitted).toBe(2);
    expect(d.counts.improved).toBe(4);
  });

  it("explains a run that lacks the metric instead of throwing", () => {
    const base = makeResult({ name: "base", scores: { "recall@5": [1] } });
    const other = makeResult({ name: "other", scores: { mrr: [1] } });
    const d = runDiff([base, other], 0, 1, "recall@5", true, 10);
    expect(d.note).toBe('run "other" has no metric "recall@5"');
    expect(d.rows).toEqual([]);
  });

  it("agrees with diff() on every category, its order and its counts", () => {
    const cell = fc.oneof(
      fc.constantFrom(0, 0.25, 0.5, 1),
      fc.constant(null),
      fc.constant("error" as const),
    );
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 25 })
          .chain((n) =>
            fc.tuple(
              fc.array(cell, { minLength: n, maxLength: n }),
              fc.array(cell, { minLength: n, maxLength: n }),
              fc.boolean(),
            ),
          ),
        ([a, b, higher]) => {
          const hib = { m: higher };
          const base = makeResult({ name: "a", scores: { m: a }, higherIsBetter: hib });
          const cand = makeResult({ name: "b", scores: { m: b }, higherIsBetter: hib });
          const mine = runDiff([base, cand], 0, 1, "m", higher, 1000);
          const ref = diff(base, cand, { metric: "m" });
          const ids = (kind: string) =>
            mine.rows.filter((r) => r.kind === kind).map((r) => r.base.sampleId);
          expect(ids("improved")).toEqual(ref.improved.map((c) => c.sampleId));
          expect(ids("regressed")).toEqual(ref.regressed.map((c) => c.sampleId));
          expect(ids("newly-errored")).toEqual(ref.newlyErrored.map((c) => c.sampleId));
          expect(ids("recovered")).toEqual(ref.recovered.map((c) => c.sampleId));
          expect(mine.counts.unchanged).toBe(ref.unchanged);
          expect(mine.counts.leftOut).toBe(ref.leftOut);
        },
      ),
    );
  });
});
