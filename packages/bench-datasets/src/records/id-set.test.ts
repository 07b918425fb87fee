import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IdSet } from "./id-set.js";

describe("IdSet", () => {
  it("refuses exactly the ids it holds, across its growth", () => {
    const ids = new IdSet();
    // 5,000 ids outgrow the first table (1,024 slots) several times.
    for (let i = 0; i < 5000; i++) expect(ids.add(`doc-${i}`)).toBe(true);
    for (let i = 0; i < 5000; i += 7) expect(ids.add(`doc-${i}`)).toBe(false);
    expect(ids.add("doc-5000")).toBe(true);
    expect(ids.add("")).toBe(true);
    expect(ids.add("")).toBe(false);
  });

  it("agrees with a Set on any sequence of strings", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 4 }), { maxLength: 300 }), (list) => {
        const ids = new IdSet();
        const seen = new Set<string>();
        for (const id of list) {
          expect(ids.add(id)).toBe(!seen.has(id));
          seen.add(id);
        }
      }),
    );
  });
});
