import { describe, expect, it } from "vitest";
import type { RawRecord } from "./raw-record.js";
import { RecordPositions } from "./record-positions.js";
import { isTrueFlag, UnanswerableQuestions } from "./squad-v2.js";

const positions = new RecordPositions("f.csv", "row");

/** A record with the answers-related values given, the others empty. */
const record = (values: Partial<RawRecord>): RawRecord => ({
  id: undefined,
  question: "q",
  answers: undefined,
  relevantIds: undefined,
  relevance: undefined,
  metadata: undefined,
  impossible: undefined,
  position: 1,
  label: undefined,
  ...values,
});

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
      questions.answersOf(
        [],
        record({ answers: "[]", metadata: undefined, impossible: "True", position: 2 }),
        "answers",
        positions,
      ),
    ).toEqual([""]);
    expect(questions.warning("row")).toBeUndefined();
  });

  it("does the same for Hugging Face's flattened answers.text beside answers.answer_start", () => {
    const questions = new UnanswerableQuestions();
    const metadata = { "answers.answer_start": [] };
    expect(
      questions.answersOf(
        [],
        record({ answers: [], metadata, impossible: undefined, position: 2 }),
        "answers.text",
        positions,
      ),
    ).toEqual([""]);
    // Without answer_start it is no SQuAD answers object: no answers stay none.
    expect(
      questions.answersOf(
        [],
        record({ answers: [], metadata: {}, impossible: undefined, position: 3 }),
        "answers.text",
        positions,
      ),
    ).toEqual([]);
  });

  it("keeps the answers of a flagged question that has some, and names the first such row", () => {
    const questions = new UnanswerableQuestions();
    expect(
      questions.answersOf(
        ["a"],
        record({ answers: "a", metadata: undefined, impossible: 1, position: 4 }),
        "answers",
        positions,
      ),
    ).toEqual(["a"]);
    expect(
      questions.answersOf(
        ["b"],
        record({ answers: "b", metadata: undefined, impossible: 1, position: 9 }),
        "answers",
        positions,
      ),
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
      questions.answersOf(
        [],
        record({ answers: "", metadata: undefined, impossible: "False", position: 2 }),
        "answers",
        positions,
      ),
    ).toEqual([]);
    expect(
      questions.answersOf(
        ["x"],
        record({ answers: "x", metadata: undefined, impossible: undefined, position: 3 }),
        "answers",
        positions,
      ),
    ).toEqual(["x"]);
  });
});
