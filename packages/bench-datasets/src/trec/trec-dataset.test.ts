import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sharedData } from "../../../../test-support/shared-data.js";
import { rejection } from "../__fixtures__/helpers.js";
import { QADataset } from "../qa-dataset.js";

const data = (name: string) => sharedData(`trec_eval/${name}`);

async function tempFile(name: string, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "fromtrec-"));
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

describe("QADataset.fromTrec", () => {
  it("reads qrels.test: 3 queries, every judgment kept, grade > 0 relevant", async () => {
    const dataset = await QADataset.fromTrec({ qrels: data("qrels.test") });
    expect(dataset.samples.map((s) => s.id)).toEqual(["301", "302", "303"]);
    expect(dataset.samples.map((s) => s.question)).toEqual(["301", "302", "303"]);
    // Counts from awk over the file: judgments 1708/1061/912, relevant 474/77/10 (561 = num_rel).
    expect(dataset.samples.map((s) => Object.keys(s.relevance ?? {}).length)).toEqual([
      1708, 1061, 912,
    ]);
    expect(dataset.samples.map((s) => s.relevantIds.length)).toEqual([474, 77, 10]);
    const first = dataset.samples[0]!;
    expect(first.relevance?.["CR93E-10279"]).toBe(0);
    expect(first.relevance?.["CR93E-1282"]).toBe(1);
    expect(first.relevantIds).toContain("CR93E-1282");
    expect(first.relevantIds).not.toContain("CR93E-10279");
    expect(first.expectedAnswers).toEqual([]);
  });

  it("keeps negative grades as judged non-relevant, and relevanceLevel acts like trec_eval -l", async () => {
    const graded = await QADataset.fromTrec({ qrels: data("qrels.rel_level") });
    const grades = graded.samples.flatMap((s) => Object.values(s.relevance ?? {}));
    expect(grades.filter((g) => g === -1)).toHaveLength(304);
    expect(grades).toHaveLength(3681);
    for (const sample of graded.samples) {
      for (const id of sample.relevantIds) expect(sample.relevance?.[id]).toBeGreaterThan(0);
    }
    const l2 = await QADataset.fromTrec({ qrels: data("qrels.rel_level"), relevanceLevel: 2 });
    // awk '$4>=2' counts: 12, 77, 8
    expect(l2.samples.map((s) => s.relevantIds.length)).toEqual([12, 77, 8]);
    expect(Object.keys(l2.samples[0]!.relevance ?? {})).toHaveLength(1708);
  });

  it("saves and loads back unchanged, relevant ids cut by relevanceLevel included", async () => {
    // Found by a widened property: a saved `relevant_ids: []` with `relevance` {a: 2} loaded back
    // as ["a"], turning queries left out at -l 3 into scored ones.
    const qrels = await tempFile("qrels", "1 0 a 2\n1 0 b 3\n2 0 a 2\n2 0 c 0\n");
    const l3 = await QADataset.fromTrec({ qrels, relevanceLevel: 3 });
    expect(l3.samples.map((s) => s.relevantIds)).toEqual([["b"], []]);
    const path = join(await mkdtemp(join(tmpdir(), "fromtrec-")), "l3.json");
    await l3.save(path);
    const loaded = await QADataset.load(path);
    const judged = (d: QADataset) =>
      d.samples.map((s) => ({ id: s.id, relevantIds: s.relevantIds, relevance: s.relevance }));
    expect(judged(loaded)).toEqual([
      { id: "1", relevantIds: ["b"], relevance: { a: 2, b: 3 } },
      { id: "2", relevantIds: [], relevance: { a: 2, c: 0 } },
    ]);
    expect(judged(loaded)).toEqual(judged(l3));
    // Without any relevant-ids field, grades > 0 still give them.
    expect(
      QADataset.fromRecords([{ question: "q", relevance: { a: 2, c: 0 } }]).samples[0]?.relevantIds,
    ).toEqual(["a"]);
  });

  it("joins the judgments of a query whose lines resume after another query's", async () => {
    const qrels = await tempFile(
      "interleaved.txt",
      "10 0 d1 1\n2 0 d1 2\n10 0 d2 0\n10 0 d3 3\n2 0 d9 1\n1 0 d1 1\n",
    );
    const dataset = await QADataset.fromTrec({ qrels });
    expect(dataset.samples).toEqual([
      expect.objectContaining({
        id: "10",
        relevantIds: ["d1", "d3"],
        relevance: { d1: 1, d2: 0, d3: 3 },
      }),
      expect.objectContaining({ id: "2", relevantIds: ["d1", "d9"], relevance: { d1: 2, d9: 1 } }),
      expect.objectContaining({ id: "1", relevantIds: ["d1"], relevance: { d1: 1 } }),
    ]);
    // A docno judged again when its query resumes is still a duplicate.
    const twice = await tempFile("twice.txt", "10 0 d1 1\n2 0 d1 2\n10 0 d1 0\n");
    await expect(QADataset.fromTrec({ qrels: twice })).rejects.toThrow(
      /twice\.txt: line 3, column 3 \(docno\): document "d1" is judged twice for query "10"/,
    );
  });

  it("keeps a query with no relevant document as a sample", async () => {
    const qrels = await tempFile("qrels", "1 0 a 1\n2 0 b 0\n2 0 c -1\n");
    const dataset = await QADataset.fromTrec({ qrels });
    expect(dataset.length).toBe(2);
    expect(dataset.samples[1]).toEqual({
      id: "2",
      question: "2",
      expectedAnswers: [],
      relevantIds: [],
      relevance: { b: 0, c: -1 },
    });
  });

  it("takes questions from SGML or tab-separated topics", async () => {
    const qrels = await tempFile("qrels", "301 0 a 1\n302 0 b 2\n");
    const sgml = await tempFile(
      "topics",
      "<top>\n<num> Number: 301\n<title> International Organized Crime\n\n<desc> Description:\nIdentify organizations.\n</top>\n" +
        "<top>\n<num> Number: 302 \n<title> Poliomyelitis and Post-Polio\n<desc> Description:\nIs the disease under control?\n<narr> Narrative:\nRelevant documents...\n</top>\n",
    );
    const titles = await QADataset.fromTrec({ qrels, topics: sgml });
    expect(titles.samples.map((s) => s.question)).toEqual([
      "International Organized Crime",
      "Poliomyelitis and Post-Polio",
    ]);
    const descriptions = await QADataset.fromTrec({
      qrels,
      topics: sgml,
      topicField: "description",
    });
    expect(descriptions.samples[1]!.question).toBe("Is the disease under control?");
    const tsv = await tempFile("queries.tsv", "301\tcrime abroad\n302\tpolio\n");
    expect(
      (await QADataset.fromTrec({ qrels, topics: tsv })).samples.map((s) => s.question),
    ).toEqual(["crime abroad", "polio"]);
    const partial = await tempFile("partial.tsv", "301\tcrime abroad\n");
    await expect(QADataset.fromTrec({ qrels, topics: partial })).rejects.toThrow(
      /no topic for query "302"/,
    );
  });

  it("says when a missing topic differs from a topic only by leading zeros (TREC-1/2 topics)", async () => {
    // trec_eval compares ids as text too: "051" and "51" are two queries, so this stays an error.
    const qrels = await tempFile(
      "qrels.51-52.txt",
      "51 0 WSJ870101-0001 1\n52 0 AP880212-0001 0\n",
    );
    const topics = await tempFile(
      "topics.51-52",
      "<top>\n<num> Number: 051\n<title> Topic: Airbus Subsidies\n</top>\n" +
        "<top>\n<num> Number: 052\n<title> Topic: South African Sanctions\n</top>\n",
    );
    expect((await rejection(QADataset.fromTrec({ qrels, topics }))).message).toBe(
      `${topics}: no topic for query "51", which line 1 of ${qrels} judges; the topics have "051": query ids are compared as text (as trec_eval compares them), so write them alike in both files (both zero-padded or neither)`,
    );
    const others = await tempFile("queries.tsv", "301\ta\n302\tb\n303\tc\n304\td\n");
    expect((await rejection(QADataset.fromTrec({ qrels, topics: others }))).message).toBe(
      `${others}: no topic for query "51", which line 1 of ${qrels} judges; the topics hold 4 ("301", "302", "303", …)`,
    );
  });

  it("names line and column of malformed qrels", async () => {
    const short = await tempFile("qrels", "1 0 a 1\n1 0 b\n");
    await expect(QADataset.fromTrec({ qrels: short })).rejects.toThrow(
      /qrels: line 2, column 4 \(rel\)/,
    );
    const word = await tempFile("qrels", "1 0 a yes\n");
    await expect(QADataset.fromTrec({ qrels: word })).rejects.toThrow(
      /line 1, column 4 \(rel\): expected a numeric grade, found "yes"/,
    );
    const twice = await tempFile("qrels", "1 0 a 1\n1 0 a 0\n");
    await expect(QADataset.fromTrec({ qrels: twice })).rejects.toThrow(
      /line 2, column 3 \(docno\).*twice/,
    );
  });
});

describe("QADataset.load of TREC qrels", () => {
  it("reads a file named as qrels are (qrels.test) as fromTrec does", async () => {
    const loaded = await QADataset.load(data("qrels.test"));
    const direct = await QADataset.fromTrec({ qrels: data("qrels.test") });
    expect(loaded.samples).toEqual(direct.samples);
    expect(loaded.samples.map((s) => s.relevantIds.length)).toEqual([474, 77, 10]);
    // Options pass through: relevance level (trec_eval -l) and topics.
    const level = await QADataset.load(data("qrels.rel_level"), { relevanceLevel: 2 });
    expect(level.samples).toEqual(
      (await QADataset.fromTrec({ qrels: data("qrels.rel_level"), relevanceLevel: 2 })).samples,
    );
    const qrels = await tempFile("judged.qrels", "q1 0 d1 1\nq1 0 d2 0\n");
    const topics = join(qrels, "..", "topics.tsv");
    await writeFile(topics, "q1\twhat is bm25\n");
    const withTopics = await QADataset.load(qrels, { topics });
    expect(withTopics.samples).toEqual([
      {
        id: "q1",
        question: "what is bm25",
        expectedAnswers: [],
        relevantIds: ["d1"],
        relevance: { d1: 1, d2: 0 },
      },
    ]);
  });

  it("recognizes qrels of another name by their first line; refuses other text", async () => {
    const sniffed = await QADataset.load(
      await tempFile("2019-judged.txt", "\n19335 0 1017759 0\n"),
    );
    expect(sniffed.samples.map((s) => s.id)).toEqual(["19335"]);
    await expect(
      QADataset.load(await tempFile("notes.txt", "q1 Q0 d1 1 2.5 run\n")),
    ).rejects.toThrow(/unsupported dataset format/);
    // Four words ending in a number are a question, not a judgment.
    await expect(
      QADataset.load(
        await tempFile("questions.txt", "population of china 2020\nwho wrote hamlet\n"),
      ),
    ).rejects.toThrow(/unsupported dataset format/);
    // MS MARCO's qrels: TREC lines in a .tsv named as qrels are.
    const marco = await QADataset.load(
      await tempFile("qrels.dev.small.tsv", "1185869\t0\t0\t1\n1185868\t0\t16\t1\n"),
    );
    expect(marco.samples.map((s) => [s.id, s.relevantIds])).toEqual([
      ["1185869", ["0"]],
      ["1185868", ["16"]],
    ]);
    // A BEIR-style qrels .tsv with its header is still read as a table.
    await expect(
      QADataset.load(await tempFile("qrels.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\n")),
    ).rejects.toThrow(/no question column/);
    // A malformed line further down is reported as qrels errors are.
    await expect(
      QADataset.load(await tempFile("qrels.dev", "q1 0 d1 1\nq1 0 d2\n")),
    ).rejects.toThrow(/qrels\.dev: line 2, column 4 \(rel\)/);
  });
});

describe("the qrels parser", () => {
  it("merges the judgments of a qrels query that appears twice, and finds a docno judged twice", async () => {
    const qrels = await tempFile("qrels", "1 0 a 1\n2 0 a 2\n1 0 b 0\n");
    const dataset = await QADataset.fromTrec({ qrels });
    expect(dataset.samples.map((s) => s.relevance)).toEqual([{ a: 1, b: 0 }, { a: 2 }]);
    expect(dataset.samples.map((s) => s.relevantIds)).toEqual([["a"], ["a"]]);
    const twice = await tempFile("qrels", "1 0 a 1\n2 0 a 2\n1 0 a 0\n");
    await expect(QADataset.fromTrec({ qrels: twice })).rejects.toThrow(
      /line 3, column 3 \(docno\): document "a" is judged twice for query "1"/,
    );
  });
});
