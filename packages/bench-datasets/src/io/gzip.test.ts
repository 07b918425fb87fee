import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, open, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { sharedData } from "../../../../test-support/shared-data.js";
import { loadCorpus } from "../formats/corpus.js";
import { Predictions } from "../formats/predictions.js";
import { QADataset } from "../qa-dataset.js";
import { TrecRun } from "../trec/trec-run.js";

// gzip-compressed inputs read exactly as the plain ones: compared here with the plain file read
// by the same loader (whose own results the other test files check against known answers).

const shared = (path: string) => sharedData(`${path}`);

const dir = await mkdtemp(join(tmpdir(), "fastrag-gzip-"));

/** Writes `bytes` gzip-compressed to `name` in the temporary directory. */
async function gz(name: string, bytes: Buffer | string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, gzipSync(bytes));
  return path;
}

async function plain(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

/** Every query's ranking, for comparing two runs whole. */
function rankings(run: TrecRun): [string, unknown][] {
  return run.queryIds().map((q) => [q, run.ranking(q)]);
}

describe("gzip-compressed input", () => {
  it("reads trec_eval's qrels and run compressed as it reads them plain", async () => {
    const qrels = await gz("qrels.test.gz", await readFile(shared("trec_eval/qrels.test")));
    const run = await gz("results.test.gz", await readFile(shared("trec_eval/results.test")));
    const expected = await QADataset.fromTrec({ qrels: shared("trec_eval/qrels.test") });
    expect((await QADataset.fromTrec({ qrels })).samples).toEqual(expected.samples);
    // By name through load too (a qrels name, and gzip content).
    expect((await QADataset.load(qrels)).samples).toEqual(expected.samples);

    const plainRun = await TrecRun.load(shared("trec_eval/results.test"));
    const compressed = await TrecRun.load(run);
    expect(compressed.tag).toBe(plainRun.tag);
    expect(rankings(compressed)).toEqual(rankings(plainRun));
    expect(rankings(compressed).length).toBeGreaterThan(0);
  });

  it("recognises gzip by its content, whatever the file is called", async () => {
    const text = await readFile(shared("trec_eval/results.test"));
    const run = await gz("results.txt", text);
    expect(rankings(await TrecRun.load(run))).toEqual(
      rankings(await TrecRun.load(shared("trec_eval/results.test"))),
    );
    // Qrels of an unknown suffix are told by their first line, decompressed.
    const qrels = await gz("judgments.dat", await readFile(shared("trec_eval/qrels.test")));
    expect((await QADataset.load(qrels)).length).toBe(
      (await QADataset.fromTrec({ qrels: shared("trec_eval/qrels.test") })).length,
    );
  });

  it("decompresses text larger than a read chunk, lines cut across chunk boundaries", async () => {
    // About 4 MiB of text: several 1 MiB chunks, with lines of varying length.
    const lines: string[] = [];
    for (let q = 0; q < 3000; q++) {
      for (let d = 0; d < 40; d++) {
        lines.push(
          `q${q} Q0 doc-${q}-${d}${"x".repeat((q * 7 + d) % 13)} ${d + 1} ${(d % 9) / 3} run`,
        );
      }
    }
    const text = `${lines.join("\n")}\n`;
    expect(text.length).toBeGreaterThan(4 << 20);
    const compressed = await TrecRun.load(await gz("big.gz", text));
    const expected = TrecRun.parse(text, "big");
    expect(compressed.queryIds()).toHaveLength(3000);
    expect(rankings(compressed)).toEqual(rankings(expected));
  });

  it("reads concatenated gzip members as one text (cat a.gz b.gz)", async () => {
    const a = "q1 0 d1 1\nq1 0 d2 0\n";
    const b = "q2 0 d3 2\n";
    const path = join(dir, "qrels.cat.gz");
    await writeFile(path, Buffer.concat([gzipSync(a), gzipSync(b)]));
    const dataset = await QADataset.fromTrec({ qrels: path });
    expect(dataset.samples.map((s) => [s.id, s.relevance])).toEqual([
      ["q1", { d1: 1, d2: 0 }],
      ["q2", { d3: 2 }],
    ]);
  });

  it("loads .jsonl.gz, .json.gz (SQuAD), .csv.gz and .yaml.gz datasets by the suffix before .gz", async () => {
    const rows = [
      { id: "a", question: "Who?", expected_answers: ["Ann"], relevant_ids: ["p1"] },
      { id: "b", question: "What?", expected_answers: ["Bob"], relevant_ids: ["p2", "p3"] },
    ];
    const jsonl = rows.map((r) => JSON.stringify(r)).join("\n");
    const fromPlain = await QADataset.load(await plain("rows.jsonl", jsonl));
    expect((await QADataset.load(await gz("rows.jsonl.gz", jsonl))).samples).toEqual(
      fromPlain.samples,
    );
    const csv = 'id,question,expected_answers,relevant_ids\na,Who?,"[""Ann""]",p1\n';
    expect((await QADataset.load(await gz("rows.CSV.GZ", csv))).samples).toEqual(
      (await QADataset.load(await plain("rows.csv", csv))).samples,
    );
    const yaml = "- id: a\n  question: Who?\n  expected_answers: [Ann]\n  relevant_ids: [p1]\n";
    expect((await QADataset.load(await gz("rows.yaml.gz", yaml))).samples).toEqual(
      (await QADataset.load(await plain("rows.yaml", yaml))).samples,
    );

    const squadPath = shared("squad-v2-sample/dev-v2.0.sample.json");
    const squad = await QADataset.load(await gz("dev.json.gz", await readFile(squadPath)));
    expect(squad.samples).toEqual((await QADataset.load(squadPath)).samples);
    expect(squad.length).toBeGreaterThan(100);
  });

  it("loads a gzip corpus and gzip predictions", async () => {
    const squadPath = shared("squad-v2-sample/dev-v2.0.sample.json");
    const passages = await loadCorpus(await gz("dev.json.gz", await readFile(squadPath)));
    expect(passages).toEqual(await loadCorpus(squadPath));
    const corpus = '{"_id": "d1", "title": "T", "text": "one"}\n{"_id": "d2", "text": "two"}\n';
    expect(await loadCorpus(await gz("corpus.jsonl.gz", corpus))).toEqual(
      await loadCorpus(await plain("corpus.jsonl", corpus)),
    );

    const preds = '{"id": "a", "answer": "Ann"}\n{"id": "b", "answer": "Bob"}\n';
    const fromGz = await Predictions.load(await gz("preds.jsonl.gz", preds));
    const fromPlain = await Predictions.load(await plain("preds.jsonl", preds));
    expect(fromGz.size).toBe(2);
    expect(fromGz.size).toBe(fromPlain.size);
    const json = '{"a": "Ann", "b": "Bob"}';
    expect((await Predictions.load(await gz("preds.json.gz", json))).size).toBe(2);
  });

  it("reads a BEIR directory whose files are gzip-compressed (queries.jsonl.gz, qrels/test.tsv.gz)", async () => {
    const queries = '{"_id": "q1", "text": "first?"}\n{"_id": "q2", "text": "second?"}\n';
    const qrels = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t2\nq2\td3\t0\n";
    const corpus = '{"_id": "d1", "text": "one"}\n{"_id": "d2", "text": "two"}\n';
    const plainDir = join(dir, "beir-plain");
    const gzDir = join(dir, "beir-gz");
    for (const d of [plainDir, gzDir]) await mkdir(join(d, "qrels"), { recursive: true });
    await writeFile(join(plainDir, "queries.jsonl"), queries);
    await writeFile(join(plainDir, "qrels", "test.tsv"), qrels);
    await writeFile(join(plainDir, "corpus.jsonl"), corpus);
    await writeFile(join(gzDir, "queries.jsonl.gz"), gzipSync(queries));
    await writeFile(join(gzDir, "qrels", "test.tsv.gz"), gzipSync(qrels));
    await writeFile(join(gzDir, "qrels", "dev.tsv"), qrels);
    await writeFile(join(gzDir, "corpus.jsonl.gz"), gzipSync(corpus));
    const expected = await QADataset.load(plainDir);
    expect(expected.length).toBe(2);
    expect((await QADataset.load(gzDir)).samples).toEqual(expected.samples);
    expect(await loadCorpus(gzDir)).toEqual(await loadCorpus(plainDir));
    // The splits found are named once each, compressed or not.
    await expect(QADataset.load(gzDir, { split: "train" })).rejects.toThrow(
      /splits found: (test, dev|dev, test)$/,
    );
  });

  it("refuses corrupt and truncated gzip with the file, the cause and how to check it", async () => {
    const many = (line: (i: number) => string) =>
      Array.from({ length: 5000 }, (_, i) => line(i)).join("\n");
    // Each reader (the byte-line one for TREC, the streamed lines for JSONL, the whole-file text
    // for JSON) with a text it would read.
    const readers: [string, string, (path: string) => Promise<unknown>][] = [
      ["run.gz", many((i) => `q1 Q0 d${i} 1 1.0 t`), (p) => TrecRun.load(p)],
      ["qrels.gz", many((i) => `q1 0 d${i} 1`), (p) => QADataset.fromTrec({ qrels: p })],
      [
        "rows.jsonl.gz",
        many((i) => `{"question": "q${i}", "expected_answers": ["a"]}`),
        (p) => QADataset.load(p),
      ],
      ["corpus.jsonl.gz", many((i) => `{"_id": "d${i}", "text": "t"}`), (p) => loadCorpus(p)],
      [
        "preds.json.gz",
        JSON.stringify(
          Object.fromEntries(
            many((i) => `${i}`)
              .split("\n")
              .map((i) => [i, "a"]),
          ),
        ),
        (p) => Predictions.load(p),
      ],
    ];
    for (const [name, text, load] of readers) {
      const whole = gzipSync(text);
      // The whole file reads: the errors below come from the damage alone.
      await expect(load(await gz(`whole-${name}`, text))).resolves.toBeDefined();
      const damaged = {
        "the compressed data ends too early": whole.subarray(0, whole.length >> 1),
        "cannot decompress (gzip)": Buffer.concat([whole.subarray(0, 10), Buffer.alloc(64, 0xff)]),
      };
      for (const [why, bytes] of Object.entries(damaged)) {
        const path = join(dir, `${why.length}-${name}`);
        await writeFile(path, bytes);
        const error = await load(path).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, `${name}: ${why}`).toBeInstanceOf(ConfigurationError);
        expect((error as Error).message).toContain(path);
        expect((error as Error).message).toContain(why);
        expect((error as Error).message).toContain("gzip -t");
      }
    }
  });

  it("names the line and column of invalid UTF-8 inside gzip data", async () => {
    const bad = Buffer.concat([
      Buffer.from("q1 Q0 d1 1 1.0 t\nq1 Q0 d"),
      Buffer.from([0xc3, 0x28]),
    ]);
    const path = await gz("bad-utf8.gz", Buffer.concat([bad, Buffer.from(" 2 0.5 t\n")]));
    await expect(TrecRun.load(path)).rejects.toThrow(/line 2, column 8: invalid UTF-8/);
    const jsonl = await gz(
      "bad.jsonl.gz",
      Buffer.concat([Buffer.from('{"question": "a'), Buffer.from([0xff]), Buffer.from('"}\n')]),
    );
    await expect(QADataset.load(jsonl)).rejects.toThrow(
      /line 1, column 16: invalid UTF-8 at byte 15/,
    );
  });

  describe("through a pipe, which can be read only once", () => {
    /** A FIFO that `bytes` are written into, in pieces of `piece` bytes when given. */
    async function fifo(name: string, bytes: Buffer, piece?: number): Promise<string> {
      const path = join(dir, name);
      execFileSync("mkfifo", [path]);
      void (async () => {
        const handle = await open(path, "w");
        const step = piece ?? bytes.length;
        for (let i = 0; i < bytes.length; i += step) {
          await handle.write(bytes.subarray(i, i + step));
          if (piece !== undefined) await new Promise((wait) => setTimeout(wait, 5));
        }
        await handle.close();
      })();
      return path;
    }

    it("reads gzip topics and gzip JSON whole", async () => {
      const qrels = await plain("pipe-qrels", "q1 0 d1 1\nq2 0 d2 1\n");
      const topics = "q1\tfirst question\nq2\tsecond question\n";
      const dataset = await QADataset.fromTrec({
        qrels,
        topics: await fifo("topics.fifo", gzipSync(topics)),
      });
      expect(dataset.samples.map((s) => s.question)).toEqual(["first question", "second question"]);
      const preds = await Predictions.load(await fifo("preds.fifo", gzipSync('{"q1": "a"}')));
      expect(preds.size).toBe(1);
    });

    it("names the line of invalid UTF-8 deep in a gzip run", async () => {
      const lines = Array.from({ length: 150_000 }, (_, i) => `q${i % 50} Q0 d${i} 1 0.5 t`);
      const text = Buffer.from(`${lines.join("\n")}\n`);
      // Line 120,001 becomes "q0 Q0 d\xff…": the bad byte is its 8th.
      const at = text.indexOf(`\n${lines[120_000]}`) + 1 + 7;
      text[at] = 0xff;
      const error = await TrecRun.load(await fifo("bad.fifo", gzipSync(text))).catch(
        (e: unknown) => e,
      );
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(
        new RegExp(`line 120001, column 8: invalid UTF-8 at byte ${at} \\(found 0xff\\)`),
      );
      // The same from the file, for reference.
      await expect(TrecRun.load(await gz("bad-run.gz", text))).rejects.toThrow(
        `line 120001, column 8: invalid UTF-8 at byte ${at} (found 0xff)`,
      );
    });

    it("drops a BOM that arrives a byte at a time", async () => {
      const jsonl = Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from('{"question": "q", "expected_answers": ["a"]}\n'),
      ]);
      const dataset = await QADataset.load(await fifo("bom.jsonl", gzipSync(jsonl), 1));
      expect(dataset.samples.map((s) => s.question)).toEqual(["q"]);
      const slow = await QADataset.load(await fifo("bom-plain.jsonl", jsonl, 1));
      expect(slow.samples.map((s) => s.question)).toEqual(["q"]);
    });
  });

  it("reads an empty gzip file as an empty text", async () => {
    await expect(QADataset.fromTrec({ qrels: await gz("empty.gz", "") })).resolves.toHaveLength(0);
    expect((await TrecRun.load(await gz("empty-run.gz", ""))).queryIds()).toEqual([]);
  });
});
