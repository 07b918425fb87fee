import { describe, expect, it } from "vitest";
import type { SampleResult } from "../types.js";
import { JournaledCount, journaledWords } from "./journaled-count.js";

const r = {} as SampleResult;

describe("JournaledCount", () => {
  it("without trials, counts each line as a finished sample, as the journal always said", () => {
    const c = JournaledCount.ofJournal(1, 4, new Map());
    c.add(7);
    c.add(8);
    expect(c.finished).toBe(6);
    expect(journaledWords(c.counts())).toBe("6 finished samples");
  });

  it("with trials, counts a sample once all its trials are in, and the others' trials apart", () => {
    // A journal of 3 trials per sample holding sample 0's three trials and sample 1's first.
    const c = JournaledCount.ofJournal(
      3,
      0,
      new Map([
        [0, [r, r, r]],
        [1, [r, undefined, undefined]],
      ]),
    );
    expect(journaledWords(c.counts())).toBe("1 finished samples and 1 trial of 1 unfinished one");
    c.add(1, 1);
    c.add(2, 0);
    expect(c.finished).toBe(1);
    expect(c.unfinishedTrials).toBe(3);
    expect(c.unfinishedSamples).toBe(2);
    expect(journaledWords(c.counts())).toBe("1 finished samples and 3 trials of 2 unfinished ones");
    c.add(1, 2);
    expect(journaledWords(c.counts())).toBe("2 finished samples and 1 trial of 1 unfinished one");
    c.add(2, 1);
    c.add(2, 2);
    expect(journaledWords(c.counts())).toBe("3 finished samples");
  });
});
