import { describe, expect, it } from "vitest";
import { renderJson } from "./render-json.js";
import type { ComparisonTable } from "./table.js";

/** A hand-built table: one run, metrics "__proto__" (0.25) and "constructor" (null). */
function table(): ComparisonTable {
  return {
    stat: "mean",
    columns: [
      { metric: "__proto__", header: "__proto__", higherIsBetter: true, decimals: 4 },
      { metric: "constructor", header: "constructor", higherIsBetter: false, decimals: 4 },
    ],
    rows: [
      {
        index: 0,
        label: "a",
        name: "run",
        isBaseline: false,
        cells: [
          { value: 0.25, beats: [], wins: [] },
          { value: null, beats: [], wins: [] },
        ],
      },
    ],
    significance: null,
  };
}

describe("renderJson", () => {
  it("writes a metric named __proto__ as an own key, never as the prototype", () => {
    const text = renderJson(table());
    expect(text).toContain(
      '"values": {\n        "__proto__": 0.25,\n        "constructor": null\n      }',
    );
    const json = JSON.parse(text);
    expect(Object.keys(json.runs[0].values)).toEqual(["__proto__", "constructor"]);
    expect(Object.getOwnPropertyDescriptor(json.runs[0].values, "__proto__")?.value).toBe(0.25);
    expect(json.metrics).toEqual([
      { name: "__proto__", higher_is_better: true },
      { name: "constructor", higher_is_better: false },
    ]);
  });
});

describe("renderJson, control characters", () => {
  it("escapes every control character in a name, and parses back to the same name", () => {
    const name = "\u001b[2J\u009b31m\u007f\u202eevil\u2066 café 検索 🚀";
    const t = table();
    const text = renderJson({
      ...t,
      rows: [{ ...(t.rows[0] as ComparisonTable["rows"][0]), name }],
    });
    expect(text).toContain('"name": "\\u001b[2J\\u009b31m\\u007f\\u202eevil\\u2066 café 検索 🚀"');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is about control characters.
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(text).runs[0].name).toBe(name);
  });
});
