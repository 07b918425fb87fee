import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { rejection, tempFile } from "../__fixtures__/helpers.js";
import { QADataset } from "../qa-dataset.js";

const lines = (...rows: string[]) => `${rows.join("\n")}\n`;

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
