import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ConfigurationError } from "@fastrag/bench-core";
import { fingerprintSamples } from "@fastrag/bench-core/internal";
import { parquetWriteBuffer } from "hyparquet-writer";
import { describe, expect, it } from "vitest";
import { rejection, tempDir, tempFile } from "./__fixtures__/helpers.js";
import { QADataset } from "./qa-dataset.js";

describe("QADataset.fromRecords", () => {
  it("coerces: a string becomes a one-element list, numeric ids become strings", () => {
    const dataset = QADataset.fromRecords([
      { id: 7, question: "Who?", answer: "Ada", relevant_ids: 12 },
      { id: "x", question: "What?", answer: ["a", 2], relevant_ids: ["d1", 3] },
    ]);
    expect(dataset.samples).toEqual([
      { id: "7", question: "Who?", expectedAnswers: ["Ada"], relevantIds: ["12"] },
      { id: "x", question: "What?", expectedAnswers: ["a", "2"], relevantIds: ["d1", "3"] },
    ]);
  });

  it("reads EvalSample-shaped (camelCase) objects as they are", () => {
    const samples = [
      {
        id: "q1",
        question: "Q",
        expectedAnswers: ["A"],
        relevantIds: ["c1"],
        relevance: { c1: 2, c2: 0 },
        metadata: { k: 1 },
      },
    ];
    expect(QADataset.fromRecords(samples).samples).toEqual(samples);
  });

  it("understands Hugging Face SQuAD answers ({text: [...]}) and SQuAD answer objects", () => {
    const dataset = QADataset.fromRecords([
      { question: "a", answers: { text: ["x", "y"], answer_start: [1, 5] } },
      { question: "b", answers: [{ text: "z", answer_start: 0 }] },
    ]);
    expect(dataset.samples.map((s) => s.expectedAnswers)).toEqual([["x", "y"], ["z"]]);
  });

  it("derives relevantIds from relevance (grade > 0) when no ids are given", () => {
    const [sample] = QADataset.fromRecords([
      { question: "q", relevance: { a: 2, b: 0, c: -1, d: 1 } },
    ]).samples;
    expect(sample?.relevantIds).toEqual(["a", "d"]);
    expect(sample?.relevance).toEqual({ a: 2, b: 0, c: -1, d: 1 });
  });

  it("keeps columns that match no field in metadata", () => {
    const [sample] = QADataset.fromRecords([
      { question: "q", response: "r", difficulty: 3 },
    ]).samples;
    expect(sample?.metadata).toEqual({ response: "r", difficulty: 3 });
  });

  it("warns when relevant_ids holds passage text (RAGAS contexts)", () => {
    const passage =
      "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris.";
    const dataset = QADataset.fromRecords([
      { question: "Where?", ground_truth: "Paris", contexts: [passage] },
    ]);
    expect(dataset.length).toBe(1);
    expect(dataset.warnings).toHaveLength(1);
    expect(dataset.warnings[0]).toMatch(
      /column "contexts" \(read as relevant_ids\) holds passage text/,
    );
    expect(dataset.warnings[0]).toMatch(/will score 0/);
    expect(dataset.warnings[0]).toMatch(/\{ relevantIds: "<column>" \}/);
    const ids = QADataset.fromRecords([{ question: "Where?", contexts: ["doc-1", "doc-2"] }]);
    expect(ids.warnings).toEqual([]);
    const silenced = QADataset.fromRecords([{ question: "Where?", contexts: [passage] }], {
      columns: {
        relevantIds: null,
      },
    });
    expect(silenced.warnings).toEqual([]);
    expect(silenced.samples[0]?.relevantIds).toEqual([]);
    expect(silenced.samples[0]?.metadata).toEqual({ contexts: [passage] });
  });

  it("reads an empty relevant-ids string in memory as no ids, as an empty text cell is", async () => {
    // Found by the fuzz test: `contexts: ""` became relevantIds [""], an id nothing can match.
    const inMemory = QADataset.fromRecords([{ question: "q", contexts: "", answers: "" }]);
    expect(inMemory.samples[0]?.relevantIds).toEqual([]);
    expect(
      QADataset.fromRecords([{ question: "r", relevant_ids: "" }]).samples[0]?.relevantIds,
    ).toEqual([]);
    // An empty answer is kept: SQuAD v2 grades unanswerable questions against it.
    expect(inMemory.samples[0]?.expectedAnswers).toEqual([""]);
    const path = join(await tempDir(), "empty-ids.json");
    await writeFile(path, JSON.stringify({ samples: [{ question: "q", relevant_ids: "" }] }));
    expect((await QADataset.load(path)).samples[0]?.relevantIds).toEqual([]);
  });

  it("names record and column of bad values", () => {
    expect(() => QADataset.fromRecords([{ question: "ok" }, { question: "  " }])).toThrow(
      'records: record 2, column "question": expected a question (a non-empty string), found the string "  "',
    );
    expect(() => QADataset.fromRecords([{ question: "q", relevant_ids: [{ id: 1 }] }])).toThrow(
      /record 1, column "relevant_ids": item 1 should be a string id, found an object/,
    );
    expect(() => QADataset.fromRecords([{ question: "q", id: true }])).toThrow(
      /column "id": expected an id/,
    );
    expect(() => QADataset.fromRecords([{ question: "q", relevance: { a: "high" } }])).toThrow(
      /grade of "a" should be a number/,
    );
    expect(() => QADataset.fromRecords([{ question: "q", relevance: { "": 1 } }])).toThrow(
      'records: record 1, column "relevance": grades an empty id',
    );
    expect(() => QADataset.fromRecords(["just a string"])).toThrow(/record 1: expected a record/);
    expect(() => QADataset.fromRecords(null as never)).toThrow(
      /expected an iterable of records, found null/,
    );
    expect(() =>
      QADataset.fromRecords([
        { question: "a", id: "1" },
        { question: "b", id: 1 },
      ]),
    ).toThrow(/record 2.*duplicate sample id "1" \(also sample 1\)/);
  });

  it("refuses Maps, Sets and Dates where an object of fields is expected, naming them", () => {
    // A relevance Map was read as an object with no keys: {}, its grades lost without a word.
    expect(() =>
      QADataset.fromRecords([{ question: "q", relevance: new Map([["doc-1", 2]]) }]),
    ).toThrow(
      'records: record 1, column "relevance": expected an object of id → grade, found a Map of 1 entry',
    );
    expect(() => QADataset.fromRecords([new Map([["question", "q"]])])).toThrow(
      "records: record 1: expected a record (an object of columns), found a Map of 1 entry",
    );
    expect(() => QADataset.fromRecords([{ question: "q", metadata: new Date(0) }])).toThrow(
      'records: record 1, column "metadata": expected an object, found a Date (1970-01-01T00:00:00.000Z)',
    );
    // An empty object has no keys to list (was "found an object with keys ; a mapping names…").
    expect(() => QADataset.fromRecords([{ question: "q", answer: {} }])).toThrow(
      /^records: record 1, column "answer": expected a string or a list of strings, found an object$/,
    );
    expect(() => QADataset.fromRecords([{ question: "q", answer: new Set(["a"]) }])).toThrow(
      /^records: record 1, column "answer": expected a string or a list of strings, found a Set of 1 item$/,
    );
  });

  it("refuses metadata nested beyond 1000 levels, or holding itself, instead of a RangeError", async () => {
    const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
    const message = (where: string) =>
      `${where}: a value nested more than 1000 levels deep (arrays or objects inside each other), or holding itself; flatten it (saving the dataset would overflow the stack)`;
    const jsonl = await tempFile(
      "eval.jsonl",
      `{"question": "q", "metadata": {"a": ${deep(999)}}}\n{"question": "r", "x": ${deep(100_000)}}\n`,
    );
    expect((await rejection(QADataset.load(jsonl))).message).toBe(
      message(`${jsonl}: line 2, column "x"`),
    );
    const csv = await tempFile("eval.csv", `question,metadata\nq,"{""a"": ${deep(100_000)}}"\n`);
    expect((await rejection(QADataset.load(csv))).message).toBe(
      message(`${csv}: row 1 (line 2), column "metadata"`),
    );
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => QADataset.fromRecords([{ question: "q", metadata: cycle }])).toThrow(
      message('records: record 1, column "metadata"'),
    );
    // 1000 levels in all (metadata → a → 999 arrays) still load, and save.
    const ok = await tempFile("ok.jsonl", `{"question": "q", "metadata": {"a": ${deep(998)}}}\n`);
    const dataset = await QADataset.load(ok);
    await dataset.save(join(await tempDir(), "saved.json"));
  });

  it("refuses a record that switches alias columns, or has two", () => {
    expect(() => QADataset.fromRecords([{ question: "a" }, { query: "b" }])).toThrow(
      /record 2: column "query" holds the question here, but earlier records used "question"/,
    );
    expect(() => QADataset.fromRecords([{ question: "a" }, { question: "b", query: "c" }])).toThrow(
      /record 2: both "question" and "query"/,
    );
    expect(() => QADataset.fromRecords([{ question: "a" }, { answer: "b" }])).toThrow(
      /record 2, column "question": expected a question/,
    );
  });

  it("keeps __proto__, constructor and prototype keys as plain data", async () => {
    const path = await tempFile(
      "evil.json",
      '{"samples": [{"question": "q", "__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 2}}, "prototype": 3,' +
        ' "relevance": {"__proto__": 1}, "metadata": {"hasOwnProperty": {"polluted": 4}, "toString": "c"}}]}',
    );
    const [sample] = (await QADataset.load(path)).samples;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const metadata = sample!.metadata as Record<string, unknown>;
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(Object.hasOwn(metadata, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(metadata, "__proto__")?.value).toEqual({ polluted: 1 });
    expect(Object.getOwnPropertyDescriptor(metadata, "constructor")?.value).toEqual({
      prototype: { polluted: 2 },
    });
    expect(metadata.hasOwnProperty).toEqual({ polluted: 4 });
    expect(metadata.toString).toBe("c");
    expect(metadata.prototype).toBe(3);
    // A column and a metadata key of one name, holding different values: refused, not one lost.
    const clash = await tempFile(
      "clash.json",
      '[{"question": "q", "__proto__": {"polluted": 1}, "metadata": {"__proto__": {"polluted": 4}}}]',
    );
    await expect(QADataset.load(clash)).rejects.toThrow(
      /column "__proto__": the metadata column also has a key "__proto__", with another value/,
    );
    expect(Object.hasOwn(sample!.relevance!, "__proto__")).toBe(true);
    expect(sample!.relevantIds).toEqual(["__proto__"]);

    const csv = await tempFile("evil.csv", "question,__proto__,constructor\nq,x,y\n");
    const [row] = (await QADataset.load(csv)).samples;
    const rowMeta = row!.metadata as Record<string, unknown>;
    expect(Object.getPrototypeOf(rowMeta)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(rowMeta, "__proto__")?.value).toBe("x");
    expect(rowMeta.constructor).toBe("y");

    const yaml = await tempFile("evil.yaml", "- question: q\n  __proto__: {polluted: 5}\n");
    const [doc] = (await QADataset.load(yaml)).samples;
    expect(Object.getOwnPropertyDescriptor(doc!.metadata, "__proto__")?.value).toEqual({
      polluted: 5,
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("is iterable and has a length", () => {
    const dataset = QADataset.fromRecords([{ question: "a" }, { question: "b" }]);
    expect(dataset.length).toBe(2);
    expect([...dataset].map((s) => s.question)).toEqual(["a", "b"]);
  });
});

describe("QADataset.save", () => {
  it("writes the native snake_case format, one sample per line, and reads it back", async () => {
    const dir = await tempDir();
    const path = join(dir, "out", "eval.json");
    const dataset = QADataset.fromRecords([
      {
        id: "q1",
        question: "Q?",
        answers: ["A"],
        relevant_ids: ["doc-3"],
        relevance: { "doc-3": 2 },
      },
      { question: "No id", answers: "x" },
    ]);
    await dataset.save(path);
    expect(await readFile(path, "utf8")).toBe(
      '{"samples": [\n' +
        '{"id":"q1","question":"Q?","expected_answers":["A"],"relevant_ids":["doc-3"],"relevance":{"doc-3":2},"metadata":{}},\n' +
        '{"question":"No id","expected_answers":["x"],"relevant_ids":[],"metadata":{}}\n' +
        "]}\n",
    );
    expect(await readdir(join(dir, "out"))).toEqual(["eval.json"]); // no temporary file left
    const again = await QADataset.load(path);
    expect(again.samples).toEqual([
      {
        id: "q1",
        question: "Q?",
        expectedAnswers: ["A"],
        relevantIds: ["doc-3"],
        relevance: { "doc-3": 2 },
        metadata: {},
      },
      { question: "No id", expectedAnswers: ["x"], relevantIds: [], metadata: {} },
    ]);
    expect(JSON.parse(JSON.stringify(dataset))).toEqual(JSON.parse(await readFile(path, "utf8")));
  });

  it("reloads with the fingerprint it was saved with, so results pair with either copy", async () => {
    // Absent metadata is written as {} (DESIGN.md §4) and read back as {}: metadata is not part
    // of the fingerprint, so the two copies stay the same dataset to a comparison.
    const path = join(await tempDir(), "eval.json");
    const dataset = QADataset.fromRecords([
      { id: "q1", question: "Q?", answers: ["A"], relevance: { "doc-3": 2, "10": 0, d: 1 } },
      { question: "No id", answers: "x", metadata: { split: "dev" } },
    ]);
    await dataset.save(path);
    const again = await QADataset.load(path);
    expect(dataset.samples[0]?.metadata).toBeUndefined();
    expect(again.samples[0]?.metadata).toEqual({});
    expect(fingerprintSamples(again.samples)).toBe(fingerprintSamples(dataset.samples));
  });

  it("refuses a path load would not read back as the native format", async () => {
    const dir = await tempDir();
    for (const name of ["eval.jsonl", "eval.csv", "eval"]) {
      const path = join(dir, name);
      await expect(new QADataset([]).save(path)).rejects.toThrow(
        // The temporary folder's path may be clipped in the message: only its start is known.
        /^QADataset\.save: expected a path that ends in \.json \(the native format is JSON, .*\), found the string "[^"]+"; name the file \*\.json$/,
      );
      expect(await readdir(dir)).toEqual([]);
    }
    await new QADataset([]).save(join(dir, "EVAL.JSON"));
    expect(await readdir(dir)).toEqual(["EVAL.JSON"]);
  });

  it("does not warn that judgments are missing when a relevance column gives them", async () => {
    const path = await tempFile(
      "graded.jsonl",
      '{"id": "q1", "question": "what is bm25?", "relevance": {"d1": 2, "d2": 1, "d3": 0}}\n',
    );
    const dataset = await QADataset.load(path);
    expect(dataset.samples[0]?.relevantIds).toEqual(["d1", "d2"]);
    expect(dataset.warnings).toEqual([]);
  });

  it("writes an empty dataset as valid JSON", async () => {
    const path = join(await tempDir(), "empty.json");
    await new QADataset([]).save(path);
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual({ samples: [] });
    expect((await QADataset.load(path)).length).toBe(0);
  });
});

describe("QADataset.load dispatch", () => {
  it("lists the supported formats for anything else", async () => {
    const path = await tempFile("eval.txt", "question\nq\n");
    const error = await rejection(QADataset.load(path));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /eval\.txt: unsupported dataset format; expected \.json .*\.jsonl, \.csv, \.tsv, \.yaml\/\.yml, \.parquet, a BEIR directory .*, or TREC qrels/,
    );
  });

  it("reports a missing file as a ConfigurationError", async () => {
    const error = await rejection(QADataset.load(join(await tempDir(), "missing.json")));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/missing\.json: no such file/);
  });
});

describe("a missing file", () => {
  it("names the file a relative path was looked for in", async () => {
    const error = await QADataset.load("no-such-eval.jsonl").catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `no-such-eval.jsonl: no such file or directory (looked for ${resolve("no-such-eval.jsonl")})`,
    );
    const absolute = resolve("no-such-eval.jsonl");
    await expect(QADataset.load(absolute)).rejects.toThrow(/no such file or directory$/);
  });
});

describe("options", () => {
  it("refuses an unknown option, and says where a column mapping goes", async () => {
    const path = await tempFile("eval.csv", "prompt,answer\nWho?,x\n");
    const mapping = await rejection(QADataset.load(path, { question: "prompt" } as never));
    expect(mapping).toMatchObject({ kind: "invalid-option", option: "question" });
    expect(mapping.message).toBe(
      'QADataset.load: unknown option "question"; a column mapping goes in the columns option: { columns: { question: "prompt" } }',
    );
    expect(await rejection(QADataset.load(path, { splt: "dev" } as never))).toMatchObject({
      kind: "invalid-option",
      option: "splt",
    });
    const loaded = await QADataset.load(path, { columns: { question: "prompt" } });
    expect(loaded.samples[0]?.question).toBe("Who?");
    expect(() => QADataset.fromRecords([], { question: "prompt" } as never)).toThrow(
      /QADataset\.fromRecords: unknown option "question"/,
    );
  });
});

describe("a misspelled gold column", () => {
  it("is kept as metadata with a warning naming the field and the mapping", () => {
    const dataset = QADataset.fromRecords([
      { question: "q", expected_anwsers: ["a"], relevant_ids: ["d"] },
    ]);
    expect(dataset.samples[0]?.metadata).toEqual({ expected_anwsers: ["a"] });
    expect(dataset.warnings).toEqual([
      'records: column "expected_anwsers" was kept as metadata, but its name is close to "expected_answers" (expected answers). If it holds the expected answers, map it: { expectedAnswers: "expected_anwsers" }',
    ]);
    // Mapped, the warning goes, and so it does when the field was found under its own name.
    expect(
      QADataset.fromRecords([{ question: "q", expected_anwsers: ["a"] }], {
        columns: {
          expectedAnswers: "expected_anwsers",
        },
      }).warnings,
    ).toEqual([]);
    expect(
      QADataset.fromRecords([{ question: "q", answers: ["a"], expected_anwsers: ["b"] }]).warnings,
    ).toEqual([]);
  });

  it("is told from another word", () => {
    const warnings = (records: Record<string, unknown>[]) =>
      QADataset.fromRecords(records).warnings.filter((w) => w.includes("is close to"));
    expect(warnings([{ question: "q", incorrect_answer: "x", relevant_ids: ["d"] }])).toEqual([]);
    expect(warnings([{ question: "q", answers: ["a"], relevant_id: ["d"] }])).toEqual([
      'records: column "relevant_id" was kept as metadata, but its name is close to "relevant_ids" (relevant ids). If it holds the relevant ids, map it: { relevantIds: "relevant_id" }',
    ]);
    expect(warnings([{ question: "q", GroundTruth: "a", relevant_ids: ["d"] }])).toHaveLength(1);
    // SQuAD's and HotpotQA's passage column is no misspelled "contexts"; sample_idx no sample id;
    // and graded judgments give the relevant ids.
    expect(warnings([{ question: "q", answers: ["a"], context: "Paris is…" }])).toEqual([]);
    expect(warnings([{ question: "q", answers: ["a"], sample_idx: 3 }])).toEqual([]);
    expect(warnings([{ question: "q", relevance: { d: 1 }, relevant_id: "d" }])).toEqual([]);
  });
});

describe("grades written as text", () => {
  it("reads decimal numbers and refuses hexadecimal, binary and octal ones", async () => {
    const dataset = QADataset.fromRecords([
      {
        question: "q",
        relevance: { a: "2", b: " -1 ", c: "0.5", d: "1e1", e: "+3", f: ".5" },
      },
    ]);
    expect(dataset.samples[0]?.relevance).toEqual({ a: 2, b: -1, c: 0.5, d: 10, e: 3, f: 0.5 });
    for (const text of ["0x10", "0b1", "0o7", "1_000", "2 3"]) {
      expect(() => QADataset.fromRecords([{ question: "q", relevance: { d1: text } }])).toThrow(
        `grade of "d1" should be a number, found the string ${JSON.stringify(text)}`,
      );
    }
    // A CSV cell holding grades as JSON text: the same rule.
    const csv = await tempFile("hex.csv", 'question,relevance\nq,"{""d1"": ""0x10""}"\n');
    expect((await rejection(QADataset.load(csv))).message).toMatch(
      /row 1 \(line 2\), column "relevance": grade of "d1" should be a number, found the string "0x10"/,
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
