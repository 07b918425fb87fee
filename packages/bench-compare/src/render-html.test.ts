import { createHash } from "node:crypto";
import { BenchmarkResult, ConfigurationError, type SampleResult } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { Comparison } from "./comparison.js";
import { count, elementsOf, sigRuns } from "./html/__fixtures__/report.js";
import { realisticRuns, XSS_QUESTION, XSS_RUN } from "./html/__fixtures__/runs.js";
import { isLatencyMetric } from "./html/model.js";

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

describe("Comparison.toHtml: options", () => {
  const c = Comparison.of(sigRuns());

  it("refuses bad options with a ConfigurationError naming them", () => {
    expect(() => c.toHtml({ diffMetric: "nope" })).toThrow(
      /toHtml: diffMetric: expected a metric of the runs \("recall@5", "latency_ms"\), found the string "nope"/,
    );
    expect(() => c.toHtml({ maxDiffRows: -1 })).toThrow(/maxDiffRows: expected an integer ≥ 0/);
    expect(() => c.toHtml({ resamples: 0 })).toThrow(/resamples: expected an integer ≥ 1/);
    expect(() => c.toHtml({ latencyMetrics: ["nope"] })).toThrow(
      /latencyMetrics: expected metrics of the runs .*, found the string "nope"/,
    );
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
