import { createHash } from "node:crypto";
import { BenchmarkResult, ConfigurationError, type SampleResult } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { makeResult } from "./__fixtures__/make-result.js";
import { Comparison } from "./comparison.js";
import { realisticRuns, XSS_QUESTION, XSS_RUN } from "./html/__fixtures__/runs.js";
import { isLatencyMetric } from "./html/model.js";

/** The markup of one element found by an opening-tag pattern, up to its matching close tag. */
function elementsOf(html: string, open: RegExp, close: string): string[] {
  const out: string[] = [];
  const re = new RegExp(open.source, "g");
  for (let m = re.exec(html); m !== null; m = re.exec(html)) {
    const end = html.indexOf(close, m.index);
    out.push(html.slice(m.index, end + close.length));
  }
  return out;
}

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** base / good / bad: recall means 0.5, 0.875, 0.125; latency means 100, 100, 200 (by hand). */
function sigRuns() {
  const fill = (n: number, v: number) => new Array<number>(n).fill(v);
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

/** Two runs whose every piece of user text is hostile markup. */
function hostileRuns(): BenchmarkResult[] {
  const sample = (over: Partial<SampleResult>): SampleResult => ({
    sampleId: "q0",
    question: XSS_QUESTION,
    status: "successful",
    scores: { "m<i>@5": 1 },
    answer: "fine",
    retrievedIds: ["doc-1"],
    retrievedUris: [null],
    latencyMs: 5,
    error: null,
    ...over,
  });
  const base = new BenchmarkResult({
    name: "base & <b>bold</b>",
    createdAt: new Date("2025-01-01T00:00:00Z"),
    durationS: 1,
    higherIsBetter: { "m<i>@5": true },
    samples: [
      sample({}),
      sample({ sampleId: 'q1"><b>id</b>', question: "second?" }),
      sample({ sampleId: "q2", question: "third?" }),
    ],
  });
  const cand = new BenchmarkResult({
    name: XSS_RUN,
    createdAt: new Date("2025-01-02T00:00:00Z"),
    durationS: 1,
    higherIsBetter: { "m<i>@5": true },
    samples: [
      sample({
        scores: { "m<i>@5": 0 },
        answer: `'"><iframe srcdoc=x></iframe>`,
        retrievedIds: ["<script>alert(2)</script>", "ok-id"],
        retrievedUris: [null, null],
      }),
      sample({
        sampleId: 'q1"><b>id</b>',
        question: "second?",
        status: "errored",
        scores: { "m<i>@5": null },
        answer: null,
        retrievedIds: [],
        retrievedUris: [],
        latencyMs: null,
        error: "Error: <svg onload=alert(3)>",
      }),
      sample({ sampleId: "q2", question: "third?" }),
    ],
  });
  return [base, cand];
}

describe("Comparison.toHtml: safety", () => {
  const html = Comparison.of(hostileRuns()).toHtml({ title: "<title>report</title>" });

  it("escapes run names, questions, ids, answers, error messages, metric names and the title", () => {
    for (const raw of [
      "<img",
      "<iframe",
      "<svg onload",
      "<b>",
      "<i>@5",
      "<script>alert",
      "window.__xss=1</script>",
      "<title>report",
    ]) {
      expect(html, raw).not.toContain(raw);
    }
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).toContain("&lt;/script&gt;&lt;script&gt;window.__xss=1&lt;/script&gt;");
    expect(html).toContain("base &amp; &lt;b&gt;bold&lt;/b&gt;");
    expect(html).toContain("q1&quot;&gt;&lt;b&gt;id&lt;/b&gt;");
    expect(html).toContain("&lt;script&gt;alert(2)&lt;/script&gt;");
    expect(html).toContain("&#39;&quot;&gt;&lt;iframe srcdoc=x&gt;&lt;/iframe&gt;");
    expect(html).toContain("Error: &lt;svg onload=alert(3)&gt;");
    expect(html).toContain("m&lt;i&gt;@5");
    expect(html).toContain("<title>&lt;title&gt;report&lt;/title&gt;</title>");
  });

  it("has exactly one script element, the report's own, allowed by its hash alone", () => {
    expect(count(html, "<script")).toBe(1);
    expect(count(html, "</script>")).toBe(1);
    expect(count(html, "<style")).toBe(1);
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] as string;
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] as string;
    const hash = (s: string) => createHash("sha256").update(s, "utf8").digest("base64");
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
    expect(csp).toBe(
      `default-src 'none'; style-src 'sha256-${hash(style)}'; script-src 'sha256-${hash(script)}'; img-src 'none'; base-uri 'none'; form-action 'none'`,
    );
    // No inline event handler or style attribute (the CSP would block them anyway).
    // Escaped text never holds a raw "<", so these patterns only see real tags.
    expect(html).not.toMatch(/<[a-z][^>]*\son[a-z]+=/i);
    expect(html).not.toMatch(/<[a-z][^>]*\sstyle=/i);
  });
});

describe("Comparison.toHtml: content", () => {
  const runs = realisticRuns({ samples: 120 });
  const html = Comparison.of(runs).toHtml({ diffMetric: "ndcg@5", resamples: 500 });

  it("makes no network reference of any kind", () => {
    expect(html).not.toMatch(/https?:/);
    expect(html).not.toContain("//");
    expect(html).not.toMatch(/\s(src|href|srcset|poster|action)=/i);
    expect(html).not.toMatch(/url\(|@import|@font-face/);
  });

  it("draws one chart per metric with one mark per run", () => {
    const charts = elementsOf(html, /<svg class="chart"/, "</svg>");
    expect(charts.map((c) => /data-metric="([^"]*)"/.exec(c)?.[1])).toEqual([
      "recall@5",
      "ndcg@5",
      "latency_ms",
    ]);
    for (const chart of charts) {
      const marks = [...chart.matchAll(/<g class="mark[^"]*" data-run="(\d+)"/g)].map((m) => m[1]);
      expect(marks).toEqual(["0", "1", "2"]);
    }
  });

  it("adds a distribution view for latency metrics only", () => {
    const dists = elementsOf(html, /<svg class="chart dist"/, "</svg>");
    expect(dists).toHaveLength(1);
    expect(dists[0]).toContain('data-metric="latency_ms"');
    expect(dists[0]).toContain('data-scale="log"'); // a 1,500 ms tail over ~20 ms medians
    const latency = elementsOf(html, /<section id="latency">/, "</section>")[0] as string;
    expect(count(latency, '<tr data-run="')).toBe(3);
  });

  it("lists the runs with their dates, sample and status counts", () => {
    const section = elementsOf(html, /<section id="runs">/, "</section>")[0] as string;
    for (let i = 0; i < runs.length; i++) {
      const r = runs[i] as BenchmarkResult;
      const row = elementsOf(section, new RegExp(`<tr data-run="${i}">`), "</tr>")[0] as string;
      expect(row).toContain(`2025-01-${10 + i} 09:30:00`);
      const cells = [...row.matchAll(/<td class="num">(?:<span class="pill \w+">)?([\d,]+)/g)].map(
        (m) => Number((m[1] as string).replace(/,/g, "")),
      );
      expect(row).toContain(`${(12.5 + i).toFixed(1)} s`);
      expect(cells.slice(-4)).toEqual([
        120,
        r.status.successful,
        r.status.incomplete,
        r.status.errored,
      ]);
      expect(r.status.errored).toBeGreaterThan(0);
    }
  });

  it("is deterministic: the same results and options give the same bytes", () => {
    const again = Comparison.of(realisticRuns({ samples: 120 })).toHtml({
      diffMetric: "ndcg@5",
      resamples: 500,
    });
    expect(again).toBe(html);
  });
});

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

describe("Comparison.toHtml: options", () => {
  const c = Comparison.of(sigRuns());

  it("refuses bad options with a ConfigurationError naming them", () => {
    expect(() => c.toHtml({ diffMetric: "nope" })).toThrow(
      /toHtml: diffMetric: unknown metric "nope"; the runs have "recall@5", "latency_ms"/,
    );
    expect(() => c.toHtml({ maxDiffRows: -1 })).toThrow(/maxDiffRows: expected an integer ≥ 0/);
    expect(() => c.toHtml({ resamples: 0 })).toThrow(/resamples: expected an integer ≥ 1/);
    expect(() => c.toHtml({ latencyMetrics: ["nope"] })).toThrow(/latencyMetrics: unknown metric/);
    expect(() => c.toHtml({ title: 5 as never })).toThrow(/title: expected a string/);
    expect(() => c.toHtml({ baseline: "nobody" })).toThrow(/no run named "nobody"/);
    expect(() => c.toHtml(null as never)).toThrow(ConfigurationError);
  });

  it("draws the latency metrics it is given", () => {
    const out = c.toHtml({ latencyMetrics: ["recall@5"], resamples: 50 });
    const dists = elementsOf(out, /<svg class="chart dist"/, "</svg>");
    expect(dists.map((d) => /data-metric="([^"]*)"/.exec(d)?.[1])).toEqual(["recall@5"]);
    const none = c.toHtml({ latencyMetrics: [], resamples: 50 });
    expect(none).not.toContain('id="latency"');
  });

  it("defaults the title to the run names", () => {
    expect(c.toHtml({ resamples: 50 })).toContain(
      "<title>Benchmark comparison: base vs good vs bad</title>",
    );
  });
});

describe("isLatencyMetric", () => {
  it("matches names containing latency or ending in _ms", () => {
    expect(isLatencyMetric("latency_ms")).toBe(true);
    expect(isLatencyMetric("retrieval_latency")).toBe(true);
    expect(isLatencyMetric("TTFT_MS")).toBe(true);
    expect(isLatencyMetric("recall@5")).toBe(false);
    expect(isLatencyMetric("total_tokens")).toBe(false);
  });
});
