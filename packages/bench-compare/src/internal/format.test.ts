import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { formatNumber } from "./format.js";

describe("formatNumber", () => {
  it.each([
    [0.25, 4, "0.2500"],
    [0.00002, 4, "0.000020"],
    [0.4, 0, "0.40"],
    [-0.00001, 0, "-0.000010"],
    [1e-13, 4, "0.00000000000010"],
    [1.5e-19, 4, "0.00000000000000000015"],
  ])("prints %d with %d decimals as %j", (value, decimals, expected) => {
    expect(formatNumber(value, decimals)).toBe(expected);
  });

  it.each([
    // toFixed stops at 100 decimals: 2.5e-301 printed as "0." and 100 zeros.
    [2.5e-301, 4, "2.5e-301"],
    [-1e-120, 0, "-1.0e-120"],
    [3.14e-21, 4, "3.1e-21"],
  ])(
    "prints %d, which would need over 20 decimals, in exponent form",
    (value, decimals, expected) => {
      expect(formatNumber(value, decimals)).toBe(expected);
    },
  );

  it("refuses a value that is not a number, or decimals out of range", () => {
    expect(() => formatNumber(null as never, 2)).toThrow(
      "formatNumber: expected a number, found null",
    );
    expect(() => formatNumber(0.5, 101)).toThrow(ConfigurationError);
    expect(() => formatNumber(0.5, -1)).toThrow(
      "formatNumber: decimals: expected an integer in [0, 20], found the number -1",
    );
  });
});
