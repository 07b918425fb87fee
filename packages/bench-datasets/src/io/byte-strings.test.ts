import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ByteInterner, ByteSet, hashBytes, parseSimpleDecimal } from "./byte-strings.js";

const bytesOf = (text: string) => Buffer.from(text, "latin1");

describe("parseSimpleDecimal", () => {
  it("reads plain decimals exactly as Number() does", () => {
    for (const text of [
      "0",
      "-0",
      "+7",
      "3.340779",
      "-2.5",
      ".5",
      "5.",
      "007",
      "0.1",
      "12.345678901234",
    ]) {
      const b = bytesOf(text);
      expect(Object.is(parseSimpleDecimal(b, 0, b.length), Number(text))).toBe(true);
    }
  });

  it("declines what it does not read (callers fall back to Number())", () => {
    for (const text of [
      "1e5",
      "0x1F",
      "Infinity",
      "",
      ".",
      "-",
      "1.2.3",
      "12345678901234567890",
      "0.12345678901234567890123",
    ]) {
      const b = bytesOf(text);
      expect(Number.isNaN(parseSimpleDecimal(b, 0, b.length))).toBe(true);
    }
  });

  it("equals Number() on random decimals, whenever it answers", () => {
    const decimal = fc
      .tuple(
        fc.constantFrom("", "-", "+"),
        fc.stringMatching(/^[0-9]{0,17}$/),
        fc.option(fc.stringMatching(/^[0-9]{0,24}$/), { nil: undefined }),
      )
      .map(([sign, int, frac]) => `${sign}${int}${frac === undefined ? "" : `.${frac}`}`);
    fc.assert(
      fc.property(decimal, (text) => {
        const b = bytesOf(text);
        const value = parseSimpleDecimal(b, 0, b.length);
        if (!Number.isNaN(value)) expect(Object.is(value, Number(text))).toBe(true);
        // Up to 15 digits the fast path always answers.
        const digits = text.replace(/[^0-9]/g, "").length;
        if (digits > 0 && digits <= 15) expect(Number.isNaN(value)).toBe(false);
      }),
    );
  });
});

describe("ByteInterner", () => {
  it("gives equal bytes one id and one string, across rehashes", () => {
    const interner = new ByteInterner();
    const words = Array.from({ length: 5000 }, (_, i) => `doc-${i}`);
    const ids = words.map((w) => interner.intern(Buffer.from(w), 0, w.length));
    expect(new Set(ids).size).toBe(5000);
    const again = words.map((w) => interner.intern(Buffer.from(` ${w} `), 1, w.length + 1));
    expect(again).toEqual(ids);
    expect(interner.strings[ids[4321] as number]).toBe("doc-4321");
    const utf8 = Buffer.from("café", "utf8");
    expect(interner.strings[interner.intern(utf8, 0, utf8.length)]).toBe("café");
  });
});

describe("ByteSet", () => {
  it("finds what it added, by bytes and hash, and decodes it back", () => {
    const set = new ByteSet();
    const words = Array.from({ length: 3000 }, (_, i) => `q-${i}-é`);
    const ids = words.map((w) => {
      const b = Buffer.from(w);
      const h = hashBytes(b, 0, b.length);
      expect(set.find(b, 0, b.length, h)).toBe(-1);
      return set.add(b, 0, b.length, h);
    });
    expect(ids).toEqual(words.map((_, i) => i));
    expect(set.size).toBe(3000);
    const b = Buffer.from(` ${words[1234]} `);
    expect(set.find(b, 1, b.length - 1, hashBytes(b, 1, b.length - 1))).toBe(1234);
    expect(set.intern(b, 1, b.length - 1)).toBe(1234);
    expect(set.text(1234)).toBe(words[1234]);
  });
});
