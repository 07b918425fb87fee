import { describe, expect, it } from "vitest";
import { goldColumnWarnings, nearMiss, PassageTextProbe } from "./column-hints.js";

describe("nearMiss", () => {
  const aliases = ["expected_answers", "answers", "ground_truth"];

  it("finds a name that differs only in case, _, - and spaces", () => {
    expect(nearMiss("Ground Truth", aliases)).toBe("ground_truth");
    expect(nearMiss("groundtruth", aliases)).toBe("ground_truth");
  });

  it("finds one edit, or two in a name of the same length, in aliases of 6+ letters", () => {
    expect(nearMiss("expected_answer", aliases)).toBe("expected_answers");
    expect(nearMiss("expected_anwsers", aliases)).toBe("expected_answers");
  });

  it("leaves other names alone", () => {
    expect(nearMiss("incorrect_answers", ["correct_answer"])).toBeUndefined();
    expect(nearMiss("answer_start", aliases)).toBeUndefined();
    // "answers" has 7 letters: one edit away is a near miss.
    expect(nearMiss("answerz", aliases)).toBe("answers");
    expect(nearMiss("notes", aliases)).toBeUndefined();
  });
});

describe("PassageTextProbe", () => {
  const passage = "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris.";

  it("warns when half the samples inspected hold passages as ids", () => {
    const probe = new PassageTextProbe();
    probe.inspect([passage]);
    probe.inspect(["doc-1"]);
    expect(probe.warning("f.jsonl", "contexts")).toMatch(
      /^f\.jsonl: column "contexts" .* in 1 of the 2 samples/,
    );
  });

  it("is silent for ids, and for no ids at all", () => {
    const probe = new PassageTextProbe();
    probe.inspect(["doc-1", "doc-2"]);
    probe.inspect([]);
    expect(probe.warning("f.jsonl", "relevant_ids")).toBeUndefined();
    expect(new PassageTextProbe().warning("f.jsonl", undefined)).toBeUndefined();
  });
});

describe("goldColumnWarnings", () => {
  it("names a misspelled gold column kept as metadata", () => {
    const warnings = goldColumnWarnings(
      "f.csv",
      3,
      new Map(),
      new Map([["question", "question"]]),
      ["expected_anwsers"],
    );
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('column "expected_anwsers" was kept as metadata');
    expect(warnings[1]).toContain("no column of expected answers or relevant ids was found");
  });

  it("says nothing for an empty file, or when a gold column is mapped away", () => {
    expect(goldColumnWarnings("f.csv", 0, new Map(), new Map(), ["x"])).toEqual([]);
    expect(
      goldColumnWarnings("f.csv", 2, new Map([["expectedAnswers", null]]), new Map(), []),
    ).toEqual([]);
  });
});
