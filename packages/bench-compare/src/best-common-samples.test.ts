import { describe, expect, it } from "vitest";
import { makeResult } from "./__fixtures__/make-result.js";
import { Comparison } from "./comparison.js";

// Issue 34, item 1: a run that errored on its hard samples must not be crowned for its mean over
// the easy ones. Clean: recall 0.2, 0.4, 0.9, 0.9 (mean 0.6). Flaky: errors on the first two, 0.8
// on the others (own mean 0.8). On the two samples both scored: clean 0.9, flaky 0.8.
const clean = makeResult({ name: "clean", scores: { "recall@5": [0.2, 0.4, 0.9, 0.9] } });
const flaky = makeResult({ name: "flaky", scores: { "recall@5": ["error", "error", 0.8, 0.8] } });

describe("comparing on the samples every run scored", () => {
  it("crowns the run that is better on the common samples, not the one that failed the hard ones", () => {
    const c = Comparison.of([flaky, clean]);
    expect(c.best("recall@5").name).toBe("clean");
    // The all-samples means stay available: there the flaky run's 0.8 beats 0.6.
    expect(c.best("recall@5", "mean", { samples: "all" }).name).toBe("flaky");
  });

  it("tabulates common-sample means, keeps each run's own mean, and counts errors in a column", () => {
    const c = Comparison.of([flaky, clean]);
    const table = c.table();
    expect(table.samples).toBe("common");
    expect(table.columns[0]).toMatchObject({ commonSamples: 2, narrowed: true });
    expect(table.rows[0]?.cells[0]).toMatchObject({ value: 0.8, allValue: 0.8, dropped: 0 });
    expect(table.rows[1]?.cells[0]).toMatchObject({ value: 0.9, allValue: 0.6, dropped: 2 });
    expect(table.rows[0]?.status).toEqual({ successful: 2, errored: 2, incomplete: 0 });
    const md = c.toMarkdown();
    expect(md).toContain("| run | errored | incomplete | recall@5 |");
    expect(md).toContain("| flaky | 2 | 0 | 0.8000 |");
    expect(md).toContain("| clean | 0 | 0 | 0.9000 |");
    expect(md).toContain("compared on the samples every run scored (recall@5 on 2)");
    const all = c.toMarkdown({ samples: "all" });
    expect(all).toContain("| clean | 0 | 0 | 0.6000 |");
    expect(all).not.toContain("compared on the samples every run scored");
    expect(c.toCsv().split("\r\n")[1]).toBe("flaky,2,0,0.8");
  });

  it("keeps the stored summary when nothing is left out, and leaves clean tables unchanged", () => {
    const a = makeResult({ name: "a", scores: { m: [0.1, 0.2, 0.3] } });
    const b = makeResult({ name: "b", scores: { m: [0.3, 0.3, 0.3] } });
    const md = Comparison.of([a, b]).toMarkdown();
    expect(md).toBe("| run | m |\n| --- | ---: |\n| a | 0.2000 |\n| b | 0.3000 |\n");
  });

  it("lets a run without any score for a metric (a Retriever's answer metric) constrain nothing", () => {
    const engine = makeResult({
      name: "engine",
      scores: { f1: [0.5, 1, 0], "recall@5": [1, 1, 0] },
    });
    const retriever = makeResult({
      name: "retriever",
      scores: { f1: [null, null, null], "recall@5": [0, 1, 1] },
    });
    const table = Comparison.of([engine, retriever]).table();
    expect(table.rows[0]?.cells[0]?.value).toBe(0.5);
    expect(table.rows[1]?.cells[0]?.value).toBeNull();
    expect(table.columns[0]?.narrowed).toBe(false);
  });

  it("falls back to all samples, saying why, for runs over different datasets", () => {
    const a = makeResult({ name: "a", scores: { m: [0.1, 0.2] }, fingerprint: "aaaa" });
    const b = makeResult({ name: "b", scores: { m: [0.9] }, fingerprint: "bbbb" });
    const table = Comparison.of([a, b]).table();
    expect(table.samples).toBe("all");
    expect(table.basisNote).toMatch(/different datasets/);
    expect(Comparison.of([a, b]).toMarkdown()).toMatch(/cannot be compared on common samples/);
  });

  it("refuses an unknown sample basis", () => {
    expect(() => Comparison.of([clean]).table({ samples: "some" as never })).toThrow(
      /samples: expected "common".*found the string "some"/,
    );
  });

  it("never stars a run with errors in the HTML report without a mark", () => {
    const weak = makeResult({ name: "weak", scores: { "recall@5": [0.1, 0.1, 0.5, 0.5] } });
    const html = Comparison.of([weak, flaky]).toHtml({ test: "none" });
    expect(html).toContain('class="best-mark best-errored"');
    expect(html).toContain(
      "best on the 2 samples every run scored; this run errored on 2 of 4 samples",
    );
    const fair = Comparison.of([flaky, clean]).toHtml({ test: "none" });
    expect(fair).not.toContain("best-errored");
    expect(fair).toMatch(/data-run="1"[^>]*><span class="best-mark" title="best">★/);
  });
});
