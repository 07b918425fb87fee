import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { COLUMN_ALIASES, detectColumns } from "./column-mapping.js";

describe("detectColumns", () => {
  it("refuses one column feeding two fields, explicitly or through an alias", () => {
    expect(() => detectColumns(["q", "a"], { question: "q", expectedAnswers: "q" })).toThrow(
      'column mapping: column "q" is mapped to both question and expectedAnswers; a column fills one field',
    );
    expect(() => detectColumns(["question", "answer"], { expectedAnswers: "question" })).toThrow(
      'dataset: column "question" is mapped to expectedAnswers, and by its name is also the question column; map question to another column',
    );
    // Mapped elsewhere, the alias is free again.
    expect(
      detectColumns(["question", "prompt", "answer"], {
        question: "prompt",
        expectedAnswers: "question",
      }),
    ).toEqual(
      new Map([
        ["question", "prompt"],
        ["expectedAnswers", "question"],
      ]),
    );
  });

  it("refuses one field mapped twice (camelCase and snake_case), and a null question", () => {
    // Before, the later key won and the other column went to metadata without a word.
    expect(() =>
      detectColumns(["q", "gold", "g2"], {
        question: "q",
        expected_answers: "gold",
        expectedAnswers: "g2",
      } as never),
    ).toThrow(
      'column mapping: "expected_answers" and "expectedAnswers" both map the expectedAnswers field (to "gold" and "g2"); keep one',
    );
    expect(() =>
      detectColumns(["q", "ids"], {
        question: "q",
        relevantIds: "ids",
        relevant_ids: null,
      } as never),
    ).toThrow(
      'column mapping: "relevantIds" and "relevant_ids" both map the relevantIds field (to "ids" and null); keep one',
    );
    // Before: "no question column; tried the aliases "question", …; columns found: "question"".
    expect(() => detectColumns(["question", "answer"], { question: null })).toThrow(
      'column mapping: the question field cannot be null: every sample needs a question; name its column, e.g. { question: "prompt" }, or leave the field out to detect it',
    );
  });

  it("detects the names real eval sets use", () => {
    expect(Object.fromEntries(detectColumns(["_id", "query", "answers", "relevant_ids"]))).toEqual({
      id: "_id",
      question: "query",
      expectedAnswers: "answers",
      relevantIds: "relevant_ids",
    });
    expect(
      Object.fromEntries(
        detectColumns(["user_input", "reference", "response", "retrieved_contexts"]),
      ),
    ).toEqual({
      question: "user_input",
      expectedAnswers: "reference",
    });
    expect(
      Object.fromEntries(detectColumns(["query-id", "question", "ground_truths", "contexts"])),
    ).toEqual({
      id: "query-id",
      question: "question",
      expectedAnswers: "ground_truths",
      relevantIds: "contexts",
    });
    expect(detectColumns(["qid", "question", "answer"]).get("id")).toBe("qid");
    expect(detectColumns(["question", "ground_truth"]).get("expectedAnswers")).toBe("ground_truth");
  });

  it("is case-sensitive: exact names only", () => {
    expect(() => detectColumns(["Question", "Answer"])).toThrow(/no question column/);
    expect(detectColumns(["question", "Answer"]).has("expectedAnswers")).toBe(false);
  });

  it("names the mapping for a question column in another case, and a file of another separator", () => {
    const tried =
      'no question column; tried the aliases "question", "query", "user_input", "input"';
    expect(() =>
      detectColumns(["ID", "Question", "Answer"], undefined, "eval.csv: header"),
    ).toThrow(
      `eval.csv: header: ${tried}; columns found: "ID", "Question", "Answer". Detection is exact and case-sensitive; to read "Question", map it: { question: "Question" }`,
    );
    // European Excel writes ";" in a .csv: the whole header is one column.
    expect(() => detectColumns(["id;Query;answer"], undefined, "eval.csv: header")).toThrow(
      `eval.csv: header: ${tried}; columns found: "id;Query;answer". The header is one column holding semicolons: the file seems separated by semicolons; a .csv is read with commas and a .tsv with tabs: name the file for its separator, or save it again with commas as .csv`,
    );
    expect(() => detectColumns(["id\tquestion"], undefined, "eval.csv: header")).toThrow(
      /The header is one column holding tabs: the file seems separated by tabs;/,
    );
  });

  it("refuses two aliases of one field, naming both (RAGAS v1: answer + ground_truth)", () => {
    let error: unknown;
    try {
      detectColumns(["question", "answer", "ground_truth", "contexts"], undefined, "ragas.csv");
    } catch (e) {
      error = e;
    }
    expect(ConfigurationError.isInstance(error)).toBe(true);
    // The message suggests the gold column, never the model's answer.
    expect((error as Error).message).toBe(
      `ragas.csv: both "answer" and "ground_truth" could be the expectedAnswers column; beside "ground_truth", "answer" is usually the model's answer (as in RAGAS files), so choose the gold one with a column mapping: { expectedAnswers: "ground_truth" }`,
    );
    expect(() => detectColumns(["question", "ground_truths", "answer"])).toThrow(
      /"answer" is usually the model's answer .*\{ expectedAnswers: "ground_truths" \}$/,
    );
    // Two gold-looking columns: no guess beyond the first.
    expect(() => detectColumns(["question", "answers", "answer"])).toThrow(
      /both "answers" and "answer" could be the expectedAnswers column; choose one with a column mapping, e.g. \{ expectedAnswers: "answers" \}$/,
    );
    // A mapping resolves it; the other alias is then an ordinary column.
    expect(
      detectColumns(["question", "answer", "ground_truth"], {
        expectedAnswers: "ground_truth",
      }).get("expectedAnswers"),
    ).toBe("ground_truth");
    expect(() => detectColumns(["question", "query"])).toThrow(/both "question" and "query"/);
  });

  it("names the columns found and the aliases tried when the question is missing", () => {
    expect(() => detectColumns(["prompt", "gold"], undefined, "eval.csv")).toThrow(
      'eval.csv: no question column; tried the aliases "question", "query", "user_input", "input"; columns found: "prompt", "gold"',
    );
    expect(() => detectColumns(["prompt"], { question: "text" }, "eval.csv")).toThrow(
      /column "text" \(mapped to question\) not found; columns found: "prompt"/,
    );
  });

  it("lets a mapping override or disable single fields", () => {
    const resolved = detectColumns(["prompt", "answer", "contexts"], {
      question: "prompt",
      relevantIds: null,
    });
    expect(Object.fromEntries(resolved)).toEqual({ question: "prompt", expectedAnswers: "answer" });
    // snake_case field names are accepted at run time too (for CLI flags).
    expect(
      detectColumns(["q", "gold"], { question: "q", expected_answers: "gold" } as never).get(
        "expectedAnswers",
      ),
    ).toBe("gold");
  });

  it("rejects unknown fields and non-string columns", () => {
    expect(() => detectColumns(["question"], { answer: "x" } as never)).toThrow(
      /unknown field "answer"/,
    );
    expect(() => detectColumns(["question"], { question: 3 } as never)).toThrow(
      /must name a column/,
    );
  });

  it("refuses columns that are not an array of names, saying what it expected", () => {
    const cases: [unknown, string][] = [
      ["x", 'found the string "x"'],
      [null, "found null"],
      [undefined, "found undefined"],
      [new Set(["question"]), "found a Set of 1 item"],
      [["question", 3], "found the number 3 at index 1"],
    ];
    for (const [columns, found] of cases) {
      let error: unknown;
      try {
        detectColumns(columns as never);
      } catch (e) {
        error = e;
      }
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toBe(
        `detectColumns: expected an array of column names (strings), ${found}`,
      );
    }
  });

  it("documents an alias list per field", () => {
    expect(COLUMN_ALIASES.question).toEqual(["question", "query", "user_input", "input"]);
    for (const alias of ["answers", "answer", "ground_truth", "ground_truths", "reference"]) {
      expect(COLUMN_ALIASES.expectedAnswers).toContain(alias);
    }
    for (const alias of ["_id", "qid", "query-id"]) expect(COLUMN_ALIASES.id).toContain(alias);
    for (const alias of ["relevant_ids", "contexts"])
      expect(COLUMN_ALIASES.relevantIds).toContain(alias);
  });
});
