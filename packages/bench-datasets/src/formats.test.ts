import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ConfigurationError } from "@fastrag/bench-core";
import { parquetWriteBuffer } from "hyparquet-writer";
import { describe, expect, it } from "vitest";
import { rejection, tempDir, tempFile } from "./__fixtures__/helpers.js";
import { QADataset } from "./qa-dataset.js";

const lines = (...rows: string[]) => `${rows.join("\n")}\n`;

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

describe(".csv / .tsv", () => {
  it("reads list cells written as pandas writes them, and warns of brackets it cannot read", async () => {
    const path = await tempFile(
      "pandas.csv",
      [
        "question,relevant_ids,answers",
        `"Who?","['doc-1', 'doc-7']","['Shakespeare', ""O'Neill's""]"`,
        `"What?","[""doc-2"", ""doc-3"",]","[citation needed]"`,
        `"When?","[doc-3]",1850`,
      ].join("\n"),
    );
    const dataset = await QADataset.load(path);
    expect(dataset.samples.map((s) => [s.relevantIds, s.expectedAnswers])).toEqual([
      [
        ["doc-1", "doc-7"],
        ["Shakespeare", "O'Neill's"],
      ],
      [["doc-2", "doc-3"], ["[citation needed]"]],
      [["[doc-3]"], ["1850"]],
    ]);
    // Once per column, naming the first cell it could not read.
    expect(dataset.warnings).toHaveLength(2);
    expect(dataset.warnings[0]).toMatch(
      /row 2 \(line 3\), column "answers": the string "\[citation needed\]" looks like a list but is neither JSON nor a Python list, so it was read as one answer/,
    );
    expect(dataset.warnings[1]).toMatch(
      /row 3 \(line 4\), column "relevant_ids": the string "\[doc-3\]" looks like a list .* read as one id; .*or the ids will match nothing/,
    );
  });

  it("parses cells holding JSON arrays, keeps other cells as strings", async () => {
    const path = await tempFile(
      "eval.csv",
      lines(
        "id,question,answers,relevant_ids,notes",
        '1,Who?,"[""Ada"", ""Grace""]","[""d1"",""d2""]",keep',
        "2,What?,[citation needed],d3,",
      ),
    );
    expect((await QADataset.load(path)).samples).toEqual([
      {
        id: "1",
        question: "Who?",
        expectedAnswers: ["Ada", "Grace"],
        relevantIds: ["d1", "d2"],
        metadata: { notes: "keep" },
      },
      {
        id: "2",
        question: "What?",
        expectedAnswers: ["[citation needed]"],
        relevantIds: ["d3"],
        metadata: { notes: "" },
      },
    ]);
  });

  it("reads answers objects as the JSON loaders do: JSON, and Hugging Face's CSV export", async () => {
    // `Dataset.to_csv` of SQuAD writes pandas' str() of each answers struct: NumPy arrays,
    // wrapped past 75 characters.
    const hf =
      "{'text': array(['Denver Broncos', 'Denver Broncos', 'the Denver Broncos'],\n      dtype=object), 'answer_start': array([177, 177, 173], dtype=int32)}";
    const csv = await tempFile(
      "squad.csv",
      [
        "id,question,answers",
        `a,Who won?,"{""text"": [""Denver Broncos"", ""Broncos""], ""answer_start"": [177, 249]}"`,
        `b,Unanswerable?,"{""text"": [], ""answer_start"": []}"`,
        `c,Who won again?,"${hf}"`,
        `d,Impossible?,"{'text': array([], dtype=object), 'answer_start': array([], dtype=int32)}"`,
        `e,Escapes?,"{'text': [""O'Neill"", 'zero\\u200bwidth'], 'answer_start': [0, 9]}"`,
        `f,A set?,"{1, 2}"`,
      ].join("\n"),
    );
    const dataset = await QADataset.load(csv);
    expect(dataset.samples.map((s) => s.expectedAnswers)).toEqual([
      ["Denver Broncos", "Broncos"],
      [""],
      ["Denver Broncos", "Denver Broncos", "the Denver Broncos"],
      [""],
      ["O'Neill", "zero\u200bwidth"],
      ["{1, 2}"],
    ]);
    expect(dataset.warnings).toEqual([
      `${csv}: row 6 (line 8), column "answers": the string "{1, 2}" looks like an object but is not an answers object ({"text": ["a", "b"]}, in JSON or Python), so it was read as one answer. Later cells of this column are not reported`,
    ]);
    // The same objects in JSONL, and in a TSV, give the same answers.
    const jsonl = await tempFile(
      "squad.jsonl",
      lines(
        '{"question": "Who won?", "answers": {"text": ["Denver Broncos", "Broncos"], "answer_start": [177, 249]}}',
        '{"question": "Unanswerable?", "answers": {"text": [], "answer_start": []}}',
      ),
    );
    const tsv = await tempFile(
      "squad.tsv",
      lines(
        "question\tanswers",
        'Who won?\t"{""text"": [""Denver Broncos"", ""Broncos""], ""answer_start"": [177, 249]}"',
        "Unanswerable?\t{'text': array([], dtype=object), 'answer_start': array([], dtype=int32)}",
      ),
    );
    for (const path of [jsonl, tsv]) {
      expect((await QADataset.load(path)).samples.map((s) => s.expectedAnswers)).toEqual([
        ["Denver Broncos", "Broncos"],
        [""],
      ]);
    }
    // An answers object whose text is neither a string nor a list: the message names the text.
    const bad = await tempFile(
      "bad.csv",
      lines("question,answers", `q,"{'text': None, 'answer_start': []}"`),
    );
    expect((await rejection(QADataset.load(bad))).message).toBe(
      `${bad}: row 1 (line 2), column "answers": an answers object's "text" should be a string or a list of strings, found null`,
    );
  });

  it("reads SQuAD flattened by Hugging Face (answers.text), as NumPy's str() writes its arrays", async () => {
    // `ds.flatten().to_pandas().to_csv()`: each list cell is str() of a NumPy array (items apart
    // by spaces, wrapped with a newline past 75 characters), and answers.answer_start beside it.
    const wrapped =
      "['Santa Clara, California' \"Levi's Stadium\"\n 'Levi\\'s Stadium in the San Francisco Bay Area at Santa Clara, California.']";
    const csv = await tempFile(
      "flat.csv",
      [
        "id,question,answers.text,answers.answer_start",
        `a,Who won?,['Denver Broncos' 'Denver Broncos' 'the Denver Broncos'],[177 177 173]`,
        `b,Impossible?,[],[]`,
        `c,Where?,"${wrapped.replaceAll('"', '""')}",[403 355 355]`,
      ].join("\n"),
    );
    const dataset = await QADataset.load(csv);
    expect(dataset.warnings).toEqual([]);
    expect(dataset.samples.map((s) => [s.expectedAnswers, s.metadata])).toEqual([
      [
        ["Denver Broncos", "Denver Broncos", "the Denver Broncos"],
        { "answers.answer_start": "[177 177 173]" },
      ],
      // Unanswerable: graded against the empty answer, as {"text": [], "answer_start": []} is.
      [[""], { "answers.answer_start": "[]" }],
      [
        [
          "Santa Clara, California",
          "Levi's Stadium",
          "Levi's Stadium in the San Francisco Bay Area at Santa Clara, California.",
        ],
        { "answers.answer_start": "[403 355 355]" },
      ],
    ]);
    // The same in JSONL (`to_json`), where the lists are JSON.
    const jsonl = await tempFile(
      "flat.jsonl",
      lines(
        '{"question": "Who won?", "answers.text": ["Denver Broncos"], "answers.answer_start": [177]}',
        '{"question": "Impossible?", "answers.text": [], "answers.answer_start": []}',
      ),
    );
    expect((await QADataset.load(jsonl)).samples.map((s) => s.expectedAnswers)).toEqual([
      ["Denver Broncos"],
      [""],
    ]);
    // Without answers.answer_start, an empty list is no answer at all, as in any other column.
    const bare = await tempFile("bare.csv", lines("question,answers.text", "q,[]"));
    expect((await QADataset.load(bare)).samples[0]?.expectedAnswers).toEqual([]);
  });

  it("reads NumPy 2 scalar reprs in list cells, and refuses lists that mix separators", async () => {
    const csv = await tempFile(
      "numpy.csv",
      [
        "question,answers,relevant_ids",
        `q1,"[np.str_('Ada'), np.str_(""O'Neill"")]","[np.int64(12), np.str_('d-7')]"`,
        `q2,['a' 'b'],"['d1', 'd2' 'd3']"`,
        `q3,"[np.str_('x') np.str_('y')]",[np.float64(1.5)]`,
      ].join("\n"),
    );
    const dataset = await QADataset.load(csv);
    expect(dataset.samples.map((s) => [s.expectedAnswers, s.relevantIds])).toEqual([
      [
        ["Ada", "O'Neill"],
        ["12", "d-7"],
      ],
      // A comma and a bare space in one list is neither Python's repr nor NumPy's str(): one id.
      [["a", "b"], ["['d1', 'd2' 'd3']"]],
      [["x", "y"], ["1.5"]],
    ]);
    expect(dataset.warnings).toHaveLength(1);
    expect(dataset.warnings[0]).toMatch(/row 2 \(line 3\), column "relevant_ids": the string/);
  });

  it("reads SQuAD's answers as pandas writes them after json_normalize: a Python list of dicts", async () => {
    // pd.json_normalize(squad["data"], ["paragraphs", "qas"]).to_csv(): each answers cell is
    // str() of a list of dicts, read as the same list in JSON is.
    const csv = await tempFile(
      "qas.csv",
      [
        ",question,id,answers,is_impossible",
        `0,Which NFL team?,56be4db0acb8001400a502ec,"[{'answer_start': 177, 'text': 'Denver Broncos'}, {'answer_start': 177, 'text': ""Denver's Broncos""}]",False`,
        `1,Who?,56be4db0acb8001400a502ed,"[{""answer_start"": 249, ""text"": ""Carolina Panthers""}]",False`,
        `2,Why?,56be4db0acb8001400a502ee,"[{'answer_start': 1}]",False`,
      ].join("\n"),
    );
    const dataset = await QADataset.load(csv);
    expect(dataset.samples.map((s) => s.expectedAnswers)).toEqual([
      ["Denver Broncos", "Denver's Broncos"],
      ["Carolina Panthers"],
      // A dict without a text is no answers dict: one literal answer, and a warning.
      ["[{'answer_start': 1}]"],
    ]);
    expect(dataset.warnings).toHaveLength(1);
    expect(dataset.warnings[0]).toMatch(/row 3 \(line 4\), column "answers": the string/);
  });

  it("keeps the digits of integer ids in list cells: leading zeros, and beyond 2^53", async () => {
    // str() of a NumPy int64 array and of a Python list of ints (valid JSON too, which would
    // round 12345678901234567890): the ids as written, never rounded or refused.
    const csv = await tempFile(
      "ids.csv",
      [
        "question,relevant_ids",
        "q1,[9007199254740993 7]",
        `q2,"[12345678901234567890, 3]"`,
        `q3,"[0012, 0034]"`,
      ].join("\n"),
    );
    const dataset = await QADataset.load(csv);
    expect(dataset.warnings).toEqual([]);
    expect(dataset.samples.map((s) => s.relevantIds)).toEqual([
      ["9007199254740993", "7"],
      ["12345678901234567890", "3"],
      ["0012", "0034"],
    ]);
  });

  it("reads relevance and metadata cells holding JSON objects", async () => {
    const path = await tempFile(
      "eval.csv",
      lines("question,relevance,metadata", 'q,"{""a"": 2, ""b"": 0}","{""k"": 1}"'),
    );
    expect((await QADataset.load(path)).samples).toEqual([
      {
        question: "q",
        expectedAnswers: [],
        relevantIds: ["a"],
        relevance: { a: 2, b: 0 },
        metadata: { k: 1 },
      },
    ]);
  });

  it("names row, line and column of a ragged row", async () => {
    const path = await tempFile(
      "eval.csv",
      lines("question,answer", "a,1", '"multi\nline",2', "c,3,extra"),
    );
    expect((await rejection(QADataset.load(path))).message).toBe(
      `${path}: row 3 (line 5): expected 2 cells (one per header column), found 3`,
    );
  });

  it("names the row of an empty question and of an unterminated quote", async () => {
    const empty = await tempFile("eval.csv", lines("question,answer", "a,1", ",2"));
    expect((await rejection(QADataset.load(empty))).message).toBe(
      `${empty}: row 2 (line 3), column "question": expected a question (a non-empty string), found the string ""`,
    );
    const quote = await tempFile("eval.csv", lines("question,answer", 'a,"open'));
    const error = await rejection(QADataset.load(quote));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/eval\.csv: row 1 \(line 2\): malformed CSV: /);
  });

  it("reads a file that mixes \\n and \\r\\n line breaks without a stray \\r", async () => {
    // A header written by hand with "\n", rows by Python's csv.writer ("\r\n"): papaparse split
    // at "\n" only, and every last cell kept its "\r" (ids that matched nothing).
    const lfHeader = await tempFile(
      "eval.csv",
      'id,question,relevant_ids\n1,"Who,\r\nreally?",doc-1\r\n2,What?,doc-2\r\n\r\n',
    );
    const expected = [
      { id: "1", question: "Who,\nreally?", expectedAnswers: [], relevantIds: ["doc-1"] },
      { id: "2", question: "What?", expectedAnswers: [], relevantIds: ["doc-2"] },
    ];
    expect((await QADataset.load(lfHeader)).samples).toEqual(expected);
    // The other way round, "\n" rows after a "\r\n" header ran together into one ragged row.
    const rows = "id\tquestion\trelevant_ids\r\n1\tWho?\tdoc-1\n2\tWhat?\tdoc-2\n";
    const crlfHeader = await tempFile("eval.tsv", rows);
    expect((await QADataset.load(crlfHeader)).samples.map((s) => s.relevantIds)).toEqual([
      ["doc-1"],
      ["doc-2"],
    ]);
    const bad = await tempFile("bad.tsv", `${rows}3\t\tdoc-3\n`);
    expect((await rejection(QADataset.load(bad))).message).toBe(
      `${bad}: row 3 (line 4), column "question": expected a question (a non-empty string), found the string ""`,
    );
  });

  it("refuses an empty file and a duplicated header column", async () => {
    expect((await rejection(QADataset.load(await tempFile("e.csv", "")))).message).toMatch(
      /empty CSV: expected a header row/,
    );
    const dup = await tempFile("d.csv", lines("question,x,x", "q,1,2"));
    expect((await rejection(QADataset.load(dup))).message).toMatch(
      /header: column "x" appears twice/,
    );
  });

  it("reads tab-separated files", async () => {
    const path = await tempFile("eval.tsv", lines("qid\tquery\tanswer", "7\tWho, really?\tme"));
    expect((await QADataset.load(path)).samples).toEqual([
      { id: "7", question: "Who, really?", expectedAnswers: ["me"], relevantIds: [] },
    ]);

    // As pandas' to_csv(sep="\t") writes it (Python's csv, QUOTE_MINIMAL): fields holding a
    // quote, a tab or a newline are quoted.
    const pandas = await tempFile(
      "pandas.tsv",
      lines("question\tanswer", '"""Hi"" she said"\t"a\tb"', '"two\nlines"\tsaid "x"'),
    );
    expect(
      (await QADataset.load(pandas)).samples.map((s) => [s.question, s.expectedAnswers]),
    ).toEqual([
      ['"Hi" she said', ["a\tb"]],
      ["two\nlines", ['said "x"']],
    ]);
    // A TSV that never quotes trips on a field starting with a quote: say how it is read.
    const bare = await tempFile("bare.tsv", lines("question\tanswer", '"Hi" she said\tx'));
    expect((await rejection(QADataset.load(bare))).message).toBe(
      `${bare}: row 1 (line 2): malformed TSV: Trailing quote on quoted field is malformed; a field starting with " is read as quoted, as pandas and Excel write TSV: quote such a field whole and double its quotes (\`"""Hi"" she said"\` for \`"Hi" she said\`)`,
    );
  });
});

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
    expect(
      (await QADataset.load(dir, undefined, { split: "dev" })).samples.map((s) => s.id),
    ).toEqual(["q3"]);
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

describe("a file without records", () => {
  it("loads as 0 samples in every format; one that is no document of its format is an error", async () => {
    const dir = await tempDir();
    await mkdir(join(dir, "beir", "qrels"), { recursive: true });
    await writeFile(join(dir, "beir", "queries.jsonl"), "");
    await writeFile(join(dir, "beir", "qrels", "test.tsv"), "query-id\tcorpus-id\tscore\n");
    const parquet = parquetWriteBuffer({
      columnData: [{ name: "question", data: [], type: "STRING" }],
    });
    const empty: [string, string | Uint8Array][] = [
      ["header.csv", "question,answers\n"],
      ["header.tsv", "question\tanswers\n"],
      ["array.json", "[]"],
      ["native.json", '{"samples": []}'],
      ["blank.jsonl", "\n"],
      ["list.yaml", "[]\n"],
      ["native.yaml", "samples: []\n"],
      ["rows.parquet", new Uint8Array(parquet)],
      ["qrels.txt", ""],
    ];
    for (const [name, content] of empty) {
      expect((await QADataset.load(await tempFile(name, content))).length).toBe(0);
    }
    expect((await QADataset.load(join(dir, "beir"))).length).toBe(0);
    for (const [name, message] of [
      ["nothing.csv", /line 1: empty CSV: expected a header row/],
      ["nothing.json", /line 1, column 1: invalid JSON at the end of the input/],
      ["nothing.yaml", /the top level: expected the native format .*found null/],
    ] as const) {
      const error = await rejection(QADataset.load(await tempFile(name, "")));
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(message);
    }
  });
});
