import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rejection, tempDir } from "../__fixtures__/helpers.js";
import { QADataset } from "../qa-dataset.js";

const lines = (...rows: string[]) => `${rows.join("\n")}\n`;

describe("BEIR directory", () => {
  async function beir(qrels: Record<string, string>): Promise<string> {
    const dir = await tempDir("beir-");
    await mkdir(join(dir, "qrels"));
    await writeFile(
      join(dir, "queries.jsonl"),
      lines(
        '{"_id": "q1", "text": "first?", "metadata": {}}',
        '{"_id": "q2", "text": "second?", "metadata": {"topic": "t"}}',
        '{"_id": "q3", "text": "third?"}',
      ),
    );
    await writeFile(
      join(dir, "corpus.jsonl"),
      lines('{"_id": "d1", "title": "T1", "text": "one"}'),
    );
    for (const [split, text] of Object.entries(qrels))
      await writeFile(join(dir, "qrels", `${split}.tsv`), text);
    return dir;
  }

  it("reads queries judged in the split; grades become relevance, grade > 0 relevant_ids", async () => {
    const dir = await beir({
      test: lines("query-id\tcorpus-id\tscore", "q2\td1\t2", "q2\td2\t0", "q1\td3\t1"),
      dev: lines("query-id\tcorpus-id\tscore", "q3\td1\t1"),
    });
    expect((await QADataset.load(dir)).samples).toEqual([
      {
        id: "q2",
        question: "second?",
        expectedAnswers: [],
        relevantIds: ["d1"],
        relevance: { d1: 2, d2: 0 },
        metadata: { topic: "t" },
      },
      {
        id: "q1",
        question: "first?",
        expectedAnswers: [],
        relevantIds: ["d3"],
        relevance: { d3: 1 },
      },
    ]);
    expect((await QADataset.load(dir, { split: "dev" })).samples.map((s) => s.id)).toEqual(["q3"]);
  });

  it("lists the splits found when the split is missing", async () => {
    const dir = await beir({ dev: lines("query-id\tcorpus-id\tscore", "q1\td1\t1") });
    expect((await rejection(QADataset.load(dir))).message).toMatch(
      /no qrels for split "test" \(qrels\/test\.tsv\); splits found: dev/,
    );
  });

  it("names a missing qrels column and a bad score", async () => {
    const missing = await beir({ test: lines("query-id\tcorpus-id\tgrade", "q1\td1\t1") });
    expect((await rejection(QADataset.load(missing))).message).toMatch(
      /test\.tsv: line 1: missing qrels column "score"/,
    );
    const bad = await beir({ test: lines("query-id\tcorpus-id\tscore", "q1\td1\thigh") });
    expect((await rejection(QADataset.load(bad))).message).toMatch(
      /test\.tsv: line 2, column 3 \(score\): expected a numeric grade/,
    );
    const unknown = await beir({ test: lines("query-id\tcorpus-id\tscore", "q9\td1\t1") });
    expect((await rejection(QADataset.load(unknown))).message).toMatch(
      /test\.tsv: line 2: query "q9" is judged but missing from \S*queries\.jsonl/,
    );
  });

  it("explains what a directory must hold", async () => {
    const dir = await tempDir();
    expect((await rejection(QADataset.load(dir))).message).toMatch(
      /BEIR dataset and needs queries\.jsonl and qrels\/<split>\.tsv/,
    );
  });
});
