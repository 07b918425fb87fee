import { describe, expect, it } from "vitest";
import { MAX_NESTING, plainValue, TooDeep } from "./plain-value.js";

describe("plainValue", () => {
  it("turns BigInts into numbers when exact, else into their digits", () => {
    expect(plainValue({ a: [BigInt(7), BigInt("12345678901234567890")] }, 0)).toEqual({
      a: [7, "12345678901234567890"],
    });
  });

  it("returns a value without BigInts as it is, not a copy", () => {
    const value = { a: [1, "x", { b: null }] };
    expect(plainValue(value, 0)).toBe(value);
  });

  it("refuses a value nested deeper than MAX_NESTING, and one holding itself", () => {
    let deep: unknown = [];
    for (let i = 0; i <= MAX_NESTING + 1; i++) deep = [deep];
    expect(() => plainValue(deep, 0)).toThrow(TooDeep);
    const loop: unknown[] = [];
    loop.push(loop);
    expect(() => plainValue(loop, 0)).toThrow(TooDeep);
    let fits: unknown = [];
    for (let i = 0; i < MAX_NESTING; i++) fits = [fits];
    expect(plainValue(fits, 0)).toBe(fits);
  });
});
