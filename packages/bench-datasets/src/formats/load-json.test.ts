import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { rejection, tempFile } from "../__fixtures__/helpers.js";
import { QADataset } from "../qa-dataset.js";

describe(".json", () => {
  it("reads a bare array of records", async () => {
    const path = await tempFile(
      "eval.json",
      '[{"query": "q1", "ground_truths": ["a"]}, {"query": "q2"}]',
    );
    expect((await QADataset.load(path)).samples).toEqual([
      { question: "q1", expectedAnswers: ["a"], relevantIds: [] },
      { question: "q2", expectedAnswers: [], relevantIds: [] },
    ]);
  });

  it("names line and column of invalid JSON", async () => {
    const path = await tempFile(
      "eval.json",
      '{"samples": [\n  {"question": "a"},\n  {"question": "b",}\n]}',
    );
    const error = await rejection(QADataset.load(path));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/eval\.json: line 3, column 20: invalid JSON at "}/);
    const truncated = await tempFile("eval.json", '{"samples": [{"question": "a"');
    expect((await rejection(QADataset.load(truncated))).message).toMatch(
      /line 1, column 30: invalid JSON at the end of the input/,
    );
  });

  it("names the record of a bad sample in the native format", async () => {
    const path = await tempFile(
      "eval.json",
      '{"samples": [{"question": "a"}, {"question": 5, "relevant_ids": [null]}]}',
    );
    expect((await rejection(QADataset.load(path))).message).toBe(
      `${path}: record 2 (samples[1]), column "relevant_ids": item 1 should be a string id, found null`,
    );
  });

  it("rejects a document of another shape, saying what it expected", async () => {
    const path = await tempFile("eval.json", '{"rows": []}');
    expect((await rejection(QADataset.load(path))).message).toMatch(
      /expected the native format .* found an object with keys rows/,
    );
  });
});
