import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeResult } from "./__fixtures__/make-result.js";
import { Comparison } from "./comparison.js";
import { escapeCell, renderMarkdown } from "./render-markdown.js";
import type { ComparisonTable } from "./table.js";

/** A hand-built table: one run named `name`, one metric named `metric` (0.5). */
function table(name: string, metric = "recall@5"): ComparisonTable {
  return {
    stat: "mean",
    columns: [{ metric, header: metric, higherIsBetter: true, decimals: 4 }],
    rows: [
      {
        index: 0,
        label: "a",
        name,
        isBaseline: false,
        cells: [{ value: 0.5, beats: [], wins: [] }],
      },
    ],
    significance: null,
  };
}

describe("escapeCell", () => {
  it.each([
    ["\u001b[2J\u001b[31mpwned", "\\u001b[2J\\u001b[31mpwned"],
    ["bell\u0007", "bell\\u0007"],
    ["tab\there", "tab\\u0009here"],
    ["nul\u0000", "nul\\u0000"],
    ["del\u007f", "del\\u007f"],
    ["csi\u009b31m", "csi\\u009b31m"],
    ["rlo\u202eevil", "rlo\\u202eevil"],
    ["isolate\u2066x\u2069", "isolate\\u2066x\\u2069"],
  ])("shows the control character in %j as its escape", (input, expected) => {
    expect(escapeCell(input)).toBe(expected);
  });

  it.each([
    ["<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"],
    ["<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"],
    ["R&D", "R&amp;D"],
    ["&lt;", "&amp;lt;"],
  ])("escapes the inline HTML in %j", (input, expected) => {
    expect(escapeCell(input)).toBe(expected);
  });

  it("keeps pipes, backslashes and line breaks from breaking the cell", () => {
    expect(escapeCell("a|b")).toBe("a\\|b");
    expect(escapeCell("C:\\runs")).toBe("C:\\\\runs");
    expect(escapeCell("one\ntwo\r\nthree\rfour")).toBe("one two three four");
  });

  it.each([
    ["**bold** and *it*", "\\*\\*bold\\*\\* and \\*it\\*"],
    ["_under_ x", "\\_under\\_ x"],
    ["`code`", "\\`code\\`"],
    ["~~gone~~", "\\~\\~gone\\~\\~"],
    ["[docs](https://evil.example)", "[docs]\\(https://evil.example)"],
    ["![x](https://tracker.example/p.png)", "![x]\\(https://tracker.example/p.png)"],
    ["[a][ref]", "[a]\\[ref]"],
  ])("escapes the inline markdown in %j, so it shows as text", (input, expected) => {
    expect(escapeCell(input)).toBe(expected);
  });

  it("keeps underscores between letters or digits, and brackets without a link", () => {
    for (const name of ["latency_ms", "hit_rate@5", "bm25_k1_2", "run[1]", "dense_é5"]) {
      expect(escapeCell(name)).toBe(name);
    }
  });

  it("refuses a value that is not a string, instead of a TypeError", () => {
    expect(() => escapeCell(null as never)).toThrow("escapeCell: expected a string, found null");
  });

  it("keeps ordinary Unicode as it is", () => {
    for (const name of ["café-réranké", "検索 ベースライン", "🚀 dense", "Ωmega—α"]) {
      expect(escapeCell(name)).toBe(name);
    }
  });

  it("property: no control character, <, > or bare | survives", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        const out = escapeCell(s);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the property is about control characters.
        expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069<>]/);
        // Every pipe is escaped: preceded by an odd number of backslashes.
        for (const m of out.matchAll(/(\\*)\|/g)) expect((m[1] as string).length % 2).toBe(1);
      }),
    );
  });
});

describe("renderMarkdown", () => {
  it("escapes run names: no raw ESC reaches the terminal, no HTML the page", () => {
    const md = renderMarkdown(table("\u001b[2J\u001b[31mpwned <img src=x onerror=alert(1)>"));
    expect(md).toBe(
      "| run | recall@5 |\n| --- | ---: |\n| \\u001b[2J\\u001b[31mpwned &lt;img src=x onerror=alert(1)&gt; | 0.5000 |\n",
    );
    expect(md).not.toContain("\u001b");
  });

  it("keeps a run name from turning into a link or formatting once rendered", () => {
    const md = renderMarkdown(table("**best** [see](https://evil.example)", "_m_"));
    expect(md).toBe(
      "| run | \\_m\\_ |\n| --- | ---: |\n| \\*\\*best\\*\\* [see]\\(https://evil.example) | 0.5000 |\n",
    );
  });

  it("escapes metric names in the header", () => {
    const md = renderMarkdown(table("bm25", "<script>|x\u001b[0m"));
    expect(md.split("\n")[0]).toBe("| run | &lt;script&gt;\\|x\\u001b[0m |");
  });

  it("escapes names in the significance legend, and keeps the table syntax", () => {
    const runs = [
      makeResult({ name: "<b>base</b>", scores: { m: [0, 0, 0, 0, 0, 0, 0, 0] } }),
      makeResult({ name: "new\u001b]0;title\u0007", scores: { m: [1, 1, 1, 1, 1, 1, 1, 1] } }),
    ];
    const md = Comparison.of(runs).toMarkdown({ test: "randomization" });
    const [tableText, legend] = md.split("\n\n");
    expect(tableText).toBe(
      [
        "| # | run | m |",
        "| --- | --- | ---: |",
        "| a | &lt;b&gt;base&lt;/b&gt; | 0.0000 |",
        "| b | new\\u001b]0;title\\u0007 | 1.0000ᵃ |",
      ].join("\n"),
    );
    expect(legend).toMatch(
      /^Runs: a = &lt;b&gt;base&lt;\/b&gt;, b = new\\u001b\]0;title\\u0007\. /,
    );
    expect(legend).toContain("baseline a (&lt;b&gt;base&lt;/b&gt;)");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is about control characters.
    expect(md).not.toMatch(/[\u0000-\u0009\u000b-\u001f]|<\/?b>/);
  });
});
