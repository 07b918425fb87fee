import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { csvField } from "./render-csv.js";

describe("csvField", () => {
  it.each([
    ["=1+1", "'=1+1"],
    ["+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"],
    ["-2+3", "'-2+3"],
    ["@SUM(A1:A2)", "'@SUM(A1:A2)"],
    ["\tabc", "'\tabc"],
    ["\r=1", '"\'\r=1"'],
    ['=HYPERLINK("http://evil","x")', '"\'=HYPERLINK(""http://evil"",""x"")"'],
  ])("neutralizes the injection probe %j", (input, expected) => {
    expect(csvField(input)).toBe(expected);
  });

  it.each([
    [" =cmd()", "' =cmd()"],
    ["  +1+1", "'  +1+1"],
    ["\t=1+1", "'\t=1+1"],
    ["\t -2", "'\t -2"],
    ["\u00a0@SUM(A1)", "'\u00a0@SUM(A1)"],
    ["\u3000=1", "'\u3000=1"],
    ["\r\n=1", '"\'\r\n=1"'],
    ["\n=1", '"\'\n=1"'],
    ["\u0000=1", "'\u0000=1"],
    ["\u0000abc", "'\u0000abc"],
  ])(
    "neutralizes %j, a formula behind leading whitespace or a control character",
    (input, expected) => {
      expect(csvField(input)).toBe(expected);
    },
  );

  it("leaves text whose first non-blank character starts no formula as it is", () => {
    expect(csvField(" bm25")).toBe(" bm25");
    expect(csvField("a=b")).toBe("a=b");
    expect(csvField("bm25 -k1")).toBe("bm25 -k1");
    expect(csvField("café 検索 🚀")).toBe("café 検索 🚀");
  });

  it("keeps numbers numeric, negative ones included", () => {
    expect(csvField(-0.5)).toBe("-0.5");
    expect(csvField(1e-7)).toBe("1e-7");
    // Text is text: a run named like a number is neutralized as any other text (DESIGN §5).
    expect(csvField("-0.5")).toBe("'-0.5");
    expect(csvField("+3e-4")).toBe("'+3e-4");
    expect(csvField(Number.NaN)).toBe("");
    expect(csvField(null)).toBe("");
  });

  it("quotes per RFC 4180", () => {
    expect(csvField("a,b")).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("two\nlines")).toBe('"two\nlines"');
    expect(csvField("plain")).toBe("plain");
  });

  it("property: no text field can start a formula once unquoted", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "binary" }),
          fc
            .tuple(
              fc.array(fc.constantFrom(" ", "\t", "\r", "\n", "\u00a0", "\u0000", "\u001b")),
              fc.constantFrom("=", "+", "-", "@"),
              fc.string(),
            )
            .map(([blank, trigger, rest]) => `${blank.join("")}${trigger}${rest}`),
        ),
        (s) => {
          const out = csvField(s);
          const unquoted = out.startsWith('"') ? out.slice(1, -1).replace(/""/g, '"') : out;
          expect(unquoted).not.toMatch(/^[=+\-@\t\r]/);
          // biome-ignore lint/suspicious/noControlCharactersInRegex: the property is about control characters.
          expect(unquoted).not.toMatch(/^[\s\u0000-\u001f\u007f-\u009f]*[=+\-@]/);
        },
      ),
    );
  });
});
