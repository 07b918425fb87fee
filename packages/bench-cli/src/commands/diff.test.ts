import { describe, expect, it } from "vitest";
import { fmt } from "./diff.js";

describe("diff's numbers", () => {
  it("never print a non-zero value as 0", () => {
    expect(fmt(0.00002)).toBe("0.000020");
    expect(fmt(-0.000036)).toBe("-0.000036");
    expect(fmt(0.25)).toBe("0.2500");
    expect(fmt(0)).toBe("0");
    expect(fmt(3)).toBe("3");
    expect(fmt(null)).toBe("—");
  });
});
