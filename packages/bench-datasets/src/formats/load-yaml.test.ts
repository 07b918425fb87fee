import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { rejection, tempFile } from "../__fixtures__/helpers.js";
import { QADataset } from "../qa-dataset.js";

const lines = (...rows: string[]) => `${rows.join("\n")}\n`;

describe(".yaml / .yml", () => {
  it("refuses a stream of several documents, naming the line of the second", async () => {
    const path = await tempFile(
      "multi.yaml",
      "- question: one\n  answer: a\n---\n- question: two\n  answer: b\n- question: three\n  answer: c\n",
    );
    expect((await rejection(QADataset.load(path))).message).toMatch(
      new RegExp(
        `^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: line 3: a second YAML document starts here \\(the file holds 2\\)`,
      ),
    );
    // One document, even with an explicit start marker, loads as before.
    const one = await tempFile("one.yaml", "---\n- question: one\n  answer: a\n");
    expect((await QADataset.load(one)).samples).toHaveLength(1);
  });

  it("reads a list of records or {samples: [...]}", async () => {
    const list = await tempFile(
      "eval.yaml",
      "- question: Who?\n  answers: [Ada]\n  relevant_ids: [1, d2]\n",
    );
    expect((await QADataset.load(list)).samples).toEqual([
      { question: "Who?", expectedAnswers: ["Ada"], relevantIds: ["1", "d2"] },
    ]);
    const native = await tempFile(
      "eval.yml",
      "samples:\n  - id: q1\n    question: What?\n    expected_answers: 42\n",
    );
    expect((await QADataset.load(native)).samples).toEqual([
      { id: "q1", question: "What?", expectedAnswers: ["42"], relevantIds: [] },
    ]);
  });

  it("keeps integers with a leading zero, or beyond 2^53, as written", async () => {
    const path = await tempFile(
      "eval.yaml",
      [
        "- id: 007",
        "  question: Who?",
        "  answers: [0042]",
        "  relevant_ids: [0012, 12345678901234567890, 7]",
        "  relevance: {0012: 2, 12345678901234567890: 1, 7: 03}",
        "  metadata: {zip: 02134, big: 12345678901234567890, count: 3, ratio: 1.50, tagged: !!int 010, quoted: '08'}",
        "- id: -00",
        "  question: 0100",
        "  answers: [x]",
      ].join("\n"),
    );
    const dataset = await QADataset.load(path);
    expect(dataset.samples).toEqual([
      {
        id: "007",
        question: "Who?",
        expectedAnswers: ["0042"],
        relevantIds: ["0012", "12345678901234567890", "7"],
        relevance: { "0012": 2, "12345678901234567890": 1, "7": 3 },
        metadata: {
          zip: "02134",
          big: "12345678901234567890",
          count: 3,
          ratio: 1.5,
          tagged: 10,
          quoted: "08",
        },
      },
      { id: "-00", question: "0100", expectedAnswers: ["x"], relevantIds: [] },
    ]);
  });

  it("names line and column of invalid YAML", async () => {
    const path = await tempFile("eval.yaml", "- question: a\n- question: [unclosed\n");
    const error = await rejection(QADataset.load(path));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/eval\.yaml: line \d+, column \d+: invalid YAML/);
  });

  it("refuses duplicate keys and alias bombs instead of hanging", async () => {
    const dup = await tempFile("eval.yaml", "- question: a\n  question: b\n");
    expect((await rejection(QADataset.load(dup))).message).toMatch(
      /line 2, column 3: invalid YAML/,
    );
    let bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
    for (let i = 0; i < 9; i++)
      bomb += `${"bcdefghij"[i]}: &${"bcdefghij"[i]} [${Array(10)
        .fill(`*${i === 0 ? "a" : "bcdefghij"[i - 1]}`)
        .join(", ")}]\n`;
    const path = await tempFile("bomb.yaml", bomb);
    const error = await rejection(QADataset.load(path));
    expect(ConfigurationError.isInstance(error)).toBe(true);
  });

  it("does not execute tags", async () => {
    const path = await tempFile(
      "eval.yaml",
      '- question: !!js/function "function () { globalThis.pwned = 1 }"\n',
    );
    const dataset = await QADataset.load(path);
    expect(dataset.samples[0]?.question).toBe("function () { globalThis.pwned = 1 }");
    expect(dataset.warnings[0]).toMatch(/eval\.yaml: line 1, column 13: .*Unresolved tag/);
    // And, as the file has neither answers nor ids, a warning that nothing can be scored.
    expect(dataset.warnings).toHaveLength(2);
    expect(dataset.warnings[1]).toMatch(/no column of expected answers or relevant ids was found/);
    expect((globalThis as Record<string, unknown>).pwned).toBeUndefined();
  });

  it("reads the aliases PyYAML writes for a dict or list that many records share", async () => {
    // yaml.safe_dump(samples) anchors every object seen twice: 1500 records sharing one metadata
    // dict and one answers list give 2998 aliases, which yaml's alias-count limit refused.
    let text =
      "- id: q0\n  question: Q0\n  expected_answers: &id001\n  - ''\n  metadata: &id002\n    split: test\n";
    for (let i = 1; i < 1500; i++)
      text += `- id: q${i}\n  question: Q${i}\n  expected_answers: *id001\n  metadata: *id002\n`;
    const dataset = await QADataset.load(await tempFile("eval.yaml", text));
    expect(dataset.length).toBe(1500);
    expect(dataset.samples[1499]).toEqual({
      id: "q1499",
      question: "Q1499",
      expectedAnswers: [""],
      relevantIds: [],
      metadata: { split: "test" },
    });
  });

  it("refuses a long list aliased by every record (a quadratic alias bomb)", async () => {
    // 230 KB of YAML that expands to 10^8 values: loading took seconds per MB of file and saving
    // wrote GBs. Spelled out: 1 + (7 + 100000) + 999 × 7; expanded: 999 more copies of 100001.
    let text = `- question: q0\n  metadata: {l: &a [${Array(100_000).fill("x").join(",")}]}\n`;
    for (let i = 1; i < 1000; i++) text += `- question: q${i}\n  metadata: {l: *a}\n`;
    const path = await tempFile("eval.yaml", text);
    const error = await rejection(QADataset.load(path));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      `${path}: line 4, column 17 (the first alias): invalid YAML: Excessive alias count: the aliases expand the 107001 values the file spells out to 100007001, more than 10 times as many plus 100000 (an alias bomb); write the data out`,
    );
  });

  it("refuses an alias inside its own anchor (a cycle) instead of overflowing the stack", async () => {
    const path = await tempFile("eval.yaml", "- question: q\n  metadata: &m {self: *m}\n");
    const error = await rejection(QADataset.load(path));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      `${path}: line 2, column 23: invalid YAML: the alias *m is inside the collection that &m names, so it would hold itself (a cycle), which a dataset cannot hold`,
    );
  });

  it("merges << keys as PyYAML's safe_load does", async () => {
    const path = await tempFile(
      "eval.yaml",
      lines(
        "- &base {question: q1, answer: a, relevant_ids: [d1]}",
        "- <<: *base",
        "  question: q2",
      ),
    );
    const dataset = await QADataset.load(path);
    expect(dataset.samples).toEqual([
      { question: "q1", expectedAnswers: ["a"], relevantIds: ["d1"] },
      // Before, "<<" was a plain key: the answer and ids went to metadata["<<"].
      { question: "q2", expectedAnswers: ["a"], relevantIds: ["d1"] },
    ]);
    expect(dataset.warnings).toEqual([]);
  });
});
