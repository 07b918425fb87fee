import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { rejection, tempFile } from "../__fixtures__/helpers.js";
import { QADataset } from "../qa-dataset.js";

const lines = (...rows: string[]) => `${rows.join("\n")}\n`;

describe(".jsonl", () => {
  it("reads one record per line, skipping blank lines, with CRLF and a BOM", async () => {
    const path = await tempFile(
      "eval.jsonl",
      '\uFEFF{"question": "a", "answer": "x"}\r\n\r\n{"question": "b", "answer": ["y", "z"]}',
    );
    expect((await QADataset.load(path)).samples).toEqual([
      { question: "a", expectedAnswers: ["x"], relevantIds: [] },
      { question: "b", expectedAnswers: ["y", "z"], relevantIds: [] },
    ]);
  });

  it("names line 7 and its column for bad JSON on line 7", async () => {
    const good = '{"question": "q"}';
    const path = await tempFile(
      "eval.jsonl",
      lines(good, good, good, "", good, good, '{"question": "q" "answer": 1}'),
    );
    const error = await rejection(QADataset.load(path));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/eval\.jsonl: line 7, column 18: invalid JSON at "\\"answer\\"/);
  });

  it("names line and column of an empty question and of non-string ids", async () => {
    const path = await tempFile("eval.jsonl", lines('{"question": "q"}', "", '{"question": ""}'));
    expect((await rejection(QADataset.load(path))).message).toBe(
      `${path}: line 3, column "question": expected a question (a non-empty string), found the string ""`,
    );
    const ids = await tempFile("eval.jsonl", lines('{"question": "q", "relevant_ids": [true]}'));
    expect((await rejection(QADataset.load(ids))).message).toMatch(
      /line 1, column "relevant_ids": item 1 should be a string id, found the boolean true/,
    );
  });

  it("reads nq-open style records whose answer list becomes expected_answers", async () => {
    const path = await tempFile("nq.jsonl", lines('{"question": "q", "answer": ["1988", "88"]}'));
    expect((await QADataset.load(path)).samples[0]?.expectedAnswers).toEqual(["1988", "88"]);
  });
});
