import { describe, expect, it } from "vitest";
import { makeResult } from "../__fixtures__/make-result.js";
import { Comparison } from "../comparison.js";
import { elementsOf, sigRuns } from "./__fixtures__/report.js";

describe("Comparison.toHtml: table", () => {
  const html = Comparison.of(sigRuns()).toHtml({ resamples: 200 });
  const table = elementsOf(html, /<table id="results-table">/, "</table>")[0] as string;
  const cell = (metric: string, run: number) =>
    elementsOf(
      table,
      new RegExp(`<td class="num[^"]*" data-metric="${metric}" data-run="${run}"`),
      "</td>",
    )[0] as string;

  it("shows means with their CI, and highlights the best run in each metric's direction", () => {
    // Constant scores: every bootstrap mean equals the mean.
    expect(cell("recall@5", 0)).toContain("0.5000<sup");
    expect(cell("recall@5", 0)).toContain('<span class="ci">0.5000 – 0.5000</span>');
    expect(cell("recall@5", 1)).toContain("0.8750");
    expect(cell("recall@5", 1)).toMatch(/^<td class="num best"/);
    expect(cell("recall@5", 0)).not.toMatch(/^<td class="num best"/);
    // Lower latency is better, and base and good tie at 100.
    expect(cell("latency_ms", 0)).toMatch(/^<td class="num best"/);
    expect(cell("latency_ms", 1)).toMatch(/^<td class="num best"/);
    expect(cell("latency_ms", 2)).not.toMatch(/^<td class="num best"/);
    expect(cell("latency_ms", 2)).toContain('<span class="ci">200.0 – 200.0</span>');
  });

  it("stars every run whose value equals the best up to rounding", () => {
    // Means of 0.1 + 0.2 (0.30000000000000004) and 0.3: one value, two bests; 0.2 is not.
    const runs = [
      makeResult({ name: "sum", scores: { m: new Array<number>(5).fill(0.1 + 0.2) } }),
      makeResult({ name: "exact", scores: { m: new Array<number>(5).fill(0.3) } }),
      makeResult({ name: "low", scores: { m: new Array<number>(5).fill(0.2) } }),
    ];
    const t = elementsOf(
      Comparison.of(runs).toHtml({ resamples: 100 }),
      /<table id="results-table">/,
      "</table>",
    )[0] as string;
    const starred = (run: number) =>
      new RegExp(`<td class="num best" data-metric="m" data-run="${run}"`).test(t);
    expect([starred(0), starred(1), starred(2)]).toEqual([true, true, false]);
  });

  const sups = (c: string) =>
    [...c.matchAll(/<sup class="sig"[^>]*>(\w+)<\/sup>/g)].map((m) => m[1]);

  it("marks every significant win over any run, as table() does", () => {
    expect(sups(cell("recall@5", 1))).toEqual(["a", "c"]); // good beats base and bad
    expect(sups(cell("recall@5", 0))).toEqual(["c"]); // base beats bad
    expect(sups(cell("recall@5", 2))).toEqual([]);
    expect(sups(cell("latency_ms", 0))).toEqual(["c"]); // 100 ms against bad's 200
    expect(sups(cell("latency_ms", 1))).toEqual(["c"]);
    expect(html).toContain("randomization test, α = 0.05");
    // Each mark's tooltip gives the p of its own test: good against bad, not against the base.
    expect(cell("recall@5", 1)).toMatch(
      /<sup class="sig" title="significantly better than run c \(p = &lt; 0\.0001\)">c<\/sup>/,
    );
    // The cell's own tooltip stays the test against the baseline.
    expect(cell("recall@5", 1)).toMatch(/ title="vs baseline a: Δ \+0\.3750, p = /);
    const legend = elementsOf(html, /<p class="legend">/, "</p>")[0] as string;
    expect(legend).toContain(
      "Every pair of runs is tested on every metric (3 tests per metric), so a cell can name any run",
    );
    expect(legend).toContain('against the baseline <span class="letter">a</span> base.');
    expect(legend).toContain("No multiple-comparison correction.");
  });

  it("names a run beaten by a non-baseline run, with that test's p", () => {
    // close beats worse (30 differences of one sign, p ≈ 1e-4) but not base (p = 1 exactly).
    const fill = (n: number, v: number) => new Array<number>(n).fill(v);
    const out = Comparison.of([
      makeResult({ name: "base", scores: { "recall@5": fill(40, 0.5) } }),
      makeResult({ name: "worse", scores: { "recall@5": [...fill(30, 0), ...fill(10, 0.5)] } }),
      makeResult({ name: "close", scores: { "recall@5": [1, ...fill(39, 0.5)] } }),
    ]).toHtml({ resamples: 100 });
    const td = elementsOf(out, /<td class="num[^"]*" data-metric="recall@5" data-run="2"/, "</td>");
    expect(sups(td[0] as string)).toEqual(["b"]);
    expect(td[0]).toContain(
      '<sup class="sig" title="significantly better than run b (p = &lt; 0.0001)">b</sup>',
    );
    expect(td[0]).toContain('title="vs baseline a: Δ +0.0125, p = 1.0000, 40 pairs"');
  });

  it("falls back to marks against the baseline past maxPairwiseRuns, and says so", () => {
    const out = Comparison.of(sigRuns()).toHtml({ resamples: 100, maxPairwiseRuns: 2 });
    const t = elementsOf(out, /<table id="results-table">/, "</table>")[0] as string;
    const at = (metric: string, run: number) =>
      elementsOf(
        t,
        new RegExp(`<td class="num[^"]*" data-metric="${metric}" data-run="${run}"`),
        "</td>",
      )[0] as string;
    expect(sups(at("recall@5", 1))).toEqual(["a"]);
    expect(sups(at("recall@5", 0))).toEqual(["c"]);
    expect(sups(at("latency_ms", 1))).toEqual([]);
    const legend = elementsOf(out, /<p class="legend">/, "</p>")[0] as string;
    expect(legend).toContain(
      'With 3 runs, more than the all-pairs limit of 2, every run is tested against the baseline <span class="letter">a</span> base only',
    );
  });

  it("renders metrics named __proto__ and constructor", () => {
    const x = makeResult({
      name: "x",
      scores: { ["__proto__"]: [1, 0, 1, 1], constructor: [0.5, 0.5, 0.5, 0.5] },
    });
    const y = makeResult({ name: "y", scores: { ["__proto__"]: [0, 0, 1, 1] } });
    const out = Comparison.of([x, y]).toHtml({ resamples: 100, latencyMetrics: ["constructor"] });
    const t = elementsOf(out, /<table id="results-table">/, "</table>")[0] as string;
    expect(t).toContain('<td class="num best" data-metric="__proto__" data-run="0"');
    expect(t).toContain('<td class="num missing" data-metric="constructor">—</td>');
    // The latency view of "constructor": y lacks it, so it has no scores there.
    const latency = elementsOf(out, /<section id="latency">/, "</section>")[0] as string;
    expect(latency).toContain('<g class="mark missing" data-run="1">');
  });

  it("tabulates another statistic without CIs or marks", () => {
    const p95 = Comparison.of(sigRuns()).toHtml({ stat: "p95", resamples: 100 });
    const t = elementsOf(p95, /<table id="results-table">/, "</table>")[0] as string;
    expect(t).toContain("latency_ms p95");
    expect(t).not.toContain('class="ci"');
    expect(t).not.toContain("<sup");
  });

  it("uses the baseline it is given", () => {
    const out = Comparison.of(sigRuns()).toHtml({ baseline: "good", resamples: 100 });
    expect(out).toContain('<span class="letter">b</span> good');
    const rows = elementsOf(out, /<tr data-run="1">/, "</tr>");
    expect(rows[1]).toContain('<span class="tag">baseline</span>');
  });
});
