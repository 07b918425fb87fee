import { BenchmarkResult, type SampleResult } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { Comparison } from "../comparison.js";
import { sampleDetails } from "./sample-details.js";

const sample = (extra: Partial<SampleResult>): SampleResult => ({
  question: "q?",
  status: "successful",
  scores: { m: 1 },
  answer: "a",
  retrievedIds: [],
  retrievedUris: [],
  latencyMs: 1,
  error: null,
  ...extra,
});

describe("the sample's details in the per-sample diff", () => {
  it("lists gold answers, relevant ids with grades other than 1, and metadata, escaped", () => {
    const html = sampleDetails(
      sample({
        expectedAnswers: ["Rollo", "", "<b>x</b>"],
        relevantIds: ["d1", "d2"],
        relevance: { d1: 1, d2: 3 },
        metadata: { title: "Normans", is_impossible: false, extra: { a: [1] } },
      }),
    );
    expect(html).toBe(
      '<dl class="gold"><dt>gold</dt><dd><ul><li>“Rollo”</li><li class="more">(no answer)</li><li>“&lt;b&gt;x&lt;/b&gt;”</li></ul></dd>' +
        '<dt>relevant</dt><dd><ul class="ids-whole"><li>d1</li><li>d2 <span class="more">(3)</span></li></ul></dd>' +
        '<dt>metadata</dt><dd><ul><li><span class="mk">title</span> Normans</li><li><span class="mk">is_impossible</span> false</li><li><span class="mk">extra</span> {&quot;a&quot;:[1]}</li></ul></dd></dl>',
    );
  });

  it("shows nothing for a sample without them, and counts past ten", () => {
    expect(sampleDetails(sample({}))).toBe("");
    const many = sampleDetails(
      sample({ relevantIds: Array.from({ length: 12 }, (_, i) => `d${i}`) }),
    );
    expect(many.match(/<li>d\d+<\/li>/g)).toHaveLength(10);
    expect(many).toContain('<li class="more">+2 more</li>');
  });

  it("appears in the report's diff rows, with long ids whole", () => {
    const id = "Computational_complexity_theory#paragraph_12_a_long_identifier";
    const result = (name: string, score: number) =>
      new BenchmarkResult({
        name,
        createdAt: new Date("2025-01-01T00:00:00Z"),
        durationS: 1,
        higherIsBetter: { m: true },
        samples: [
          sample({
            sampleId: "s1",
            scores: { m: score },
            retrievedIds: [id],
            expectedAnswers: ["Rollo"],
            metadata: { is_impossible: false },
          }),
        ],
      });
    const html = Comparison.of([result("base", 1), result("cand", 0)]).toHtml({ test: "none" });
    const row = html.slice(html.indexOf('<tr data-kind="regressed"'));
    expect(row).toContain("<dt>gold</dt><dd><ul><li>“Rollo”</li>");
    expect(row).toContain('<span class="mk">is_impossible</span> false');
    // The retrieved id whole, in the list and its tooltip: no "…" cut.
    expect(row).toContain(`<li title="${id}">${id}</li>`);
    // …and the style wraps it rather than cutting it to "Computational_com…".
    expect(html).toMatch(/ol\.ids li \{[^}]*overflow-wrap: anywhere/);
    expect(html).not.toMatch(/ol\.ids li \{[^}]*text-overflow: ellipsis/);
  });
});
