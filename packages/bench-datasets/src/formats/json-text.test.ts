import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { syntaxErrorOffset } from "./json-text.js";

describe("syntaxErrorOffset", () => {
  it("finds no error in valid JSON (the offset is its end), however deep or spaced", () => {
    fc.assert(
      fc.property(fc.json(), fc.constantFrom("", " ", "\n\t "), (text, space) => {
        const spaced = `${space}${text}${space}`;
        expect(syntaxErrorOffset(spaced)).toBe(spaced.length);
      }),
    );
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect(syntaxErrorOffset(deep)).toBe(deep.length);
  });

  it("points at what follows a complete value", () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(syntaxErrorOffset(`${text} x`)).toBe(text.length + 1);
      }),
    );
  });

  it("points at the first character that breaks the grammar", () => {
    const cases: [string, number][] = [
      ['{"a": 1,}', 8],
      ['{"a" 1}', 5],
      ["[1, 2", 5],
      ["[1 2]", 3],
      ['{"a": tru}', 6],
      ['["\\x"]', 3],
      ['["\\u12g4"]', 4],
      ["{1: 2}", 1],
      ["", 0],
      ["]", 0],
      ['"abc', 4],
    ];
    for (const [text, offset] of cases)
      expect([text, syntaxErrorOffset(text)]).toEqual([text, offset]);
  });
});
