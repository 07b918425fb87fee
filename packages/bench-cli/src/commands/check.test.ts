import { describe, expect, it } from "vitest";
import { erroredLimit, parseMaxErrored } from "./check.js";

describe("--max-errored", () => {
  it("rounds a share down to whole samples, exactly", () => {
    // 0.29 * 100 is 28.999999999999996 in doubles; 29% of 100 samples allows 29.
    expect(erroredLimit(parseMaxErrored("29%"), 100)).toBe(29);
    expect(erroredLimit(parseMaxErrored("57%"), 100)).toBe(57);
    expect(erroredLimit(parseMaxErrored("58%"), 100)).toBe(58);
    expect(erroredLimit(parseMaxErrored("9.9%"), 10)).toBe(0);
    expect(erroredLimit(parseMaxErrored("10%"), 10)).toBe(1);
    expect(erroredLimit(parseMaxErrored("0.5%"), 200)).toBe(1);
    expect(erroredLimit(parseMaxErrored("100%"), 7)).toBe(7);
    expect(erroredLimit(parseMaxErrored("3"), 7)).toBe(3);
  });

  it("equals integer arithmetic for every whole and tenth percentage", () => {
    for (let tenths = 0; tenths <= 1000; tenths++) {
      const spec = parseMaxErrored(`${Math.floor(tenths / 10)}.${tenths % 10}%`);
      for (const total of [1, 3, 7, 10, 99, 100, 101, 333, 1000, 12_345]) {
        // floor(tenths/10 % of total) = floor(tenths × total / 1000), in integers.
        expect(erroredLimit(spec, total)).toBe(Math.floor((tenths * total) / 1000));
      }
    }
  });
});
