import { describe, expect, it } from "vitest";
import { printable, terminalSafe } from "./printable.js";

describe("printable", () => {
  it.each([
    ["\u001b[2J\u001b[31mpwned", "\\u001b[2J\\u001b[31mpwned"],
    ["two\nlines", "two\\nlines"],
    ["over\rwrite", "over\\rwrite"],
    ["tab\there", "tab\\there"],
    ["bell\u0007", "bell\\u0007"],
    ["del\u007f", "del\\u007f"],
    ["csi\u009b2J", "csi\\u009b2J"],
    ["rlo\u202etxt.exe", "rlo\\u202etxt.exe"],
  ])("escapes %j", (input, expected) => {
    expect(printable(input)).toBe(expected);
  });

  it("keeps ordinary Unicode and backslashes as they are", () => {
    for (const text of ["café-réranké", "検索 ベースライン", "🚀 dense", "C:\\runs\\a.json"]) {
      expect(printable(text)).toBe(text);
    }
  });
});

describe("terminalSafe", () => {
  it("keeps line feeds, CRLF line ends and tabs, and escapes every other control character", () => {
    expect(terminalSafe("a,b\r\n\u001b[2J,\tx\r\nlone\rcr\n")).toBe(
      "a,b\r\n\\u001b[2J,\tx\r\nlone\\rcr\n",
    );
  });

  it("gives JSON that parses back to the same strings", () => {
    const value = { name: "\u001b[31m\u009b\u007f\u202e 検索 🚀", n: 1 };
    const text = terminalSafe(JSON.stringify(value, null, 2));
    expect(text).toContain('"\\u001b[31m\\u009b\\u007f\\u202e 検索 🚀"');
    expect(JSON.parse(text)).toEqual(value);
  });
});
