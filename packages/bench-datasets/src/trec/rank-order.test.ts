import { describe, expect, it } from "vitest";
import { TrecRun } from "./trec-run.js";

describe("trec_eval order", () => {
  it("keeps a run already in trec_eval's order, and reorders one that is not", () => {
    // Hand-ordered: score descending, the tie at 2 broken by docno descending (c > b).
    const inOrder = "q Q0 d 1 3 t\nq Q0 c 2 2 t\nq Q0 b 3 2 t\nq Q0 a 4 1 t\n";
    expect(
      TrecRun.parse(inOrder)
        .ranking("q")
        .map((c) => c.id),
    ).toEqual(["d", "c", "b", "a"]);
    // The same lines with the tie in file order b, c: sorted, not kept.
    const tieOutOfOrder = "q Q0 d 1 3 t\nq Q0 b 2 2 t\nq Q0 c 3 2 t\nq Q0 a 4 1 t\n";
    expect(
      TrecRun.parse(tieOutOfOrder)
        .ranking("q")
        .map((c) => c.id),
    ).toEqual(["d", "c", "b", "a"]);
    // A long ranking (merge sort) written in reverse: scores 0..39, expected 39..0.
    let reversed = "";
    for (let i = 0; i < 40; i++) reversed += `q Q0 doc${i} ${40 - i} ${i} t\n`;
    const ids = TrecRun.parse(reversed)
      .ranking("q")
      .map((c) => c.id);
    expect(ids).toEqual(Array.from({ length: 40 }, (_, i) => `doc${39 - i}`));
  });
});
