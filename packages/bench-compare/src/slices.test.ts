import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { makeResult } from "./__fixtures__/make-result.js";
import { Comparison } from "./comparison.js";

// Slicing by a metadata field. Six samples: topic "b", "a", "b", (none), "a", "b"; level 2, 10,
// 2, 1, 10, 2 (numbers sort as numbers: 1, 2, 10, not "10" before "2"). Run x scores 1 on the
// "a" and "b" samples at even positions, run y the reverse, so each slice's means are known by
// hand.
const metadata = [
  { topic: "b", level: 2, flag: true },
  { topic: "a", level: 10, flag: false },
  { topic: "b", level: 2, flag: true },
  undefined,
  { topic: "a", level: 10, flag: false },
  { topic: "b", level: 1, flag: true, nested: { deep: "x" } },
];
const x = makeResult({ name: "x", scores: { m: [1, 0, 1, 0, 1, 0] }, metadata });
const y = makeResult({ name: "y", scores: { m: [0, 1, 0, 1, 0, "error"] }, metadata });

describe("Comparison.slices", () => {
  it("gives one slice per value in a stable order, then the samples without the field", () => {
    const slices = Comparison.of([x, y]).slices("metadata.topic");
    expect(slices.map((s) => [s.label, s.samples, s.missing])).toEqual([
      ["metadata.topic = a", 2, false],
      ["metadata.topic = b", 3, false],
      ["without metadata.topic", 1, true],
    ]);
    expect(slices.map((s) => s.value)).toEqual(["a", "b", undefined]);
    // Topic a: samples 2 and 5. x scores 0 and 1 (mean 0.5); y 1 and 0 (0.5).
    const a = (slices[0] as (typeof slices)[number]).comparison;
    expect(a.results.map((r) => r.summary.m?.mean)).toEqual([0.5, 0.5]);
    // Topic b: samples 1, 3, 6. x: 1, 1, 0; y: 0, 0, errored. Common samples (1 and 3): x 1, y 0.
    const b = (slices[1] as (typeof slices)[number]).comparison;
    expect(b.results.map((r) => r.status)).toEqual([
      { successful: 3, errored: 0, incomplete: 0 },
      { successful: 2, errored: 1, incomplete: 0 },
    ]);
    expect(b.table().rows.map((r) => r.cells[0]?.value)).toEqual([1, 0]);
    expect(b.table({ samples: "all" }).rows.map((r) => r.cells[0]?.value)).toEqual([2 / 3, 0]);
    // The samples without a topic: sample 4 only.
    const none = (slices[2] as (typeof slices)[number]).comparison;
    expect(none.results.map((r) => r.samples.map((s) => s.sampleId))).toEqual([["q4"], ["q4"]]);
  });

  it("orders numbers as numbers and booleans false first, and reads dotted paths", () => {
    const c = Comparison.of([x, y]);
    expect(c.slices("metadata.level").map((s) => s.value)).toEqual([1, 2, 10, undefined]);
    expect(c.slices("metadata.flag").map((s) => s.value)).toEqual([false, true, undefined]);
    const deep = c.slices("metadata.nested.deep");
    expect(deep.map((s) => [s.value, s.samples])).toEqual([
      ["x", 1],
      [undefined, 5],
    ]);
  });

  it("refuses a field that is not metadata.<key>, and one no sample has, listing the fields", () => {
    const c = Comparison.of([x, y]);
    for (const bad of ["topic", "metadata.", "", 3]) {
      try {
        c.slices(bad as string);
        expect.unreachable();
      } catch (error) {
        expect(ConfigurationError.isInstance(error)).toBe(true);
        expect((error as ConfigurationError).kind).toBe("invalid-option");
        expect((error as ConfigurationError).option).toBe("by");
      }
    }
    // table() makes one table: given by, it says where slices are rather than ignore it.
    expect(() => c.table({ by: "metadata.topic" } as never)).toThrow(ConfigurationError);
    try {
      c.slices("metadata.topik");
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigurationError).option).toBe("by");
      expect((error as Error).message).toContain('"metadata.topic"');
    }
  });
});

describe("rendering with by", () => {
  const c = Comparison.of([x, y]);

  it("markdown: the group sizes, then a heading and a table per slice", () => {
    const md = c.toMarkdown({ by: "metadata.topic", test: "none" });
    expect(md.split("\n")[0]).toBe(
      'Sliced by metadata.topic: 3 group(s) of the 6 samples ("a" 2, "b" 3, without it 1). Each table covers its group\'s samples only, with its own tests.',
    );
    expect(md).toContain("### metadata.topic = a (2 samples)\n\n| run | m |");
    expect(md).toContain("| x | 0.5000 |\n| y | 0.5000 |");
    expect(md).toContain("### without metadata.topic (1 samples)");
    // Each slice's table is that slice's comparison's own.
    const b = c.slices("metadata.topic")[1]?.comparison as Comparison;
    expect(md).toContain(b.toMarkdown({ test: "none" }).trimEnd());
  });

  it("CSV: one long table with the value, missing and size first", () => {
    const lines = c.toCsv({ by: "metadata.topic" }).trimEnd().split("\r\n");
    expect(lines).toEqual([
      "metadata.topic,missing,samples,run,errored,incomplete,m",
      "a,false,2,x,0,0,0.5",
      "a,false,2,y,0,0,0.5",
      "b,false,3,x,0,0,1",
      "b,false,3,y,1,0,0",
      ",true,1,x,0,0,0",
      ",true,1,y,0,0,1",
    ]);
  });

  it("JSON: a document of slices, each with the comparison JSON of its table", () => {
    const json = JSON.parse(c.toJson({ by: "metadata.flag" }));
    expect(json.format).toBe("fastrag-bench-comparison-slices/1");
    expect(json.by).toBe("metadata.flag");
    expect(
      json.slices.map((s: { value?: unknown; samples: number }) => [s.value, s.samples]),
    ).toEqual([
      [false, 2],
      [true, 3],
      [undefined, 1],
    ]);
    expect(json.slices[0].table.format).toBe("fastrag-bench-comparison/1");
    expect(json.slices[0].table.runs.map((r: { values: { m: number } }) => r.values.m)).toEqual([
      0.5, 0.5,
    ]);
  });

  it("HTML: a section with a table per slice, every text escaped", () => {
    const evil = makeResult({
      name: "<b>x</b>",
      scores: { m: [1, 0] },
      metadata: [{ t: "<img src=x>" }, { t: "plain" }],
    });
    const html = Comparison.of([evil]).toHtml({ by: "metadata.t" });
    expect(html).toContain('<section id="slices">');
    expect(html).toContain("metadata.t = &lt;img src=x&gt;");
    expect(html).not.toContain("<img src=x>");
    expect(html).not.toContain("<b>x</b>");
    expect(html.match(/class="slice-table"/g)).toHaveLength(2);
    // Without by, no slice section.
    expect(Comparison.of([evil]).toHtml()).not.toContain('id="slices"');
  });
});
