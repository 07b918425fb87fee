import { describe, expect, it } from "vitest";
import { trecFixed4 } from "./trec-format.js";

describe("trecFixed4", () => {
  it('rounds exact ties to even, as glibc\'s printf("%.4f") printed them', () => {
    // Printed by a C program, printf("%.4f", x), on this machine (glibc 2.36).
    const printf: [number, string][] = [
      [1 / 32, "0.0312"],
      [3 / 32, "0.0938"],
      [5 / 32, "0.1562"],
      [7 / 32, "0.2188"],
      [-1 / 32, "-0.0312"],
      [1 + 1 / 32, "1.0312"],
    ];
    for (const [x, s] of printf) expect(trecFixed4(x), String(x)).toBe(s);
  });

  it("agrees with toFixed(4) away from ties", () => {
    for (const x of [0, 1, 0.1785, 0.00005, 0.99995, 2 / 3, 1 / 3, 0.0625, 0.123449999, 12.5]) {
      expect(trecFixed4(x), String(x)).toBe(x.toFixed(4));
    }
  });
});
