// The report's per-sample diff (diff-section.ts), through Comparison.toHtml.
import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { makeResult } from "../__fixtures__/make-result.js";
import { Comparison } from "../comparison.js";
import { count, elementsOf, sigRuns } from "./__fixtures__/report.js";

describe("Comparison.toHtml: per-sample diff", () => {
  // q1 1 → 0 regressed, q2 0 → 1 improved, q3 unchanged, q4 newly errored, q5 recovered.
  const base = makeResult({ name: "base", scores: { "recall@5": [1, 0, 0.5, 1, "error"] } });
  const cand = makeResult({ name: "cand", scores: { "recall@5": [0, 1, 0.5, "error", 1] } });
  const html = Comparison.of([base, cand]).toHtml({ resamples: 100 });
  const rows = elementsOf(html, /<tr data-kind="/, "</tr>");

  it("lists every changed sample with both scores, ids, answers and errors", () => {
    expect(rows.map((r) => /data-kind="([^"]+)"/.exec(r)?.[1])).toEqual([
      "regressed",
      "improved",
      "newly-errored",
      "recovered",
    ]);
    expect(rows[0]).toContain("question 1?");
    expect(rows[0]).toContain(
      '<td class="num" data-v="1">1.0000</td><td class="num" data-v="0">0.0000</td>',
    );
    expect(rows[0]).toContain('data-v="-1">-1.0000</td>');
    expect(rows[0]).toContain("“answer 1”");
    expect(rows[2]).toContain("run: boom 4");
    expect(rows[3]).toContain("baseline: boom 5");
    expect(html).toContain("1 unchanged, 0 left out");
    expect(html).toContain('id="diff-q"');
    expect(html).toContain('<option value="newly-errored">');
    // 4 rows fit one page: the "show more" button is hidden and has nothing to count
    // (it read "Show -196 more").
    expect(html).toContain('<button type="button" id="diff-more" hidden></button>');
    expect(html).not.toMatch(/Show -?\d+ more/);
  });

  it("caps long lists per category and says how many it left out", () => {
    const n = 20_000;
    const big = [
      makeResult({ name: "a", scores: { "recall@5": new Array<number>(n).fill(0) } }),
      makeResult({ name: "b", scores: { "recall@5": new Array<number>(n).fill(1) } }),
    ];
    const out = Comparison.of(big).toHtml({ resamples: 50, permutations: 100 });
    expect(count(out, "<tr data-kind=")).toBe(500);
    expect(out).toContain("Showing at most 500 samples per category and run");
    expect(out).toContain("19,500 more changed samples are not listed");
    // 500 rows: the first 200 on show, then 200 more.
    expect(out).toContain('<button type="button" id="diff-more">Show 200 more</button>');
    const capped = Comparison.of([base, cand]).toHtml({ resamples: 50, maxDiffRows: 0 });
    expect(count(capped, "<tr data-kind=")).toBe(0);
    expect(capped).toContain("4 more changed samples are not listed");
  });

  it("diffs the chosen metric, and says when runs cannot be paired", () => {
    const out = Comparison.of(sigRuns()).toHtml({ diffMetric: "latency_ms", resamples: 50 });
    expect(out).toContain("Per-sample diff: latency_ms");
    // good vs base: no latency change; bad vs base: 40 regressions (+100 ms each).
    expect(count(out, '<tr data-kind="regressed" data-run="2"')).toBe(40);
    expect(count(out, '<tr data-kind="regressed" data-run="1"')).toBe(0);
    const x = makeResult({ name: "x", scores: { "recall@5": [1] }, fingerprint: "sha256:1" });
    const y = makeResult({ name: "y", scores: { "recall@5": [1] }, fingerprint: "sha256:2" });
    const unpaired = Comparison.of([x, y]).toHtml({ test: "none", resamples: 50 });
    expect(unpaired).toContain("Some runs could not be paired with the baseline");
    expect(unpaired).toContain("they ran on different datasets");
    expect(() => Comparison.of([x, y]).toHtml()).toThrow(ConfigurationError);
  });

  it("reports a single run without a diff", () => {
    const out = Comparison.of([base]).toHtml({ resamples: 50 });
    expect(out).toContain("One run only");
    expect(out).not.toContain('id="diff-table"');
    const chart = elementsOf(out, /<svg class="chart"/, "</svg>")[0] as string;
    expect(count(chart, 'class="mark')).toBe(1);
  });
});
