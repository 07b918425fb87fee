import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigurationError } from "@fastrag/bench-core";
import { parquetWriteBuffer } from "hyparquet-writer";
import { describe, expect, it } from "vitest";
import { rejection, tempDir, tempFile } from "./__fixtures__/helpers.js";
import { loadCorpus } from "./formats/corpus.js";
import { Predictions } from "./formats/predictions.js";
import { QADataset } from "./qa-dataset.js";
import { TrecRun } from "./trec/trec-run.js";

// The bad-input corpus: every entry under __fixtures__/bad/<kind>/ must give a ConfigurationError
// whose message names the file and where in it the problem is (line/row and column, or the
// field). An entry without an expectation here fails the test, so the corpus and its
// expectations cannot drift apart. bad/generate.mjs wrote the corpus (run it to regenerate).
const bad = fileURLToPath(new URL("./__fixtures__/bad/", import.meta.url));

const UTF8 =
  /invalid UTF-8 at byte \d+ \(found 0x[0-9a-f]{2}( 0x[0-9a-f]{2})*\); expected a UTF-8 text file/;
const at = (location: string, problem: RegExp | string): RegExp =>
  new RegExp(`${location}: ${typeof problem === "string" ? problem : problem.source}`);

/** QADataset.load(path): files by suffix, and BEIR directories. */
const DATASETS: Record<string, RegExp> = {
  // BEIR directories
  "beir-no-qrels-dir":
    /beir-no-qrels-dir: a directory is read as a BEIR dataset .*; qrels\/ is missing/,
  "beir-no-queries": /beir-no-queries\/queries\.jsonl: no such file or directory/,
  "beir-no-test-split":
    /beir-no-test-split: no qrels for split "test" \(qrels\/test\.tsv\); splits found: dev$/,
  "beir-qrels-bad-score":
    /qrels\/test\.tsv: line 3, column 3 \(score\): expected a numeric grade, found "high"/,
  "beir-qrels-huge-score":
    /qrels\/test\.tsv: line 2, column 3 \(score\): expected a numeric grade, found "1e999"/,
  "beir-qrels-invalid-utf8": at(
    "qrels/test\\.tsv: line 3, column 5",
    /invalid UTF-8 at byte 37 \(found 0xf8 0x88\)/,
  ),
  "beir-qrels-judged-twice":
    /qrels\/test\.tsv: line 3, column 2 \(corpus-id\): document "d1" is judged twice for query "q1"/,
  "beir-qrels-no-score-column":
    /qrels\/test\.tsv: line 1: missing qrels column "score"; expected a header "query-id<TAB>corpus-id<TAB>score"/,
  "beir-qrels-short-row":
    /qrels\/test\.tsv: line 3, column 3 \(score\): missing value; expected 3 tab-separated fields, found 2/,
  "beir-queries-bad-json":
    /queries\.jsonl: line 2, column 30: invalid JSON at the end of the input/,
  "beir-queries-duplicate-id": /queries\.jsonl: line 3, column "_id": query "q1" is given twice/,
  "beir-queries-empty-text":
    /queries\.jsonl: line 2, column "text": expected the query text \(a non-empty string\), found the string ""/,
  "beir-queries-id-object":
    /queries\.jsonl: line 2, column "_id": expected an id \(a non-empty string or number\), found an object/,
  "beir-queries-invalid-utf8": at(
    "queries\\.jsonl: line 2, column 26",
    /invalid UTF-8 at byte 52 \(found 0x80\)/,
  ),
  "beir-queries-unsafe-integer-id":
    /queries\.jsonl: line 1, column "_id": .*found the number 12345678901234567000, an integer beyond 2\^53 .*write it as a string/,
  "beir-query-not-in-queries":
    /qrels\/test\.tsv: line 3: query "q9" is judged but missing from \S+queries\.jsonl/,
  // .csv
  "csv-bom-crlf-ragged.csv":
    /row 3 \(line 4\): expected 3 cells \(one per header column\), found 2/,
  "csv-duplicate-header.csv": /header: column "answer" appears twice in the header/,
  "csv-duplicate-id.csv": /row 3 \(line 4\): duplicate sample id "q1" \(also sample 1\)/,
  "csv-empty-question.csv":
    /row 2 \(line 3\), column "question": expected a question \(a non-empty string\), found the string ""/,
  "csv-empty.csv": /line 1: empty CSV: expected a header row/,
  "csv-huge-number-grade.csv":
    /row 1 \(line 2\), column "relevance": grade of "d1" should be a number, found the number Infinity/,
  "csv-invalid-utf8.csv": at("line 3, column 6", /invalid UTF-8 at byte 25 \(found 0xff\)/),
  "csv-metadata-not-object.csv":
    /row 2 \(line 3\), column "metadata": expected an object, found the string "plain text"/,
  "csv-no-question-column.csv":
    /header: no question column; tried the aliases "question", "query", "user_input", "input"; columns found: "id", "prompt", "answer"/,
  "csv-ragged-row.csv": /row 2 \(line 3\): expected 3 cells \(one per header column\), found 4/,
  "csv-relevance-not-object.csv":
    /row 1 \(line 2\), column "relevance": expected an object of id → grade/,
  "csv-relevant-ids-objects.csv":
    /row 1 \(line 2\), column "relevant_ids": item 1 should be a string id, found an object/,
  "csv-short-row.csv": /row 2 \(line 3\): expected 3 cells \(one per header column\), found 2/,
  "csv-two-aliases.csv": /header: both "question" and "user_input" could be the question column/,
  "csv-unclosed-quote.csv": /row 2 \(line 3\): malformed CSV: Quoted field unterminated/,
  // .json: native, bare array
  "json-answers-object.json":
    /record 1 \(samples\[0\]\), column "expected_answers": expected a string or a list of strings, found an object/,
  "json-bare-array-number.json":
    /record 2 \(\[1\]\): expected a record \(an object of columns\), found the number 7/,
  "json-bom-crlf-truncated.json": /line 3, column 82: invalid JSON at the end of the input/,
  "json-duplicate-id.json": /record 3 \(samples\[2\]\): duplicate sample id "q1" \(also sample 1\)/,
  "json-empty-question.json":
    /record 3 \(samples\[2\]\), column "question": expected a question \(a non-empty string\), found the string " {3}"/,
  "json-empty.json": /line 1, column 1: invalid JSON at the end of the input/,
  "json-huge-number-grade.json":
    /record 1 \(samples\[0\]\), column "relevance": grade of "d1" should be a number, found the number Infinity/,
  "json-huge-number-id.json":
    /record 1 \(samples\[0\]\), column "id": expected an id \(a string or number\), found the number Infinity/,
  "json-id-object.json":
    /record 2 \(samples\[1\]\), column "id": expected an id \(a string or number\), found an object/,
  "json-invalid-utf8.json": at("line 2, column 20", /invalid UTF-8 at byte 33 \(found 0xe9\)/),
  "json-no-question-column.json":
    /record 1 \(samples\[0\]\): no question column; tried the aliases "question", "query", "user_input", "input"; columns found: "id", "prompt", "answer"/,
  "json-question-boolean.json":
    /record 2 \(samples\[1\]\), column "question": expected a question \(a non-empty string\), found the boolean true/,
  "json-question-object.json":
    /record 1 \(samples\[0\]\), column "question": expected a question \(a non-empty string\), found an object/,
  "json-relevant-id-null.json":
    /record 1 \(samples\[0\]\), column "relevant_ids": item 2 should be a string id, found null/,
  "json-samples-object.json": /samples: expected an array of records, found an object/,
  "json-trailing-garbage.json": /line 6, column 1: invalid JSON at "}\\n"/,
  "json-truncated.json": /line 3, column 4: invalid JSON at the end of the input/,
  "json-two-aliases.json":
    /record 1 \(samples\[0\]\): both "question" and "query" could be the question column/,
  "json-unsafe-integer-id.json":
    /record 1 \(\[0\]\), column "id": .*found the number 12345678901234567000, an integer beyond 2\^53/,
  // .jsonl
  "jsonl-alias-switch.jsonl":
    /line 2: column "query" holds the question here, but earlier records used "question"/,
  "jsonl-bad-json-line-7.jsonl": /line 7, column 39: invalid JSON at "\\"answer\\"/,
  "jsonl-bom-crlf-bad.jsonl":
    /line 3, column "relevant_ids": item 1 should be a string id, found an object/,
  "jsonl-duplicate-id.jsonl": /line 4: duplicate sample id "q2" \(also sample 2\)/,
  "jsonl-empty-question.jsonl":
    /line 2, column "question": expected a question \(a non-empty string\), found the string ""/,
  "jsonl-huge-number-answer.jsonl":
    /line 1, column "answer": item 1 should be a string answer, found the number -Infinity/,
  "jsonl-huge-number-grade.jsonl":
    /line 2, column "relevance": grade of "d1" should be a number, found the number Infinity/,
  "jsonl-id-object.jsonl":
    /line 3, column "id": expected an id \(a string or number\), found an object/,
  "jsonl-invalid-utf8.jsonl": at("line 3, column 29", /invalid UTF-8 at byte 128 \(found 0xc3\)/),
  "jsonl-no-question-column.jsonl":
    /line 1: no question column; tried the aliases "question", "query", "user_input", "input"; columns found: "id", "prompt", "answer"/,
  "jsonl-question-array.jsonl":
    /line 2, column "question": expected a question \(a non-empty string\), found an array of 2 items/,
  "jsonl-record-array.jsonl":
    /line 2: expected a record \(an object of columns\), found an array of 2 items/,
  "jsonl-relevance-string-grade.jsonl":
    /line 1, column "relevance": grade of "d1" should be a number, found the string "high"/,
  "jsonl-truncated.jsonl": /line 3, column 31: invalid JSON at the end of the input/,
  "jsonl-two-aliases.jsonl": /line 2: both "question" and "query" could be the question column/,
  "jsonl-unsafe-integer-relevant-id.jsonl":
    /line 1, column "relevant_ids": item 1 should be a string id, found the number 9007199254740992, an integer beyond 2\^53/,
  // .parquet
  "parquet-corrupt-data.parquet": /column "question": not readable Parquet data: /,
  "parquet-corrupt-footer.parquet":
    /footer \(its length at byte 262\): not a readable Parquet file: parquet metadata length 2147483647/,
  "parquet-duplicate-id.parquet": /row 2: duplicate sample id "q1" \(also sample 1\)/,
  "parquet-empty-question.parquet":
    /row 3, column "question": expected a question \(a non-empty string\), found the string ""/,
  "parquet-empty.parquet": /byte 0: unexpected end of file: a Parquet file holds at least 12 bytes/,
  "parquet-huge-number-id.parquet":
    /row 2, column "id": expected an id \(a string or number\), found the number Infinity/,
  "parquet-ids-not-list.parquet":
    /row 1, column "relevant_ids": expected a string or a list of strings, found the boolean true/,
  "parquet-invalid-utf8.parquet":
    /row 2, column "question": invalid UTF-8 at byte 3 of a string value \(found 0xff\)/,
  "parquet-no-question-column.parquet":
    /header: no question column; tried the aliases "question", "query", "user_input", "input"; columns found: "prompt", "answer"/,
  "parquet-not-parquet.parquet":
    /byte 0: expected the Parquet magic "PAR1" that starts the file, found "id,q": not a Parquet file/,
  "parquet-question-boolean.parquet":
    /row 1, column "question": expected a question \(a non-empty string\), found the boolean true/,
  "parquet-truncated.parquet":
    /byte \d+: expected the Parquet magic "PAR1" that ends the file, found .*: the file is truncated or not Parquet/,
  "parquet-two-aliases.parquet": /header: both "question" and "query" could be the question column/,
  // .json: SQuAD
  "squad-answer-text-number.json":
    /data\[0\]\.paragraphs\[0\]\.qas\[0\]\.answers\[0\]\.text: expected a string, found the number 5/,
  "squad-answers-string.json":
    /data\[0\]\.paragraphs\[0\]\.qas\[0\]\.answers: expected an array, found the string "x"/,
  "squad-duplicate-id.json":
    /data\[0\]\.paragraphs\[0\]\.qas\[1\]: duplicate sample id "a" \(also sample 1\)/,
  "squad-paragraphs-object.json":
    /data\[1\]\.paragraphs: expected an array of paragraphs, found an object/,
  "squad-question-missing.json":
    /data\[0\]\.paragraphs\[0\]\.qas\[1\], column "question": expected a question \(a non-empty string\), found undefined/,
  // .tsv
  "tsv-bom-crlf-empty-question.tsv":
    /row 2 \(line 3\), column "question": expected a question \(a non-empty string\), found the string ""/,
  "tsv-empty-question.tsv":
    /row 1 \(line 2\), column "question": expected a question \(a non-empty string\), found the string " "/,
  "tsv-invalid-utf8.tsv": at("line 2, column 7", /invalid UTF-8 at byte 18 \(found 0xc0 0xaf\)/),
  "tsv-no-question-column.tsv":
    /header: no question column; tried the aliases "question", "query", "user_input", "input"; columns found: "qid", "text", "answer"/,
  "tsv-ragged-row.tsv": /row 2 \(line 3\): expected 3 cells \(one per header column\), found 4/,
  "tsv-two-aliases.tsv": /header: both "query" and "input" could be the question column/,
  "unsupported.xlsx":
    /unsupported\.xlsx: unsupported dataset format; expected \.json .*\.parquet, a BEIR directory .*, or TREC qrels/,
  // .yaml / .yml
  "yaml-billion-laughs.yaml":
    /line 2, column 8 \(the first alias\): invalid YAML: Excessive alias count/,
  "yaml-bom-crlf-syntax-error.yaml":
    /line 4, column 1: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a \]/,
  "yaml-duplicate-id.yaml": /record 2 \(\[1\]\): duplicate sample id "1" \(also sample 1\)/,
  "yaml-duplicate-key.yaml": /line 3, column 3: invalid YAML: Map keys must be unique/,
  "yaml-empty-question.yaml":
    /record 2 \(\[1\]\), column "question": expected a question \(a non-empty string\), found the string ""/,
  "yaml-huge-number-id.yaml":
    /record 1 \(\[0\]\), column "id": expected an id \(a string or number\), found the number Infinity/,
  "yaml-id-object.yaml":
    /record 1 \(\[0\]\), column "id": expected an id \(a string or number\), found an object/,
  "yaml-invalid-utf8.yaml": at(
    "line 1, column 16",
    /invalid UTF-8 at byte 15 \(found 0xed 0xa0 0x80\)/,
  ),
  "yaml-no-question-column.yaml":
    /record 1 \(\[0\]\): no question column; tried the aliases "question", "query", "user_input", "input"; columns found: "prompt", "answer"/,
  "yaml-question-list.yml":
    /record 2 \(\[1\]\), column "question": expected a question \(a non-empty string\), found an array of 2 items/,
  "yaml-scalar.yaml":
    /the top level: expected the native format \{"samples": \[\.\.\.\]\}.*found the string "just a string"/,
  "yaml-syntax-error.yaml": /line 3, column 1: invalid YAML: Flow sequence in block collection/,
  "yaml-truncated.yaml": /line 4, column 1: invalid YAML: Missing closing "quote/,
  "yaml-two-aliases.yaml":
    /record 1 \(\[0\]\): both "question" and "query" could be the question column/,
};

/** QADataset.fromTrec({ qrels: path }). */
const QRELS: Record<string, RegExp> = {
  "bad-grade.txt": /line 2, column 4 \(rel\): expected a numeric grade, found "relevant"/,
  "bom-crlf-bad.txt": /line 3, column 4 \(rel\): expected 4 fields "qid iter docno rel", found 3/,
  "five-fields.txt": /line 2, column 5: expected 4 fields "qid iter docno rel", found more/,
  "huge-grade.txt": /line 1, column 4 \(rel\): expected a numeric grade, found "1e999"/,
  "invalid-utf8.txt": at("line 2, column 13", /invalid UTF-8 at byte 28 \(found 0xe2 0x82\)/),
  "json-not-qrels.txt": /line 1, column 4 \(rel\): expected 4 fields "qid iter docno rel", found 3/,
  "judged-twice.txt":
    /line 3, column 3 \(docno\): document "FT911-3" is judged twice for query "301"/,
  "nan-grade.txt": /line 1, column 4 \(rel\): expected a numeric grade, found "NaN"/,
  "three-fields.txt": /line 2, column 4 \(rel\): expected 4 fields "qid iter docno rel", found 3/,
  "truncated.txt": /line 3, column 4 \(rel\): expected 4 fields "qid iter docno rel", found 3/,
};

/** QADataset.fromTrec({ qrels: <judging 301 and 302>, topics: path }). */
const TOPICS: Record<string, RegExp> = {
  "bom-crlf-no-tab.tsv": /line 2, column 1: expected "qid<TAB>topic text"/,
  "empty-text.tsv": /line 2, column 2: expected "qid<TAB>topic text"/,
  "given-twice.tsv": /line 3: topic 301 is given twice/,
  "invalid-utf8.tsv": at("line 2, column 12", /invalid UTF-8 at byte 45 \(found 0xe9\)/),
  "missing-topic.tsv":
    /missing-topic\.tsv: no topic for query "302", which line 2 of \S+qrels\.txt judges/,
  "no-tab.tsv": /line 2, column 1: expected "qid<TAB>topic text"/,
  "sgml-no-num.txt": /topic 2: expected a <num> field with the topic number/,
  "sgml-no-title.txt": /topic 2 \(302\): expected a non-empty <title> field/,
};

/** TrecRun.load(path). */
const RUNS: Record<string, RegExp> = {
  "bad-score.txt": /line 2, column 5 \(score\): expected a number, found "high"/,
  "bom-crlf-five-fields.txt":
    /line 3, column 6 \(tag\): expected 6 fields "qid Q0 docno rank score tag", found 5/,
  "duplicate-doc.txt":
    /line 3, column 3 \(docno\): document "FT911-1" is listed twice for query "301"/,
  "five-fields.txt":
    /line 3, column 6 \(tag\): expected 6 fields "qid Q0 docno rank score tag", found 5/,
  "huge-score.txt": /line 2, column 5 \(score\): expected a number, found "1e999"/,
  "invalid-utf8.txt": at("line 2, column 14", /invalid UTF-8 at byte 40 \(found 0xfc\)/),
  "nan-score.txt": /line 2, column 5 \(score\): expected a number, found "NaN"/,
  "qrels-not-run.txt":
    /line 1, column 5 \(score\): expected 6 fields "qid Q0 docno rank score tag", found 4/,
  "truncated.txt":
    /line 3, column 4 \(rank\): expected 6 fields "qid Q0 docno rank score tag", found 3/,
};

/** Predictions.load(path). */
const PREDICTIONS: Record<string, RegExp> = {
  "answer-missing.jsonl":
    /line 2, column "answer": expected the predicted answer \(a string\), found undefined/,
  "answer-null-record.json":
    /record 2, column "answer": expected the predicted answer \(a string\), found null/,
  "answer-number.json": /key "q2": expected the predicted answer \(a string\), found the number 42/,
  "bad-json-line-7.jsonl": /line 7, column 28: invalid JSON at "}"/,
  "bom-crlf-bad.jsonl":
    /line 2, column "answer": expected the predicted answer \(a string\), found an array of 1 item/,
  "bom-crlf-truncated.json": /line 3, column 13: invalid JSON at the end of the input/,
  "duplicate-id.json": /record 2: a prediction for id "q1" is given twice/,
  "duplicate-id.jsonl": /line 3: a prediction for id "q1" is given twice/,
  "empty-question.jsonl":
    /line 2, column "question": expected a non-empty string, found the string ""/,
  "empty.json": /line 1, column 1: invalid JSON at the end of the input/,
  "huge-number-id.jsonl":
    /line 2, column "id": expected an id \(a string or number\), found the number Infinity/,
  "id-object.jsonl": /line 2, column "id": expected an id \(a string or number\), found an object/,
  "invalid-utf8.json": at("line 3, column 13", /invalid UTF-8 at byte 37 \(found 0xe9\)/),
  "invalid-utf8.jsonl": at("line 2, column 25", /invalid UTF-8 at byte 49 \(found 0xc3\)/),
  "no-id-or-question.jsonl":
    /line 2: expected an "id" or a "question" to match samples by; found columns prediction/,
  "record-array.jsonl":
    /line 2: expected a record \{id \| question, answer, retrieved_ids\?\}, found an array of 2 items/,
  "retrieved-item-object.jsonl":
    /line 1, column "retrieved_ids": item 2 should be a string id, found an object/,
  "retrieved-not-list.jsonl":
    /line 1, column "retrieved_ids": expected a list of ids, found the string "d1 d2"/,
  "top-level-string.json":
    /the top level: expected an object of \{question_id: answer\} or an array of \{id, answer\} records, found the string "Shakespeare"/,
  "truncated.json": /line 3, column 13: invalid JSON at the end of the input/,
  "unsafe-integer-id.json":
    /record 1, column "id": .*found the number 9007199254740992, an integer beyond 2\^53/,
};

/** loadCorpus(path). */
const CORPUS: Record<string, RegExp> = {
  "bom-crlf-bad-json.jsonl": /line 2, column 23: invalid JSON at "}"/,
  "duplicate-id.jsonl": /line 3: duplicate passage id "d1"/,
  "invalid-utf8.jsonl": at(
    "line 2, column 28",
    /invalid UTF-8 at byte 71 \(found 0xe0 0x80 0x80\)/,
  ),
  "invalid-utf8.tsv": at("line 2, column 8", /invalid UTF-8 at byte 16 \(found 0xf5\)/),
  "ragged.csv": /row 2 \(line 3\): expected 3 cells \(one per header column\), found 2/,
  "text-number.jsonl":
    /line 2, column "text": expected the passage text \(a string\), found the number 7/,
  "unsafe-integer-id.jsonl":
    /line 2, column "_id": .*found the number 12345678901234567000, an integer beyond 2\^53/,
};

let judged301And302: Promise<string> | undefined;
const qrelsFor301And302 = () => {
  judged301And302 ??= tempFile("qrels.txt", "301 0 d1 1\n302 0 d2 1\n");
  return judged301And302;
};

const SUITES: {
  kind: string;
  expectations: Record<string, RegExp>;
  load: (path: string) => Promise<unknown>;
}[] = [
  { kind: "datasets", expectations: DATASETS, load: (path) => QADataset.load(path) },
  { kind: "qrels", expectations: QRELS, load: (path) => QADataset.fromTrec({ qrels: path }) },
  {
    kind: "topics",
    expectations: TOPICS,
    load: async (path) => QADataset.fromTrec({ qrels: await qrelsFor301And302(), topics: path }),
  },
  { kind: "runs", expectations: RUNS, load: (path) => TrecRun.load(path) },
  { kind: "predictions", expectations: PREDICTIONS, load: (path) => Predictions.load(path) },
  { kind: "corpus", expectations: CORPUS, load: (path) => loadCorpus(path) },
];

for (const { kind, expectations, load } of SUITES) {
  describe(`bad ${kind}`, async () => {
    const entries = (await readdir(join(bad, kind))).sort();
    it("has an expectation for every entry in the corpus", () => {
      expect(entries).toEqual(Object.keys(expectations).sort());
    });
    it.each(entries)("%s → ConfigurationError naming the file and the place", async (entry) => {
      const path = join(bad, kind, entry);
      const error = await load(path).then(
        (loaded) => new Error(`loaded without an error: ${JSON.stringify(loaded).slice(0, 200)}`),
        (e: unknown) => e,
      );
      expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
      const message = (error as Error).message;
      expect(message).toContain(path);
      expect(message).toMatch(expectations[entry] as RegExp);
      // Invalid UTF-8 is reported as such, never decoded to U+FFFD and loaded.
      if (entry.includes("invalid-utf8") && !entry.endsWith(".parquet"))
        expect(message).toMatch(UTF8);
      expect(message).not.toContain("\uFFFD");
      // The fields say the same for code: the kind of problem, the file, the line it names.
      const { kind: problem, path: file, line } = error as ConfigurationError;
      expect(["invalid-input", "unreadable-file", "invalid-option"]).toContain(problem);
      expect(file?.startsWith(path), `path ${file}`).toBe(true);
      const named = /^: (?:line (\d+)|(?:row \d+|header) \(line (\d+)\))/.exec(
        message.slice(message.indexOf(file as string) + (file as string).length),
      );
      if (named !== null) expect(line).toBe(Number(named[1] ?? named[2]));
    });
  });
}

// A BOM and CRLF line endings are not malformed: the same content must load as it would without
// them, with no "\r" left at the end of a question, id, answer or tag.
const BOM = "\uFEFF";
const crlf = (...rows: string[]) => `${BOM}${rows.join("\r\n")}\r\n`;

describe("valid files with a BOM and CRLF line endings load", () => {
  const noCarriageReturn = (value: unknown) => expect(JSON.stringify(value)).not.toMatch(/\\r/);
  const DATASET_FILES: { name: string; content: string; samples: number; first: unknown }[] = [
    {
      name: "native.json",
      content: crlf(
        '{"samples": [',
        '  {"id": "q1", "question": "Who?", "answer": "x"},',
        '  {"id": "q2", "question": "What?"}',
        "]}",
      ),
      samples: 2,
      first: { id: "q1", question: "Who?", expectedAnswers: ["x"], relevantIds: [] },
    },
    {
      name: "bare.json",
      content: crlf("[", '  {"query": "Who?", "contexts": ["d1"]}', "]"),
      samples: 1,
      first: { question: "Who?", expectedAnswers: [], relevantIds: ["d1"] },
    },
    {
      name: "squad.json",
      content: crlf(
        '{"data": [{"title": "T", "paragraphs": [{"context": "c",',
        '  "qas": [{"id": "a", "question": "Q?", "answers": [{"text": "x", "answer_start": 0}]}]}]}]}',
      ),
      samples: 1,
      first: {
        id: "a",
        question: "Q?",
        expectedAnswers: ["x"],
        relevantIds: ["T#0"],
        metadata: { title: "T", is_impossible: false },
      },
    },
    {
      name: "eval.jsonl",
      content: crlf(
        '{"id": "q1", "question": "Who?"}',
        "",
        '{"id": "q2", "question": "What?"}',
        '{"id": "q3", "question": "Why?"}',
      ),
      samples: 3,
      first: { id: "q1", question: "Who?", expectedAnswers: [], relevantIds: [] },
    },
    {
      name: "eval.csv",
      content: crlf("id,question,answer", 'q1,"Who,\r\nreally?",x', "q2,What?,y"),
      samples: 2,
      first: { id: "q1", question: "Who,\r\nreally?", expectedAnswers: ["x"], relevantIds: [] },
    },
    {
      name: "eval.tsv",
      content: crlf("id\tquestion\tanswer", "q1\tWho?\tx", "q2\tWhat?\ty"),
      samples: 2,
      first: { id: "q1", question: "Who?", expectedAnswers: ["x"], relevantIds: [] },
    },
    {
      name: "eval.yaml",
      content: crlf("- id: q1", "  question: Who?", "- id: q2", "  question: What?"),
      samples: 2,
      first: { id: "q1", question: "Who?", expectedAnswers: [], relevantIds: [] },
    },
    {
      name: "eval.yml",
      content: crlf("samples:", "  - question: Who?"),
      samples: 1,
      first: { question: "Who?", expectedAnswers: [], relevantIds: [] },
    },
  ];
  it.each(DATASET_FILES)("$name", async ({ name, content, samples, first }) => {
    const dataset = await QADataset.load(await tempFile(name, content));
    expect(dataset.length).toBe(samples);
    expect(dataset.samples[0]).toEqual(first);
    // A quoted CSV cell keeps its own line break; nothing else holds a "\r".
    if (name !== "eval.csv") noCarriageReturn(dataset.samples);
  });

  it("a BEIR directory", async () => {
    const dir = await tempDir("beir-");
    await mkdir(join(dir, "qrels"));
    await writeFile(
      join(dir, "queries.jsonl"),
      crlf('{"_id": "q1", "text": "Who?"}', '{"_id": "q2", "text": "What?"}'),
    );
    await writeFile(
      join(dir, "qrels", "test.tsv"),
      crlf("query-id\tcorpus-id\tscore", "q1\td1\t1", "q2\td2\t0"),
    );
    const dataset = await QADataset.load(dir);
    expect(dataset.samples).toEqual([
      {
        id: "q1",
        question: "Who?",
        expectedAnswers: [],
        relevantIds: ["d1"],
        relevance: { d1: 1 },
      },
      { id: "q2", question: "What?", expectedAnswers: [], relevantIds: [], relevance: { d2: 0 } },
    ]);
  });

  it("TREC qrels and topics (tab-separated and SGML)", async () => {
    const qrels = await tempFile(
      "qrels.txt",
      crlf("301 0 FT911-3 1", "301 0 FT911-4 0", "302 0 FT911-5 2"),
    );
    const tsv = await tempFile(
      "topics.tsv",
      crlf("301\tInternational organized crime", "302\tPolio"),
    );
    const sgml = await tempFile(
      "topics.txt",
      crlf(
        "<top>",
        "<num> Number: 301",
        "<title> International organized crime",
        "</top>",
        "<top>",
        "<num> Number: 302",
        "<title> Polio",
        "</top>",
      ),
    );
    for (const topics of [tsv, sgml]) {
      const dataset = await QADataset.fromTrec({ qrels, topics });
      expect(dataset.samples).toEqual([
        {
          id: "301",
          question: "International organized crime",
          expectedAnswers: [],
          relevantIds: ["FT911-3"],
          relevance: { "FT911-3": 1, "FT911-4": 0 },
        },
        {
          id: "302",
          question: "Polio",
          expectedAnswers: [],
          relevantIds: ["FT911-5"],
          relevance: { "FT911-5": 2 },
        },
      ]);
    }
  });

  it("a TREC run", async () => {
    const run = await TrecRun.load(
      await tempFile(
        "run.txt",
        crlf("301 Q0 FT911-3 1 9.5 bm25", "301 Q0 FT911-4 2 9.9 bm25", "302 Q0 FT911-5 1 1 bm25"),
      ),
    );
    expect(run.tag).toBe("bm25");
    expect(run.queryIds()).toEqual(["301", "302"]);
    expect(run.ranking("301")).toEqual([
      { id: "FT911-4", score: 9.9 },
      { id: "FT911-3", score: 9.5 },
    ]);
  });

  it("predictions (.json object and .jsonl records)", async () => {
    const json = await Predictions.load(
      await tempFile("p.json", crlf("{", '  "q1": "Paris",', '  "q2": ""', "}")),
    );
    const jsonl = await Predictions.load(
      await tempFile(
        "p.jsonl",
        crlf(
          '{"id": "q1", "answer": "Paris", "retrieved_ids": ["d1"]}',
          '{"id": "q2", "answer": ""}',
        ),
      ),
    );
    for (const predictions of [json, jsonl]) {
      expect(predictions.size).toBe(2);
      const sample = { id: "q1", question: "Capital?", expectedAnswers: [], relevantIds: [] };
      expect((await predictions.query("Capital?", { sample })).answer).toBe("Paris");
    }
    expect(
      (
        await jsonl.query("x", {
          sample: { id: "q1", question: "x", expectedAnswers: [], relevantIds: [] },
        })
      ).chunks,
    ).toEqual([{ id: "d1" }]);
  });

  it("numbers where text is expected are read as their decimal text (not an error)", async () => {
    // Deliberate: a numeric question or id (common in CSV exports and Parquet) is coerced; only
    // numbers that cannot be read exactly (±Infinity, integers beyond 2^53) are refused, above.
    const path = await tempFile(
      "eval.json",
      '[{"id": 7, "question": 42, "answer": 3.5, "relevant_ids": [9007199254740991]}]',
    );
    expect((await QADataset.load(path)).samples).toEqual([
      { id: "7", question: "42", expectedAnswers: ["3.5"], relevantIds: ["9007199254740991"] },
    ]);
  });
});

describe("strict UTF-8 across the 1 MiB read chunks of streamed files", () => {
  const CHUNK = 1 << 20;
  /** JSONL whose `lines`-th line starts `offset` bytes before the first chunk boundary. */
  function jsonlUpTo(target: number): { lines: string[]; bytes: number } {
    const lines: string[] = [];
    let bytes = 0;
    while (bytes + 40 < target) {
      const line = `{"id": "q${lines.length + 1}", "question": "q"}`;
      lines.push(line);
      bytes += line.length + 1;
    }
    return { lines, bytes };
  }

  it("keeps a multi-byte character cut by a chunk boundary intact", async () => {
    const { lines, bytes } = jsonlUpTo(CHUNK);
    // "€" is 3 bytes (e2 82 ac); place it so that its bytes straddle offset CHUNK.
    const prefix = `{"id": "last", "question": "`;
    const pad = "x".repeat(CHUNK - bytes - prefix.length - 1);
    const text = `${lines.join("\n")}\n${prefix}${pad}€ and ünïcödé"}\n`;
    expect(Buffer.byteLength(`${lines.join("\n")}\n${prefix}${pad}`)).toBe(CHUNK - 1);
    const dataset = await QADataset.load(await tempFile("eval.jsonl", text));
    expect(dataset.length).toBe(lines.length + 1);
    expect(dataset.samples.at(-1)?.question).toBe(`${pad}€ and ünïcödé`);
  });

  it("names the line, column and file byte of invalid UTF-8 after the first chunk", async () => {
    const { lines, bytes } = jsonlUpTo(CHUNK + 5000);
    const path = await tempFile(
      "eval.jsonl",
      Buffer.concat([
        Buffer.from(`${lines.join("\n")}\n{"question": "ab`),
        Buffer.from([0xff]),
        Buffer.from('"}\n'),
      ]),
    );
    const error = await rejection(QADataset.load(path));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    // 16 characters (and bytes) precede the bad byte on its line: {"question": "ab
    expect(error.message).toBe(
      `${path}: line ${lines.length + 1}, column 17: invalid UTF-8 at byte ${bytes + 16} (found 0xff); expected a UTF-8 text file`,
    );
  });

  it("loads a valid U+FFFD character (bytes ef bf bd) as itself", async () => {
    for (const name of ["eval.json", "eval.jsonl"]) {
      const content = name.endsWith("l")
        ? '{"question": "a \uFFFD b"}\n'
        : '[{"question": "a \uFFFD b"}]';
      const dataset = await QADataset.load(await tempFile(name, content));
      expect(dataset.samples[0]?.question).toBe("a \uFFFD b");
    }
  });

  it("reports a file that ends inside a multi-byte sequence", async () => {
    const path = await tempFile(
      "eval.jsonl",
      Buffer.from([...Buffer.from('{"question": "caf'), 0xc3]),
    );
    expect((await rejection(QADataset.load(path))).message).toBe(
      `${path}: line 1, column 18: invalid UTF-8 at byte 17 (found 0xc3); expected a UTF-8 text file`,
    );
  });

  it("counts the BOM in the byte offset but not in the column", async () => {
    const path = await tempFile(
      "p.json",
      Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('{"q1": "'), 0xfe, ...Buffer.from('"}')]),
    );
    expect((await rejection(Predictions.load(path))).message).toBe(
      `${path}: line 1, column 9: invalid UTF-8 at byte 11 (found 0xfe); expected a UTF-8 text file`,
    );
  });
});

// JSON (and YAML, CSV, Parquet) keys __proto__, constructor and prototype are plain data: they end
// up as own properties of metadata, and neither the metadata nor Object.prototype changes shape.
describe("__proto__, constructor and prototype are plain data in every format", () => {
  const EVIL_JSON =
    '{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 2}}, "prototype": {"polluted": 3}}';
  const expectPlain = (metadata: unknown, values: [unknown, unknown, unknown]) => {
    const record = metadata as Record<string, unknown>;
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(record, "__proto__")?.value).toEqual(values[0]);
    expect(Object.getOwnPropertyDescriptor(record, "constructor")?.value).toEqual(values[1]);
    expect(Object.getOwnPropertyDescriptor(record, "prototype")?.value).toEqual(values[2]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  };
  const OBJECTS: [unknown, unknown, unknown] = [
    { polluted: 1 },
    { prototype: { polluted: 2 } },
    { polluted: 3 },
  ];
  const STRINGS: [unknown, unknown, unknown] = ["a", "b", "c"];

  it.each([
    ["native.json", `{"samples": [{"question": "q", "metadata": ${EVIL_JSON}}]}`],
    ["bare.json", `[{"question": "q", "metadata": ${EVIL_JSON}}]`],
    ["eval.jsonl", `{"question": "q", "metadata": ${EVIL_JSON}}\n`],
    [
      "eval.yaml",
      "- question: q\n  metadata:\n    __proto__: {polluted: 1}\n    constructor: {prototype: {polluted: 2}}\n    prototype: {polluted: 3}\n",
    ],
    ["eval.csv", `question,metadata\nq,"${EVIL_JSON.replaceAll('"', '""')}"\n`],
    ["eval.tsv", `question\tmetadata\nq\t"${EVIL_JSON.replaceAll('"', '""')}"\n`],
  ])("%s: in a metadata object", async (name, content) => {
    const [sample] = (await QADataset.load(await tempFile(name, content))).samples;
    expectPlain(sample?.metadata, OBJECTS);
  });

  it.each([
    ["bare.json", '[{"question": "q", "__proto__": "a", "constructor": "b", "prototype": "c"}]'],
    ["eval.jsonl", '{"question": "q", "__proto__": "a", "constructor": "b", "prototype": "c"}\n'],
    ["eval.yaml", "- question: q\n  __proto__: a\n  constructor: b\n  prototype: c\n"],
    ["eval.csv", "question,__proto__,constructor,prototype\nq,a,b,c\n"],
    ["eval.tsv", "question\t__proto__\tconstructor\tprototype\nq\ta\tb\tc\n"],
  ])("%s: as extra columns", async (name, content) => {
    const [sample] = (await QADataset.load(await tempFile(name, content))).samples;
    expectPlain(sample?.metadata, STRINGS);
  });

  it(".parquet: as extra columns", async () => {
    const buffer = parquetWriteBuffer({
      columnData: [
        { name: "question", data: ["q"], type: "STRING" },
        { name: "__proto__", data: ["a"], type: "STRING" },
        { name: "constructor", data: ["b"], type: "STRING" },
        { name: "prototype", data: ["c"], type: "STRING" },
      ],
    });
    const path = await tempFile("eval.parquet", new Uint8Array(buffer));
    const [sample] = (await QADataset.load(path)).samples;
    expectPlain(sample?.metadata, STRINGS);
  });

  it("a BEIR directory: in a query's metadata", async () => {
    const dir = await tempDir("beir-");
    await mkdir(join(dir, "qrels"));
    await writeFile(
      join(dir, "queries.jsonl"),
      `{"_id": "q1", "text": "Who?", "metadata": ${EVIL_JSON}}\n`,
    );
    await writeFile(
      join(dir, "qrels", "test.tsv"),
      "query-id\tcorpus-id\tscore\nq1\t__proto__\t1\n",
    );
    const [sample] = (await QADataset.load(dir)).samples;
    expectPlain(sample?.metadata, OBJECTS);
    expect(Object.getOwnPropertyDescriptor(sample?.relevance, "__proto__")?.value).toBe(1);
    expect(sample?.relevantIds).toEqual(["__proto__"]);
  });

  it("TREC qrels: as docnos in relevance", async () => {
    const qrels = await tempFile(
      "qrels.txt",
      "301 0 __proto__ 1\n301 0 constructor 0\n301 0 prototype 2\n",
    );
    const [sample] = (await QADataset.fromTrec({ qrels })).samples;
    expect(Object.getPrototypeOf(sample?.relevance)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(sample?.relevance, "__proto__")?.value).toBe(1);
    expect(Object.getOwnPropertyDescriptor(sample?.relevance, "constructor")?.value).toBe(0);
    expect(Object.getOwnPropertyDescriptor(sample?.relevance, "prototype")?.value).toBe(2);
    expect(sample?.relevantIds).toEqual(["__proto__", "prototype"]);
  });

  it("predictions: as ids, answered only when the file gives them", async () => {
    const path = await tempFile("p.json", '{"__proto__": "a", "constructor": "b"}');
    const predictions = await Predictions.load(path);
    const ask = (id: string) =>
      predictions.query(id, { sample: { id, question: id, expectedAnswers: [], relevantIds: [] } });
    expect((await ask("__proto__")).answer).toBe("a");
    expect((await ask("constructor")).answer).toBe("b");
    await expect(ask("prototype")).rejects.toThrow(/no prediction for sample "prototype"/);
    await expect(ask("toString")).rejects.toThrow(/no prediction for sample "toString"/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
