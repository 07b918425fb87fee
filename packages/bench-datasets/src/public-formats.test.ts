import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ConfigurationError } from "@fastrag/bench-core";
import { parquetWriteBuffer } from "hyparquet-writer";
import { describe, expect, it } from "vitest";
import { rejection, tempDir, tempFile } from "./__fixtures__/helpers.js";
import { loadCorpus } from "./formats/corpus.js";
import { QADataset } from "./qa-dataset.js";
import { TrecRun } from "./trec/trec-run.js";

// Small replicas of public benchmark files, byte for byte in their published shapes (field names,
// nesting, headers, separators, quoting), loaded through the public API.

const lines = (...rows: string[]) => `${rows.join("\n")}\n`;
const jsonl = (...records: unknown[]) => lines(...records.map((r) => JSON.stringify(r)));

/** A directory holding `files` (path → content), subdirectories made as needed. */
async function directory(files: Record<string, string | Uint8Array>): Promise<string> {
  const dir = await tempDir("public-");
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, ".."), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

async function message(promise: Promise<unknown>): Promise<string> {
  const error = await rejection(promise);
  expect(ConfigurationError.isInstance(error)).toBe(true);
  return error.message;
}

describe("BEIR", () => {
  // nfcorpus: string ids, graded qrels (2/1), queries with metadata, a query judged in no split.
  const nfcorpus = {
    "corpus.jsonl": jsonl(
      {
        _id: "MED-10",
        title: "Statin Use and Breast Cancer Survival",
        text: "Recent studies have suggested that statins...",
        metadata: { url: "http://www.ncbi.nlm.nih.gov/pubmed/25329299" },
      },
      { _id: "MED-14", title: "", text: "BACKGROUND: Preclinical studies...", metadata: {} },
    ),
    "queries.jsonl": jsonl(
      {
        _id: "PLAIN-2",
        text: "Do Cholesterol Statin Drugs Cause Breast Cancer?",
        metadata: { url: "http://nutritionfacts.org/2015/07/14/do-cholesterol-statin-drugs/" },
      },
      { _id: "PLAIN-12", text: "Exploiting Autophagy to Live Longer", metadata: {} },
      { _id: "PLAIN-23", text: "How to Reduce Exposure to Alkylphenols", metadata: {} },
      { _id: "PLAIN-33", text: "Never judged", metadata: {} },
    ),
    "qrels/test.tsv": lines(
      "query-id\tcorpus-id\tscore",
      "PLAIN-2\tMED-2427\t2",
      "PLAIN-2\tMED-10\t2",
      "PLAIN-2\tMED-2429\t1",
      "PLAIN-12\tMED-2513\t2",
    ),
    "qrels/dev.tsv": lines(
      "query-id\tcorpus-id\tscore",
      "PLAIN-23\tMED-14\t2",
      "PLAIN-23\tMED-10\t0",
    ),
  };

  it("reads nfcorpus: test and dev splits, graded qrels, query metadata, unjudged queries left out", async () => {
    const dir = await directory(nfcorpus);
    const test = await QADataset.load(dir);
    expect(test.warnings).toEqual([]);
    expect(test.samples).toEqual([
      {
        id: "PLAIN-2",
        question: "Do Cholesterol Statin Drugs Cause Breast Cancer?",
        expectedAnswers: [],
        relevantIds: ["MED-2427", "MED-10", "MED-2429"],
        relevance: { "MED-2427": 2, "MED-10": 2, "MED-2429": 1 },
        metadata: { url: "http://nutritionfacts.org/2015/07/14/do-cholesterol-statin-drugs/" },
      },
      {
        id: "PLAIN-12",
        question: "Exploiting Autophagy to Live Longer",
        expectedAnswers: [],
        relevantIds: ["MED-2513"],
        relevance: { "MED-2513": 2 },
      },
    ]);
    const dev = await QADataset.load(dir, { split: "dev" });
    expect(dev.samples.map((s) => [s.id, s.relevantIds, s.relevance])).toEqual([
      ["PLAIN-23", ["MED-14"], { "MED-14": 2, "MED-10": 0 }],
    ]);
    expect(await message(QADataset.load(dir, { split: "train" }))).toMatch(
      /: no qrels for split "train" \(qrels\/train\.tsv\); splits found: (test, dev|dev, test)$/,
    );
    expect(await loadCorpus(dir)).toEqual([
      {
        id: "MED-10",
        title: "Statin Use and Breast Cancer Survival",
        text: "Recent studies have suggested that statins...",
      },
      { id: "MED-14", title: "", text: "BACKGROUND: Preclinical studies..." },
    ]);
  });

  it("keeps integer-looking and zero-padded ids as written (fiqa, scifact), gzip included", async () => {
    const files = {
      "corpus.jsonl": jsonl({ _id: "566392", title: "", text: "Short answer: yes.", metadata: {} }),
      "queries.jsonl": jsonl(
        {
          _id: "0",
          text: "What is considered a business expense on a business trip?",
          metadata: {},
        },
        { _id: "8", text: "Business Expense - Car Insurance Deductible", metadata: {} },
        { _id: "0042", text: "Leading zeros", metadata: {} },
      ),
      "qrels/test.tsv": lines(
        "query-id\tcorpus-id\tscore",
        "8\t566392\t1",
        "8\t65404\t1",
        "0042\t0031\t1",
      ),
    };
    const expected = [
      ["8", ["566392", "65404"]],
      ["0042", ["0031"]],
    ];
    const plain = await QADataset.load(await directory(files));
    expect(plain.samples.map((s) => [s.id, s.relevantIds])).toEqual(expected);
    const gz = await directory(
      Object.fromEntries(Object.entries(files).map(([k, v]) => [`${k}.gz`, gzipSync(v)])),
    );
    expect((await QADataset.load(gz)).samples.map((s) => [s.id, s.relevantIds])).toEqual(expected);
    expect((await loadCorpus(gz)).map((p) => p.id)).toEqual(["566392"]);
  });

  it("says to load the directory when a BEIR file is loaded alone", async () => {
    const dir = await directory(nfcorpus);
    expect(await message(QADataset.load(join(dir, "qrels", "test.tsv")))).toBe(
      `${join(dir, "qrels", "test.tsv")}: header: no question column; tried the aliases "question", "query", "user_input", "input"; columns found: "query-id", "corpus-id", "score". These are BEIR qrels: load the BEIR directory that holds qrels/ and queries.jsonl, QADataset.load("<dir>")`,
    );
    expect(await message(QADataset.load(join(dir, "queries.jsonl")))).toMatch(
      /queries\.jsonl: line 1: no question column; .* These look like BEIR queries: load the BEIR directory \(each judged query with its qrels\), QADataset\.load\("<dir>"\), or map \{ question: "text" \}$/,
    );
    expect(await message(QADataset.load(join(dir, "corpus.jsonl")))).toMatch(
      /corpus\.jsonl: line 1: no question column; .* These look like BEIR corpus passages: read them with loadCorpus\(path\)/,
    );
  });
});

describe("MS MARCO passage and TREC DL", () => {
  // queries.dev.small.tsv and qrels.dev.small.tsv: no header, TAB separated.
  const queries = lines(
    "1048585\twhat is paula deen's brother",
    "2\t Androgen receptor define",
    "524332\ttreasure of the high seas",
  );
  const qrels = lines(
    "1048585\t0\t7187158\t1",
    "2\t0\t4339068\t1",
    "524332\t0\t1936011\t1",
    "524332\t0\t0001936012\t1",
  );
  const expected = [
    ["1048585", "what is paula deen's brother", ["7187158"]],
    ["2", "Androgen receptor define", ["4339068"]],
    ["524332", "treasure of the high seas", ["1936011", "0001936012"]],
  ];

  it("reads qrels.dev.small.tsv with queries.dev.small.tsv as its topics, plain or gzip", async () => {
    const dir = await directory({
      "queries.dev.small.tsv": queries,
      "qrels.dev.small.tsv": qrels,
      "queries.dev.small.tsv.gz": gzipSync(queries),
      "qrels.dev.small.tsv.gz": gzipSync(qrels),
    });
    for (const suffix of ["", ".gz"]) {
      const topics = join(dir, `queries.dev.small.tsv${suffix}`);
      const path = join(dir, `qrels.dev.small.tsv${suffix}`);
      for (const dataset of [
        await QADataset.load(path, { topics }),
        await QADataset.fromTrec({ qrels: path, topics }),
      ]) {
        expect(dataset.samples.map((s) => [s.id, s.question, s.relevantIds])).toEqual(expected);
      }
    }
  });

  it("says how to read a headerless queries file and a 3-column MS MARCO run", async () => {
    const path = await tempFile("queries.dev.small.tsv", queries);
    expect(await message(QADataset.load(path))).toBe(
      `${path}: header: no question column; tried the aliases "question", "query", "user_input", "input"; columns found: "1048585", "what is paula deen's brother". The first row looks like data, not a header: a headerless "qid<TAB>query" file (MS MARCO queries, TREC DL topics) is read as the topics of its qrels, QADataset.fromTrec({ qrels: "<qrels>", topics: "<this file>" }), or add a header line (id<TAB>question)`,
    );
    // MS MARCO's own run format: qid<TAB>pid<TAB>rank.
    const run = await tempFile(
      "run.dev.small.tsv",
      lines("1048585\t7187158\t1", "1048585\t7187157\t2"),
    );
    expect(await message(TrecRun.load(run))).toBe(
      `${run}: line 1, column 4 (rank): expected 6 fields "qid Q0 docno rank score tag", found 3; "qid pid rank" lines are MS MARCO's run format, which is not read: convert it to a TREC run, e.g. awk '{print $1, "Q0", $2, $3, -$3, "run"}' run.tsv > run.trec`,
    );
    // The conversion the message gives keeps the ranks' order.
    const converted = TrecRun.parse(
      lines("1048585 Q0 7187158 1 -1 run", "1048585 Q0 7187157 2 -2 run"),
    );
    expect(converted.ranking("1048585").map((c) => c.id)).toEqual(["7187158", "7187157"]);
    // collection.tsv (pid<TAB>passage) has no header either: it is read as id<TAB>text lines.
    const collection = await tempFile(
      "collection.tsv",
      lines("0\tThe presence of communication amid scientific minds.", "1\tThe Manhattan Project."),
    );
    expect(await loadCorpus(collection)).toEqual([
      { id: "0", title: "", text: "The presence of communication amid scientific minds." },
      { id: "1", title: "", text: "The Manhattan Project." },
    ]);
    expect(
      await loadCorpus(await tempFile("collection.tsv", `id\ttext\n${"0\tThe presence."}\n`)),
    ).toEqual([{ id: "0", title: "", text: "The presence." }]);
  });

  it("reads TREC DL 2019: msmarco-test2019-queries.tsv and 2019qrels-pass.txt (Q0, grades 0-3)", async () => {
    const dir = await directory({
      "msmarco-test2019-queries.tsv": lines(
        "1108939\twhat slows down the flow of blood",
        "156493\tdo goldfish grow",
        "19335\tanthropological definition of environment",
      ),
      "2019qrels-pass.txt": lines(
        "19335 Q0 1017759 0",
        "19335 Q0 109063 3",
        "156493 Q0 1010288 2",
        "156493 Q0 1027893 1",
      ),
    });
    const dataset = await QADataset.load(join(dir, "2019qrels-pass.txt"), {
      topics: join(dir, "msmarco-test2019-queries.tsv"),
      relevanceLevel: 2,
    });
    expect(dataset.samples).toEqual([
      {
        id: "19335",
        question: "anthropological definition of environment",
        expectedAnswers: [],
        relevantIds: ["109063"],
        relevance: { "1017759": 0, "109063": 3 },
      },
      {
        id: "156493",
        question: "do goldfish grow",
        expectedAnswers: [],
        relevantIds: ["1010288"],
        relevance: { "1010288": 2, "1027893": 1 },
      },
    ]);
  });
});

describe("TREC ad hoc", () => {
  const topics = [
    "<top>",
    "",
    "<num> Number: 301 ",
    "<title> International Organized Crime ",
    "",
    "<desc> Description: ",
    "Identify organizations that participate in international criminal",
    "activity, the activity, and, if possible, collaborating organizations",
    "and the countries involved.",
    "",
    "<narr> Narrative: ",
    "A relevant document must as a minimum identify the organization and the",
    "type of illegal activity (e.g., Columbian cartel exporting cocaine).",
    "",
    "</top>",
    "",
    "",
    "<top>",
    "",
    "<num> Number: 302 ",
    "<title> Poliomyelitis and Post-Polio ",
    "",
    "<desc> Description: ",
    "Is the disease of Poliomyelitis (polio) under control in the",
    "world?",
    "",
    "<narr> Narrative: ",
    "Relevant documents should contain data or outbreaks of the ",
    "polio disease (large or small scale).",
    "",
    "</top>",
    "",
  ].join("\n");

  it("reads SGML topics with qrels space or tab separated, trailing whitespace, CRLF, gzip", async () => {
    const variants = {
      "qrels.space": lines("301 0 FBIS3-10082 1", "301 0 FBIS3-10169 0", "302 0 LA010189-0001 2"),
      "qrels.tab": lines(
        "301\t0\tFBIS3-10082\t1",
        "301\t0\tFBIS3-10169\t0",
        "302\t0\tLA010189-0001\t2",
      ),
      "qrels.trailing": lines(
        "301 0 FBIS3-10082 1  ",
        "301  0  FBIS3-10169  0\t",
        "302 0 LA010189-0001 2 ",
      ),
      "qrels.crlf": "301 0 FBIS3-10082 1\r\n301 0 FBIS3-10169 0\r\n302 0 LA010189-0001 2\r\n",
      "qrels.gz": gzipSync(
        lines("301 0 FBIS3-10082 1", "301 0 FBIS3-10169 0", "302 0 LA010189-0001 2"),
      ),
    };
    const dir = await directory({
      ...variants,
      "topics.301-302": topics,
      "topics.crlf": topics.replaceAll("\n", "\r\n"),
      "topics.gz": gzipSync(topics),
    });
    for (const name of Object.keys(variants)) {
      for (const topicsFile of ["topics.301-302", "topics.crlf", "topics.gz"]) {
        const dataset = await QADataset.fromTrec({
          qrels: join(dir, name),
          topics: join(dir, topicsFile),
        });
        expect(dataset.samples).toEqual([
          {
            id: "301",
            question: "International Organized Crime",
            expectedAnswers: [],
            relevantIds: ["FBIS3-10082"],
            relevance: { "FBIS3-10082": 1, "FBIS3-10169": 0 },
          },
          {
            id: "302",
            question: "Poliomyelitis and Post-Polio",
            expectedAnswers: [],
            relevantIds: ["LA010189-0001"],
            relevance: { "LA010189-0001": 2 },
          },
        ]);
      }
    }
    const narrative = await QADataset.fromTrec({
      qrels: join(dir, "qrels.space"),
      topics: join(dir, "topics.crlf"),
      topicField: "description",
    });
    expect(narrative.samples[1]?.question).toBe(
      "Is the disease of Poliomyelitis (polio) under control in the world?",
    );
  });

  it("says XML topics (TREC Web, TREC-COVID) are not read, and how to write them", async () => {
    const dir = await directory({
      "qrels.covid": lines("1 0.5 010vptx3 2", "1 4 0hkf6ut1 0"),
      "topics-rnd5.xml": lines(
        '<topics task="COVIDSearch" batch="5">',
        '  <topic number="1">',
        "    <query>coronavirus origin</query>",
        "    <question>what is the origin of COVID-19</question>",
        "  </topic>",
        "</topics>",
      ),
    });
    const path = join(dir, "topics-rnd5.xml");
    expect(
      await message(QADataset.fromTrec({ qrels: join(dir, "qrels.covid"), topics: path })),
    ).toBe(
      `${path}: line 1, column 1: expected "qid<TAB>topic text" (or SGML <top> topics); XML topics (<topic number="…">, as TREC Web and TREC-COVID write them) are not read: write each as a "qid<TAB>text" line`,
    );
    // The qrels alone read (TREC-COVID's iteration column holds the round, e.g. 0.5).
    expect(
      (await QADataset.fromTrec({ qrels: join(dir, "qrels.covid") })).samples[0]?.relevance,
    ).toEqual({ "010vptx3": 2, "0hkf6ut1": 0 });
  });
});

describe("question answering benchmarks", () => {
  it("reads SQuAD v1.1 and v2.0 (is_impossible, plausible_answers)", async () => {
    const v11 = await tempFile(
      "dev-v1.1.json",
      JSON.stringify({
        data: [
          {
            title: "Super_Bowl_50",
            paragraphs: [
              {
                context: "Super Bowl 50 was an American football game.",
                qas: [
                  {
                    answers: [
                      { answer_start: 177, text: "Denver Broncos" },
                      { answer_start: 177, text: "Denver Broncos" },
                      { answer_start: 173, text: "the Denver Broncos" },
                    ],
                    question: "Which NFL team represented the AFC at Super Bowl 50?",
                    id: "56be4db0acb8001400a502ec",
                  },
                ],
              },
            ],
          },
        ],
        version: "1.1",
      }),
    );
    expect((await QADataset.load(v11)).samples).toEqual([
      {
        id: "56be4db0acb8001400a502ec",
        question: "Which NFL team represented the AFC at Super Bowl 50?",
        expectedAnswers: ["Denver Broncos", "the Denver Broncos"],
        relevantIds: ["Super_Bowl_50#0"],
        metadata: { title: "Super_Bowl_50", is_impossible: false },
      },
    ]);
    const v20 = await tempFile(
      "dev-v2.0.json",
      JSON.stringify({
        version: "v2.0",
        data: [
          {
            title: "Normans",
            paragraphs: [
              {
                qas: [
                  {
                    question: "In what country is Normandy located?",
                    id: "56ddde6b9a695914005b9628",
                    answers: [{ text: "France", answer_start: 159 }],
                    is_impossible: false,
                  },
                  {
                    plausible_answers: [{ text: "Normans", answer_start: 4 }],
                    question: "Who gave their name to Normandy in the 1000's and 1100's",
                    id: "5ad39d53604f3c001a3fe8d1",
                    answers: [],
                    is_impossible: true,
                  },
                ],
                context: "The Normans were the people who gave their name to Normandy.",
              },
            ],
          },
        ],
      }),
    );
    expect((await QADataset.load(v20)).samples.map((s) => [s.id, s.expectedAnswers])).toEqual([
      ["56ddde6b9a695914005b9628", ["France"]],
      // Unanswerable: graded against the empty answer, never against plausible_answers.
      ["5ad39d53604f3c001a3fe8d1", [""]],
    ]);
  });

  it("reads HotpotQA's dev distractor file: a bare array, the rest kept as metadata", async () => {
    const record = {
      _id: "5a8b57f25542995d1e6f1371",
      answer: "yes",
      question: "Were Scott Derrickson and Ed Wood of the same nationality?",
      supporting_facts: [
        ["Scott Derrickson", 0],
        ["Ed Wood", 0],
      ],
      context: [["Ed Wood (film)", ["Ed Wood is a 1994 film.", " It stars Johnny Depp."]]],
      type: "comparison",
      level: "hard",
    };
    const dataset = await QADataset.load(
      await tempFile("hotpot_dev_distractor_v1.json", JSON.stringify([record])),
    );
    expect(dataset.warnings).toEqual([]);
    expect(dataset.samples).toEqual([
      {
        id: "5a8b57f25542995d1e6f1371",
        question: "Were Scott Derrickson and Ed Wood of the same nationality?",
        expectedAnswers: ["yes"],
        relevantIds: [],
        metadata: {
          supporting_facts: record.supporting_facts,
          context: record.context,
          type: "comparison",
          level: "hard",
        },
      },
    ]);
  });

  it("says where TriviaQA's records and answers are, as it reads neither shape itself", async () => {
    // The rc release: {"Data": [{Answer: {Aliases, Value, …}, Question, QuestionId, …}], …}.
    const rc = await tempFile(
      "wikipedia-dev.json",
      JSON.stringify({
        Data: [
          {
            Answer: { Aliases: ["Sunset Blvd", "Sunset Boulevard"], Value: "Sunset Boulevard" },
            Question: "Which Lloyd Webber musical premiered in the US on 10th December 1993?",
            QuestionId: "tc_33",
          },
        ],
        Domain: "Wikipedia",
        Split: "dev",
        Version: 1.0,
        VersionDate: "2017-05-29",
      }),
    );
    expect(await message(QADataset.load(rc))).toBe(
      `${rc}: the top level: expected the native format {"samples": [...]}, a bare array of records, or SQuAD's {"data": [{"paragraphs": [...]}]}; found an object with keys Data, Domain, Split, Version, VersionDate; its records seem to be under "Data": load them with QADataset.fromRecords(document["Data"], { columns }), mapping their question and answer columns`,
    );
    // Hugging Face's export: answer is an object {aliases, normalized_aliases, value, …}.
    const hf = await tempFile(
      "trivia_qa.jsonl",
      jsonl({
        question: "Which Lloyd Webber musical?",
        question_id: "tc_33",
        answer: {
          aliases: ["Sunset Blvd"],
          normalized_aliases: ["sunset blvd"],
          value: "Sunset Blvd",
        },
      }),
    );
    expect(await message(QADataset.load(hf))).toBe(
      `${hf}: line 1, column "answer": expected a string or a list of strings, found an object with keys "aliases", "normalized_aliases", "value"; a mapping names a column, not a field inside one, so flatten the records first (Hugging Face's Dataset.flatten() makes "answer.<key>" columns) and map one: { expectedAnswers: "answer.<key>" }`,
    );
    // Flattened, as the message says, it loads with that mapping.
    const flat = await tempFile(
      "trivia_qa.flat.jsonl",
      jsonl({
        question: "Which?",
        question_id: "tc_33",
        "answer.aliases": ["Sunset Blvd", "Sunset Boulevard"],
      }),
    );
    expect(
      (await QADataset.load(flat, { columns: { expectedAnswers: "answer.aliases" } })).samples[0]
        ?.expectedAnswers,
    ).toEqual(["Sunset Blvd", "Sunset Boulevard"]);
  });
});

describe("RAGAS", () => {
  it("reads a testset export (CSV with Python list cells, and JSONL) and warns that its contexts are text", async () => {
    const csv = await tempFile(
      "testset.csv",
      lines(
        "user_input,reference_contexts,reference,synthesizer_name",
        `What is the role of the Manhattan Project in WWII?,"['The Manhattan Project and its atomic bomb helped bring an end to World War II.', 'It\\'s said the project relied on ""scientific minds"" working together.']",The Manhattan Project helped end WWII.,single_hop_specifc_query_synthesizer`,
      ),
    );
    const records = [
      {
        user_input: "What is the role of the Manhattan Project in WWII?",
        reference_contexts: [
          "The Manhattan Project and its atomic bomb helped bring an end to World War II.",
          `It's said the project relied on "scientific minds" working together.`,
        ],
        reference: "The Manhattan Project helped end WWII.",
        synthesizer_name: "single_hop_specifc_query_synthesizer",
      },
    ];
    const expected = [
      {
        question: "What is the role of the Manhattan Project in WWII?",
        expectedAnswers: ["The Manhattan Project helped end WWII."],
        relevantIds: records[0]?.reference_contexts,
        metadata: { synthesizer_name: "single_hop_specifc_query_synthesizer" },
      },
    ];
    for (const path of [csv, await tempFile("testset.jsonl", jsonl(...records))]) {
      const dataset = await QADataset.load(path);
      expect(dataset.samples).toEqual(expected);
      expect(dataset.warnings).toHaveLength(1);
      expect(dataset.warnings[0]).toMatch(
        /column "reference_contexts" \(read as relevant_ids\) holds passage text, not ids/,
      );
    }
  });

  it("asks RAGAS v1 files which column is gold, suggesting ground_truth, not the model's answer", async () => {
    const path = await tempFile(
      "ragas-v1.csv",
      lines(
        "question,contexts,answer,ground_truth",
        `What is X?,['ctx'],X is a model answer.,X is the gold.`,
      ),
    );
    expect(await message(QADataset.load(path))).toBe(
      `${path}: header: both "answer" and "ground_truth" could be the expectedAnswers column; beside "ground_truth", "answer" is usually the model's answer (as in RAGAS files), so choose the gold one with a column mapping: { expectedAnswers: "ground_truth" }`,
    );
    const dataset = await QADataset.load(path, { columns: { expectedAnswers: "ground_truth" } });
    expect(dataset.samples[0]?.expectedAnswers).toEqual(["X is the gold."]);
    expect(dataset.samples[0]?.metadata).toEqual({ answer: "X is a model answer." });
  });
});

describe("Hugging Face exports of SQuAD", () => {
  // The answers of these rows as SQuAD holds them; each export below must give them back.
  const rows = [
    {
      id: "56be4db0acb8001400a502ec",
      question: "Which NFL team represented the AFC at Super Bowl 50?",
      answers: ["Denver Broncos", "Denver Broncos", "Denver Broncos"],
    },
    {
      id: "56d9895ddc89441400fdb510",
      question: "Where did Super Bowl 50 take place?",
      answers: [
        "Santa Clara, California",
        "Levi's Stadium",
        "Levi's Stadium in the San Francisco Bay Area at Santa Clara, California.",
      ],
    },
    {
      id: "5ad39d53604f3c001a3fe8d1",
      question: "Who gave their name to Normandy in the 1000's and 1100's",
      answers: [""],
    },
    {
      id: "q-quotes",
      question: "What did he say?",
      answers: [
        '"hi"',
        "'bye'",
        `"hi" and 'bye'`,
        "back\\slash",
        "tab\there",
        "new\nline",
        "café — über 😀",
      ],
    },
  ];
  const expected = rows.map((r) => [r.id, r.question, r.answers]);
  const view = (dataset: QADataset) =>
    dataset.samples.map((s) => [s.id, s.question, s.expectedAnswers]);

  it("reads to_json (pandas escapes / and non-ASCII) and to_csv (answers as pandas' repr of NumPy arrays)", async () => {
    const json = await tempFile(
      "squad.jsonl",
      lines(
        String.raw`{"id":"56be4db0acb8001400a502ec","title":"Super_Bowl_50","context":"24\u201310 http:\/\/x","question":"Which NFL team represented the AFC at Super Bowl 50?","answers":{"text":["Denver Broncos","Denver Broncos","Denver Broncos"],"answer_start":[177,177,177]}}`,
        `{"id":"56d9895ddc89441400fdb510","title":"Super_Bowl_50","context":"c","question":"Where did Super Bowl 50 take place?","answers":{"text":["Santa Clara, California","Levi's Stadium","Levi's Stadium in the San Francisco Bay Area at Santa Clara, California."],"answer_start":[403,355,355]}}`,
        `{"id":"5ad39d53604f3c001a3fe8d1","title":"Normans","context":"c","question":"Who gave their name to Normandy in the 1000's and 1100's","answers":{"text":[],"answer_start":[]}}`,
        String.raw`{"id":"q-quotes","title":"Quotes","context":"c","question":"What did he say?","answers":{"text":["\"hi\"","'bye'","\"hi\" and 'bye'","back\\slash","tab\there","new\nline","caf\u00e9 \u2014 \u00fcber \ud83d\ude00"],"answer_start":[8,18,8,0,0,0,0]}}`,
      ),
    );
    const fromJson = await QADataset.load(json);
    expect(view(fromJson)).toEqual(expected);
    expect(fromJson.samples[0]?.metadata?.context).toBe("24–10 http://x");
    // Dataset.to_csv(): str() of {'text': array([...], dtype=object), 'answer_start': array(...)},
    // wrapped by NumPy past 75 characters, quoted by the csv module.
    const csv = await tempFile(
      "squad.csv",
      lines(
        "id,title,context,question,answers",
        `56be4db0acb8001400a502ec,Super_Bowl_50,c,Which NFL team represented the AFC at Super Bowl 50?,"{'text': array(['Denver Broncos', 'Denver Broncos', 'Denver Broncos'], dtype=object), 'answer_start': array([177, 177, 177], dtype=int32)}"`,
        `56d9895ddc89441400fdb510,Super_Bowl_50,c,Where did Super Bowl 50 take place?,"{'text': array(['Santa Clara, California', ""Levi's Stadium"",`,
        `       ""Levi's Stadium in the San Francisco Bay Area at Santa Clara, California.""],`,
        `      dtype=object), 'answer_start': array([403, 355, 355], dtype=int32)}"`,
        `5ad39d53604f3c001a3fe8d1,Normans,c,Who gave their name to Normandy in the 1000's and 1100's,"{'text': array([], dtype=object), 'answer_start': array([], dtype=int32)}"`,
        String.raw`q-quotes,Quotes,"He said ""hi"" and 'bye'.",What did he say?,"{'text': array(['""hi""', ""'bye'"", '""hi"" and \'bye\'', 'back\\slash', 'tab\there',`,
        String.raw`       'new\nline', 'café — über 😀'], dtype=object), 'answer_start': array([ 8, 18,  8,  0,  0,  0,  0], dtype=int32)}"`,
      ),
    );
    const fromCsv = await QADataset.load(csv);
    expect(fromCsv.warnings).toEqual([]);
    expect(view(fromCsv)).toEqual(expected);
  });

  it("reads Dataset.flatten() exports: answers.text as NumPy's str() of an array, wrapped, quotes inside", async () => {
    const csv = await tempFile(
      "squad-flat.csv",
      lines(
        "id,title,context,question,answers.text,answers.answer_start",
        "56be4db0acb8001400a502ec,Super_Bowl_50,c,Which NFL team represented the AFC at Super Bowl 50?,['Denver Broncos' 'Denver Broncos' 'Denver Broncos'],[177 177 177]",
        `56d9895ddc89441400fdb510,Super_Bowl_50,c,Where did Super Bowl 50 take place?,"['Santa Clara, California' ""Levi's Stadium""`,
        ` ""Levi's Stadium in the San Francisco Bay Area at Santa Clara, California.""]",[403 355 355]`,
        "5ad39d53604f3c001a3fe8d1,Normans,c,Who gave their name to Normandy in the 1000's and 1100's,[],[]",
        String.raw`q-quotes,Quotes,c,What did he say?,"['""hi""' ""'bye'"" '""hi"" and \'bye\'' 'back\\slash' 'tab\there' 'new\nline'`,
        ` 'café — über 😀']",[ 8 18  8  0  0  0  0]`,
      ),
    );
    const dataset = await QADataset.load(csv);
    expect(dataset.warnings).toEqual([]);
    expect(view(dataset)).toEqual(expected);
    expect(dataset.samples[3]?.metadata?.["answers.answer_start"]).toBe("[ 8 18  8  0  0  0  0]");
  });

  it("reads SQuAD's answers as pandas writes them after json_normalize: a list of dicts", async () => {
    // pd.json_normalize(squad["data"], ["paragraphs", "qas"]).to_csv(): index, then each answers
    // cell is str() of a list of dicts.
    const csv = await tempFile(
      "qas.csv",
      lines(
        ",question,id,answers,is_impossible",
        `0,Which NFL team represented the AFC at Super Bowl 50?,56be4db0acb8001400a502ec,"[{'answer_start': 177, 'text': 'Denver Broncos'}, {'answer_start': 177, 'text': ""Levi's Stadium""}]",False`,
      ),
    );
    const dataset = await QADataset.load(csv);
    expect(dataset.warnings).toEqual([]);
    expect(dataset.samples).toEqual([
      {
        id: "56be4db0acb8001400a502ec",
        question: "Which NFL team represented the AFC at Super Bowl 50?",
        expectedAnswers: ["Denver Broncos", "Levi's Stadium"],
        relevantIds: [],
        metadata: { column_1: "0", is_impossible: "False" },
      },
    ]);
  });

  // SQuAD v2 dev flattened to one record per question (pd.json_normalize(squad["data"],
  // ["paragraphs", "qas"])): an unanswerable question has answers [] and is_impossible true, and
  // its plausible_answers (a wrong answer a reader might give) are never gold.
  const answerable = {
    question: "In what country is Normandy located?",
    id: "56ddde6b9a695914005b9628",
    answers: [{ text: "France", answer_start: 159 }],
    is_impossible: false,
  };
  const unanswerable = {
    question: "Who gave their name to Normandy in the 1000's and 1100's",
    id: "5ad39d53604f3c001a3fe8d1",
    answers: [],
    is_impossible: true,
    plausible_answers: [{ text: "Normans", answer_start: 4 }],
  };
  const flatSquadV2 = [
    {
      id: "56ddde6b9a695914005b9628",
      question: "In what country is Normandy located?",
      expectedAnswers: ["France"],
      relevantIds: [],
      metadata: { is_impossible: false },
    },
    {
      id: "5ad39d53604f3c001a3fe8d1",
      question: "Who gave their name to Normandy in the 1000's and 1100's",
      expectedAnswers: [""],
      relevantIds: [],
      metadata: {
        is_impossible: true,
        plausible_answers: [{ text: "Normans", answer_start: 4 }],
      },
    },
  ];

  it.each([
    ["qas.json", JSON.stringify([answerable, unanswerable])],
    ["qas.jsonl", jsonl(answerable, unanswerable)],
    [
      "qas.yaml",
      lines(
        `- question: "In what country is Normandy located?"`,
        `  id: "56ddde6b9a695914005b9628"`,
        `  answers: [{text: France, answer_start: 159}]`,
        `  is_impossible: false`,
        `- question: "Who gave their name to Normandy in the 1000's and 1100's"`,
        `  id: "5ad39d53604f3c001a3fe8d1"`,
        `  answers: []`,
        `  is_impossible: true`,
        `  plausible_answers: [{text: Normans, answer_start: 4}]`,
      ),
    ],
  ])("%s: SQuAD v2 flattened, an unanswerable question is the empty answer", async (name, text) => {
    const dataset = await QADataset.load(await tempFile(name, text));
    expect(dataset.warnings).toEqual([]);
    expect(dataset.samples).toEqual(flatSquadV2);
  });

  it("QADataset.fromRecords: SQuAD v2 flattened records, the same", () => {
    expect(QADataset.fromRecords([answerable, unanswerable]).samples).toEqual(flatSquadV2);
    // is_impossible false (or absent) leaves an empty answers list as it is: no gold answer.
    expect(
      QADataset.fromRecords([
        { question: "q1", answers: [], is_impossible: false },
        { question: "q2", answers: [] },
        { question: "q3", answers: [], is_impossible: "yes" },
      ]).samples.map((s) => s.expectedAnswers),
    ).toEqual([[], [], []]);
    // { expectedAnswers: null } says there are no gold answers: is_impossible adds none.
    expect(
      QADataset.fromRecords([unanswerable], { columns: { expectedAnswers: null } }).samples[0]
        ?.expectedAnswers,
    ).toEqual([]);
  });

  it("CSV: SQuAD v2 flattened by pandas, is_impossible as True, true or 1", async () => {
    // .to_csv() of the json_normalize frame: answers [] is "[]", a missing plausible_answers is
    // an empty cell; booleans are True/False (other writers: true/false, 1/0).
    const csv = await tempFile(
      "qas.csv",
      lines(
        ",question,id,answers,is_impossible,plausible_answers",
        `0,In what country is Normandy located?,56ddde6b9a695914005b9628,"[{'text': 'France', 'answer_start': 159}]",False,`,
        `1,Who gave their name to Normandy?,5ad39d53604f3c001a3fe8d1,[],True,"[{'text': 'Normans', 'answer_start': 4}]"`,
        `2,When?,5ad39d53604f3c001a3fe8d2,[],true,"[{'text': '10th century', 'answer_start': 94}]"`,
        `3,Where?,5ad39d53604f3c001a3fe8d3,,1,`,
        `4,Why?,5ad39d53604f3c001a3fe8d4,[],0,`,
      ),
    );
    const dataset = await QADataset.load(csv);
    expect(dataset.warnings).toEqual([]);
    expect(dataset.samples.map((s) => s.expectedAnswers)).toEqual([
      ["France"],
      [""],
      [""],
      [""],
      [],
    ]);
    // Kept as metadata once, as written, like any other extra column.
    expect(dataset.samples[1]?.metadata).toEqual({
      column_1: "1",
      is_impossible: "True",
      plausible_answers: "[{'text': 'Normans', 'answer_start': 4}]",
    });
    // Flattened by Hugging Face without its answer_start column: answers.text alone.
    const flattened = await tempFile(
      "flat.csv",
      lines("id,question,answers.text,is_impossible", "a,Who?,[],1", `b,What?,"['x']",0`),
    );
    expect((await QADataset.load(flattened)).samples.map((s) => s.expectedAnswers)).toEqual([
      [""],
      ["x"],
    ]);
  });

  it("Parquet: SQuAD v2 flattened, a BOOLEAN is_impossible", async () => {
    const buffer = parquetWriteBuffer({
      columnData: [
        { name: "id", data: ["a", "b"], type: "STRING" },
        { name: "question", data: ["Who?", "What?"], type: "STRING" },
        { name: "answers", data: [["Ada"], []] },
        { name: "is_impossible", data: [false, true], type: "BOOLEAN" },
      ],
    });
    const dataset = await QADataset.load(await tempFile("qas.parquet", new Uint8Array(buffer)));
    expect(dataset.warnings).toEqual([]);
    expect(dataset.samples).toEqual([
      {
        id: "a",
        question: "Who?",
        expectedAnswers: ["Ada"],
        relevantIds: [],
        metadata: { is_impossible: false },
      },
      {
        id: "b",
        question: "What?",
        expectedAnswers: [""],
        relevantIds: [],
        metadata: { is_impossible: true },
      },
    ]);
  });

  it("is_impossible true beside answers: the answers are kept, as the official script grades them", async () => {
    const csv = await tempFile(
      "qas.csv",
      lines(
        "id,question,answers,is_impossible",
        `a,Who?,"['Normans', 'the Normans']",True`,
        "b,What?,['France'],False",
        "c,When?,['10th century'],True",
      ),
    );
    const dataset = await QADataset.load(csv);
    expect(dataset.samples.map((s) => s.expectedAnswers)).toEqual([
      ["Normans", "the Normans"],
      ["France"],
      ["10th century"],
    ]);
    expect(dataset.warnings).toEqual([
      `${csv}: row 1 (line 2): column "is_impossible" says the question is unanswerable, but column "answers" holds 2 answers ("Normans", "the Normans"); the answers were kept as the gold, as the official SQuAD v2 evaluation grades them (it never reads is_impossible), and so were those of 1 more such row. If the question is unanswerable, empty its answers`,
    ]);
    const records = QADataset.fromRecords([{ ...unanswerable, answers: [{ text: "Normans" }] }]);
    expect(records.samples[0]?.expectedAnswers).toEqual(["Normans"]);
    expect(records.warnings).toEqual([
      `records: record 1: column "is_impossible" says the question is unanswerable, but column "answers" holds an answer ("Normans"); the answers were kept as the gold, as the official SQuAD v2 evaluation grades them (it never reads is_impossible). If the question is unanswerable, empty its answers`,
    ]);
  });

  it("nested SQuAD: is_impossible beside answers keeps them, with a warning", async () => {
    const qa = (id: string, answers: string[], impossible: boolean) => ({
      id,
      question: `question ${id}?`,
      answers: answers.map((text) => ({ text, answer_start: 0 })),
      is_impossible: impossible,
    });
    const file = await tempFile(
      "squad.json",
      JSON.stringify({
        version: "v2.0",
        data: [
          {
            title: "T",
            paragraphs: [
              {
                context: "c",
                qas: [
                  qa("a", ["Normans"], true),
                  qa("b", [], true),
                  qa("c", ["France"], false),
                  qa("d", ["x", "y", "z", "w"], true),
                ],
              },
            ],
          },
        ],
      }),
    );
    const dataset = await QADataset.load(file);
    expect(dataset.samples.map((s) => s.expectedAnswers)).toEqual([
      ["Normans"],
      [""],
      ["France"],
      ["x", "y", "z", "w"],
    ]);
    expect(dataset.warnings).toEqual([
      `${file}: data[0].paragraphs[0].qas[0]: is_impossible says the question is unanswerable, but answers holds an answer ("Normans"); the answers were kept as the gold, as the official SQuAD v2 evaluation grades them (it never reads is_impossible), and so were those of 1 more such question. If the question is unanswerable, empty its answers`,
    ]);
  });
});
