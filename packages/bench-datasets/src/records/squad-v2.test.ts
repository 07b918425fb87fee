import { describe, expect, it } from "vitest";
import { RecordPositions } from "./record-positions.js";
import { isTrueFlag, UnanswerableQuestions } from "./squad-v2.js";

const positions = new RecordPositions("f.csv", "row");

describe("isTrueFlag", () => {
  it("reads true, 1 and pandas' text for them", () => {
    for (const flag of [true, 1, BigInt(1), "True", " true ", "1"]) {
      expect(isTrueFlag(flag)).toBe(true);
    }
    for (const flag of [false, 0, "False", "0", "", "yes", null, undefined, 2]) {
      expect(isTrueFlag(flag)).toBe(false);
    }
  });
});

describe("UnanswerableQuestions", () => {
  it("grades a flagged question without answers against the empty answer", () => {
    const questions = new UnanswerableQuestions();
    expect(
      questions.answersOf([], "[]", "answers", undefined, "True", positions, 2, undefined),
    ).toEqual([""]);
    expect(questions.warning("row")).toBeUndefined();
  });

  it("does the same for Hugging Face's flattened answers.text beside answers.answer_start", () => {
    const questions = new UnanswerableQuestions();
    const metadata = { "answers.answer_start": [] };
    expect(
      questions.answersOf([], [], "answers.text", metadata, undefined, positions, 2, undefined),
    ).toEqual([""]);
    // Without answer_start it is no SQuAD answers object: no answers stay none.
    expect(
      questions.answersOf([], [], "answers.text", {}, undefined, positions, 3, undefined),
    ).toEqual([]);
  });

  it("keeps the answers of a flagged question that has some, and names the first such row", () => {
    const questions = new UnanswerableQuestions();
    expect(
      questions.answersOf(["a"], "a", "answers", undefined, 1, positions, 4, undefined),
    ).toEqual(["a"]);
    expect(
      questions.answersOf(["b"], "b", "answers", undefined, 1, positions, 9, undefined),
    ).toEqual(["b"]);
    const warning = questions.warning("row");
    expect(warning).toMatch(
      /^f\.csv: row 4: column "is_impossible" says the question is unanswerable, but column "answers" holds an answer \("a"\)/,
    );
    expect(warning).toContain("and so were those of 1 more such row.");
  });

  it("leaves unflagged questions alone", () => {
    const questions = new UnanswerableQuestions();
    expect(
      questions.answersOf([], "", "answers", undefined, "False", positions, 2, undefined),
    ).toEqual([]);
    expect(
      questions.answersOf(["x"], "x", "answers", undefined, undefined, positions, 3, undefined),
    ).toEqual(["x"]);
  });
});
