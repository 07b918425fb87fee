import { describe, expect, it } from "vitest";
import { describeValue } from "./describe-value.js";

describe("describeValue", () => {
  it("names scalars with their value", () => {
    expect(describeValue(null)).toBe("null");
    expect(describeValue(undefined)).toBe("undefined");
    expect(describeValue(4)).toBe("the number 4");
    expect(describeValue(Number.NaN)).toBe("the number NaN");
    expect(describeValue(false)).toBe("the boolean false");
    expect(describeValue(12n)).toBe("the integer 12 (a bigint)");
  });

  it("quotes strings, so that a string of digits does not read as a number", () => {
    expect(describeValue("4")).toBe('the string "4"');
    expect(describeValue("")).toBe('the string ""');
    expect(describeValue('say "hi"')).toBe('the string "say \\"hi\\""');
  });

  it("clips long strings to 60 characters and an ellipsis", () => {
    expect(describeValue("x".repeat(60))).toBe(`the string "${"x".repeat(60)}"`);
    expect(describeValue("x".repeat(61))).toBe(`the string "${"x".repeat(60)}…"`);
  });

  it("never cuts a surrogate pair in two", () => {
    // 59 ASCII characters, then 😀 (two UTF-16 units) at units 60–61.
    expect(describeValue(`${"a".repeat(59)}😀tail`)).toBe(`the string "${"a".repeat(59)}…"`);
  });

  it("says the size of containers", () => {
    expect(describeValue([])).toBe("an array of 0 items");
    expect(describeValue([1])).toBe("an array of 1 item");
    expect(describeValue([1, 2, 3])).toBe("an array of 3 items");
    expect(describeValue(new Uint8Array(5))).toBe("binary data (5 bytes)");
    expect(describeValue(new Map([["a", 1]]))).toBe("a Map of 1 entry");
    expect(describeValue(new Set([1, 2]))).toBe("a Set of 2 items");
  });

  it("names dates by their time, and invalid ones as such", () => {
    expect(describeValue(new Date(Date.UTC(2024, 0, 2)))).toBe("a Date (2024-01-02T00:00:00.000Z)");
    expect(describeValue(new Date(Number.NaN))).toBe("an invalid Date");
  });

  it("names other values by their type, never printing their contents", () => {
    expect(describeValue({ secret: "k" })).toBe("an object");
    expect(describeValue(() => 1)).toBe("a function");
    expect(describeValue(Symbol("s"))).toBe("a symbol");
  });
});
