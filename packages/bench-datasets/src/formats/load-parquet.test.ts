import { ConfigurationError } from "@fastrag/bench-core";
import { parquetWriteBuffer } from "hyparquet-writer";
import { describe, expect, it } from "vitest";
import { rejection, tempFile } from "../__fixtures__/helpers.js";
import { QADataset } from "../qa-dataset.js";

describe(".parquet", () => {
  it("reads rows by column name: list columns, int64 ids, HF answers structs", async () => {
    const buffer = parquetWriteBuffer({
      columnData: [
        { name: "id", data: [10n, 11n], type: "INT64" },
        { name: "question", data: ["Who?", "What?"], type: "STRING" },
        {
          name: "answers",
          data: [
            { text: ["Ada", "Grace"], answer_start: [0, 4] },
            { text: [], answer_start: [] },
          ],
        },
        { name: "contexts", data: [["d1"], ["d2", "d3"]] },
        { name: "source", data: ["x", "y"], type: "STRING" },
        // pandas and pyarrow write every integer column as INT64.
        { name: "hops", data: [2n, 2n ** 60n], type: "INT64" },
      ],
    });
    const path = await tempFile("eval.parquet", new Uint8Array(buffer));
    const dataset = await QADataset.load(path);
    expect(dataset.samples).toEqual([
      {
        id: "10",
        question: "Who?",
        expectedAnswers: ["Ada", "Grace"],
        relevantIds: ["d1"],
        metadata: { source: "x", hops: 2 },
      },
      {
        id: "11",
        question: "What?",
        // SQuAD v2 unanswerable (no span): the empty answer, as the official script grades it.
        expectedAnswers: [""],
        relevantIds: ["d2", "d3"],
        // Beyond 2^53 a number would be rounded: the exact digits, as text.
        metadata: { source: "y", hops: "1152921504606846976" },
      },
    ]);
    // INT64 metadata is no BigInt, which the native format could not write.
    const saved = await tempFile("saved.json", "");
    await dataset.save(saved);
    expect((await QADataset.load(saved)).samples).toEqual(dataset.samples);
  });

  it("names the row and column of a bad cell", async () => {
    const buffer = parquetWriteBuffer({
      columnData: [{ name: "question", data: ["ok", ""], type: "STRING" }],
    });
    const path = await tempFile("eval.parquet", new Uint8Array(buffer));
    expect((await rejection(QADataset.load(path))).message).toBe(
      `${path}: row 2, column "question": expected a question (a non-empty string), found the string ""`,
    );
  });

  it("turns a corrupt file into a ConfigurationError", async () => {
    const path = await tempFile("eval.parquet", "PAR1 this is not parquet PAR1");
    const error = await rejection(QADataset.load(path));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /eval\.parquet: footer \(its length at byte 21\): not a readable Parquet file/,
    );
  });
});
