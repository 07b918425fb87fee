import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rejection, sharedData, tempDir, tempFile } from "../__fixtures__/helpers.js";
import { QADataset } from "../qa-dataset.js";
import { loadCorpus } from "./corpus.js";

describe("loadCorpus", () => {
  it("reads a BEIR corpus.jsonl, and a BEIR directory holding one", async () => {
    const dir = await tempDir();
    await mkdir(join(dir, "qrels"));
    await writeFile(
      join(dir, "corpus.jsonl"),
      '{"_id": "d1", "title": "One", "text": "first passage"}\n{"_id": 2, "text": "second"}\n',
    );
    const expected = [
      { id: "d1", title: "One", text: "first passage" },
      { id: "2", title: "", text: "second" },
    ];
    expect(await loadCorpus(join(dir, "corpus.jsonl"))).toEqual(expected);
    expect(await loadCorpus(dir)).toEqual(expected);
  });

  it("reads CSV passages with alias columns", async () => {
    const path = await tempFile("p.csv", 'doc_id,contents\nx,"a, b"\ny,c\n');
    expect(await loadCorpus(path)).toEqual([
      { id: "x", title: "", text: "a, b" },
      { id: "y", title: "", text: "c" },
    ]);
  });

  it("turns SQuAD paragraphs into passages whose ids the questions name", async () => {
    const path = sharedData("squad-v2-sample/dev-v2.0.sample.json");
    const passages = await loadCorpus(path);
    expect(passages).toHaveLength(87);
    expect(passages[0]?.id).toBe("Normans#0");
    expect(passages[0]?.title).toBe("Normans");
    expect(passages[0]?.text).toMatch(
      /^The Normans \(Norman: Nourmands; French: Normands; Latin: Normanni\)/,
    );
    const ids = new Set(passages.map((p) => p.id));
    const dataset = await QADataset.load(path);
    expect(dataset.samples.every((s) => s.relevantIds.every((id) => ids.has(id)))).toBe(true);
  });

  it("names the line and column of bad passages", async () => {
    const noText = await tempFile(
      "c.jsonl",
      '{"_id": "a", "text": "x"}\n{"_id": "b", "text": 3}\n',
    );
    expect((await rejection(loadCorpus(noText))).message).toBe(
      `${noText}: line 2, column "text": expected the passage text (a string), found the number 3`,
    );
    const dup = await tempFile("c.jsonl", '{"_id": "a", "text": "x"}\n{"_id": "a", "text": "y"}\n');
    expect((await rejection(loadCorpus(dup))).message).toMatch(/line 2: duplicate passage id "a"/);
    const noId = await tempFile("c.jsonl", '{"name": "a", "text": "x"}\n');
    expect((await rejection(loadCorpus(noId))).message).toMatch(
      /line 1: no passage id column; tried "_id", "id"/,
    );
    const both = await tempFile("c.jsonl", '{"id": "a", "text": "x", "content": "y"}\n');
    expect((await rejection(loadCorpus(both))).message).toMatch(/both "text" and "content"/);
    expect((await rejection(loadCorpus(await tempFile("c.txt", "")))).message).toMatch(
      /unsupported corpus format/,
    );
  });
});
