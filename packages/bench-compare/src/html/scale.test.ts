import { describe, expect, it } from "vitest";
import { linearScale, logScale, niceStep, tickLabel } from "./scale.js";

describe("niceStep", () => {
  it("rounds up to 1, 2, 2.5 or 5 × 10^k", () => {
    expect(niceStep(0.01598)).toBe(0.02);
    expect(niceStep(0.0234)).toBe(0.025);
    expect(niceStep(0.03)).toBe(0.05);
    expect(niceStep(7)).toBe(10);
    expect(niceStep(100)).toBe(100);
    expect(niceStep(0)).toBe(1);
  });
});

describe("linearScale", () => {
  it("widens to round bounds and maps them onto the range", () => {
    // (0.8067 − 0.7268) / 5 = 0.01598 → step 0.02; ⌊0.7268 / 0.02⌋ = 36, ⌈0.8067 / 0.02⌉ = 41.
    const s = linearScale(0.7268, 0.8067, [0, 100]);
    expect(s.domain).toEqual([0.72, 0.82]);
    expect(s.ticks).toEqual([0.72, 0.74, 0.76, 0.78, 0.8, 0.82]);
    expect(s.map(0.72)).toBeCloseTo(0, 9);
    expect(s.map(0.77)).toBeCloseTo(50, 9);
    expect(s.map(0.82)).toBeCloseTo(100, 9);
  });

  it("keeps scores within [0, 1] and widens a flat domain around its value", () => {
    expect(linearScale(0, 1, [0, 1]).ticks).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(linearScale(0.93, 1, [0, 1]).domain[1]).toBe(1);
    const flat = linearScale(0.5, 0.5, [0, 10]);
    expect(flat.domain[0]).toBeLessThan(0.5);
    expect(flat.domain[1]).toBeGreaterThan(0.5);
    const zero = linearScale(0, 0, [0, 10]);
    expect(zero.domain[0]).toBeLessThan(0);
    expect(linearScale(Number.NaN, Number.POSITIVE_INFINITY, [0, 10]).domain).toEqual([0, 1]);
  });
});

describe("logScale", () => {
  it("spans whole decades, with 1-2-5 ticks over at most two decades", () => {
    const wide = logScale(0.0378, 85, [0, 400]);
    expect(wide.domain).toEqual([0.01, 100]);
    expect(wide.ticks).toEqual([0.01, 0.1, 1, 10, 100]);
    expect(wide.map(1)).toBeCloseTo(200, 9);
    const narrow = logScale(3, 40, [0, 2]);
    expect(narrow.ticks).toEqual([1, 2, 5, 10, 20, 50, 100]);
    expect(narrow.map(10)).toBeCloseTo(1, 9);
  });
});

describe("tickLabel", () => {
  it("prints short numbers", () => {
    expect(tickLabel(0)).toBe("0");
    expect(tickLabel(0.30000000000000004)).toBe("0.3");
    expect(tickLabel(12500)).toBe("12500");
    expect(tickLabel(0.025)).toBe("0.025");
  });
});
