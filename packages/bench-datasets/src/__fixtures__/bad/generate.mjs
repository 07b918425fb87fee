// Writes the bad-input corpus beside it (datasets/, qrels/, topics/, runs/, predictions/, corpus/), which
// src/bad-inputs.test.ts iterates. The bytes are committed; rerun this only to change the corpus:
//   node src/__fixtures__/bad/generate.mjs   (from packages/bench-datasets)
// then update the expectations in the test.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parquetWriteBuffer } from "hyparquet-writer";

const root = fileURLToPath(new URL("./", import.meta.url));
for (const kind of ["datasets", "qrels", "topics", "runs", "predictions", "corpus"]) {
  rmSync(join(root, kind), { recursive: true, force: true });
}
const w = (rel, content) => {
  const path = join(root, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
};
const lines = (...rows) => `${rows.join("\n")}\n`;
const crlf = (...rows) => `${rows.join("\r\n")}\r\n`;
const BOM = "\uFEFF";
const bytes = (...parts) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))));
const pq = (columnData) => Buffer.from(parquetWriteBuffer({ columnData }));
const rec = (o) => JSON.stringify(o);

// ---------- datasets: QADataset.load ----------
const D = "datasets/";
const native = (samples) => `{"samples": [\n${samples.map((s) => `  ${rec(s)}`).join(",\n")}\n]}\n`;
const good3 = [
  { id: "q1", question: "Who wrote Hamlet?", expected_answers: ["Shakespeare"], relevant_ids: ["d1"] },
  { id: "q2", question: "Capital of France?", expected_answers: ["Paris"], relevant_ids: ["d2"] },
  { id: "q3", question: "Boiling point of water?", expected_answers: ["100 C"], relevant_ids: ["d3"] },
];
// .json
w(`${D}json-truncated.json`, native(good3).slice(0, 120));
w(`${D}json-empty.json`, "");
w(`${D}json-question-boolean.json`, native([good3[0], { ...good3[1], question: true }]));
w(`${D}json-question-object.json`, native([{ ...good3[0], question: { text: "Who?" } }]));
w(`${D}json-id-object.json`, native([good3[0], { ...good3[1], id: { value: "q2" } }]));
w(`${D}json-empty-question.json`, native([good3[0], good3[1], { ...good3[2], question: "   " }]));
w(`${D}json-no-question-column.json`, native([{ id: "q1", prompt: "Who?", answer: "x" }]));
w(`${D}json-two-aliases.json`, native([{ id: "q1", question: "Who?", query: "Who?" }]));
w(`${D}json-duplicate-id.json`, native([good3[0], good3[1], { ...good3[2], id: "q1" }]));
w(`${D}json-huge-number-id.json`, '{"samples": [\n  {"id": 1e999, "question": "Who?"}\n]}\n');
w(`${D}json-huge-number-grade.json`, '{"samples": [\n  {"question": "Who?", "relevance": {"d1": 1e999}}\n]}\n');
w(`${D}beir-queries-unsafe-integer-id/queries.jsonl`, lines('{"_id": 12345678901234567890, "text": "Who?"}'));
w(`${D}beir-queries-unsafe-integer-id/qrels/test.tsv`, lines("query-id\tcorpus-id\tscore", "12345678901234567890\td1\t1"));
w(`${D}jsonl-unsafe-integer-relevant-id.jsonl`, lines('{"id": "q1", "question": "Who?", "relevant_ids": [9007199254740993]}'));
w(`${D}json-unsafe-integer-id.json`, '[\n  {"id": 12345678901234567890, "question": "Who?"}\n]\n');
w(`${D}json-answers-object.json`, native([{ ...good3[0], expected_answers: { a: 1 } }]));
w(`${D}json-relevant-id-null.json`, native([{ ...good3[0], relevant_ids: ["d1", null] }]));
w(`${D}json-samples-object.json`, '{"samples": {"question": "Who?"}}\n');
w(`${D}json-bare-array-number.json`, `[${rec(good3[0])}, 7]\n`);
w(`${D}json-bom-crlf-truncated.json`, BOM + native(good3).replace(/\n/g, "\r\n").slice(0, 200));
w(`${D}json-invalid-utf8.json`, bytes('{"samples": [\n  {"question": "caf', [0xe9], '"}\n]}\n'));
w(`${D}json-trailing-garbage.json`, `${native(good3)}}\n`);
// SQuAD
const squad = (qas) => `${JSON.stringify({ version: "v2.0", data: [{ title: "T", paragraphs: [{ context: "c", qas }] }] }, null, 1)}\n`;
w(`${D}squad-answers-string.json`, squad([{ id: "a", question: "Q?", answers: "x" }]));
w(`${D}squad-answer-text-number.json`, squad([{ id: "a", question: "Q?", answers: [{ text: 5, answer_start: 0 }] }]));
w(`${D}squad-question-missing.json`, squad([{ id: "a", question: "Q?", answers: [] }, { id: "b", answers: [] }]));
w(`${D}squad-duplicate-id.json`, squad([{ id: "a", question: "Q?", answers: [] }, { id: "a", question: "R?", answers: [] }]));
w(`${D}squad-paragraphs-object.json`, `${JSON.stringify({ data: [{ title: "T", paragraphs: [{ qas: [] }] }, { title: "U", paragraphs: { qas: [] } }] })}\n`);
// .jsonl
const jl = (...recs) => lines(...recs.map((r) => (typeof r === "string" ? r : rec(r))));
const q = (i, extra = {}) => ({ id: `q${i}`, question: `question ${i}`, answer: `a${i}`, ...extra });
w(`${D}jsonl-bad-json-line-7.jsonl`, jl(q(1), q(2), q(3), "", q(5), q(6), '{"id": "q7", "question": "question 7" "answer": "a7"}', q(8)));
w(`${D}jsonl-truncated.jsonl`, jl(q(1), q(2), q(3)).slice(0, -20));
w(`${D}jsonl-question-array.jsonl`, jl(q(1), q(2, { question: ["a", "b"] })));
w(`${D}jsonl-id-object.jsonl`, jl(q(1), q(2), q(3, { id: { $oid: "abc" } })));
w(`${D}jsonl-record-array.jsonl`, jl(q(1), ["question 2", "a2"]));
w(`${D}jsonl-empty-question.jsonl`, jl(q(1), q(2, { question: "" })));
w(`${D}jsonl-no-question-column.jsonl`, jl({ id: "q1", prompt: "Who?", answer: "x" }));
w(`${D}jsonl-two-aliases.jsonl`, jl(q(1), q(2, { query: "other" })));
w(`${D}jsonl-alias-switch.jsonl`, jl(q(1), { id: "q2", query: "question 2" }));
w(`${D}jsonl-duplicate-id.jsonl`, jl(q(1), q(2), q(3), q(4, { id: "q2" })));
w(`${D}jsonl-huge-number-grade.jsonl`, jl(q(1), '{"id": "q2", "question": "question 2", "relevance": {"d1": 1e999}}'));
w(`${D}jsonl-huge-number-answer.jsonl`, jl('{"id": "q1", "question": "question 1", "answer": [-1e999]}'));
w(`${D}jsonl-invalid-utf8.jsonl`, bytes(jl(q(1), q(2)), '{"id": "q3", "question": "na', [0xc3, 0x28], 've"}\n'));
w(`${D}jsonl-bom-crlf-bad.jsonl`, BOM + crlf(rec(q(1)), rec(q(2)), rec(q(3, { question: 42.5, relevant_ids: [{}] }))));
w(`${D}jsonl-relevance-string-grade.jsonl`, jl(q(1, { relevance: { d1: "high" } })));
// .csv
w(`${D}csv-ragged-row.csv`, lines("id,question,answer", "q1,Who?,x", "q2,What?,y,extra", "q3,Why?,z"));
w(`${D}csv-short-row.csv`, lines("id,question,answer", "q1,Who?,x", "q2,What?"));
w(`${D}csv-no-question-column.csv`, lines("id,prompt,answer", "q1,Who?,x"));
w(`${D}csv-two-aliases.csv`, lines("id,question,user_input", "q1,Who?,Who?"));
w(`${D}csv-empty-question.csv`, lines("id,question,answer", "q1,Who?,x", "q2,,y"));
w(`${D}csv-unclosed-quote.csv`, lines("id,question,answer", "q1,Who?,x", 'q2,"What, y', "q3,Why?,z"));
w(`${D}csv-duplicate-header.csv`, lines("id,question,answer,answer", "q1,Who?,x,y"));
w(`${D}csv-duplicate-id.csv`, lines("id,question", "q1,Who?", "q2,What?", "q1,Why?"));
w(`${D}csv-relevance-not-object.csv`, lines("id,question,relevance", 'q1,Who?,"[1, 2]"'));
w(`${D}csv-huge-number-grade.csv`, lines("id,question,relevance", 'q1,Who?,"{""d1"": 1e999}"'));
w(`${D}csv-relevant-ids-objects.csv`, lines("id,question,relevant_ids", 'q1,Who?,"[{""id"": ""d1""}]"'));
w(`${D}csv-metadata-not-object.csv`, lines("id,question,metadata", 'q1,Who?,"{""a"": 1}"', "q2,What?,plain text"));
w(`${D}csv-empty.csv`, "");
w(`${D}csv-invalid-utf8.csv`, bytes("id,question\nq1,Who?\nq2,Wh", [0xff, 0xfe], "at?\n"));
w(`${D}csv-bom-crlf-ragged.csv`, BOM + crlf("id,question,answer", "q1,Who?,x", "q2,What?,y", "q3,Why?"));
// .tsv
w(`${D}tsv-ragged-row.tsv`, lines("id\tquestion\tanswer", "q1\tWho?\tx", "q2\tWhat?\ty\textra"));
w(`${D}tsv-no-question-column.tsv`, lines("qid\ttext\tanswer", "q1\tWho?\tx"));
w(`${D}tsv-two-aliases.tsv`, lines("id\tquery\tinput", "q1\tWho?\tWho?"));
w(`${D}tsv-empty-question.tsv`, lines("id\tquestion", "q1\t "));
w(`${D}tsv-invalid-utf8.tsv`, bytes("id\tquestion\n", "q1\tWho", [0xc0, 0xaf], "?\n"));
w(`${D}tsv-bom-crlf-empty-question.tsv`, BOM + crlf("id\tquestion", "q1\tWho?", "q2\t"));
// .yaml / .yml
w(`${D}yaml-syntax-error.yaml`, lines("- question: Who?", "  answer: [x, y", "- question: What?"));
w(`${D}yaml-truncated.yaml`, lines("samples:", "  - question: Who?", '    answer: "Shakes'));
w(`${D}yaml-duplicate-key.yaml`, lines("- question: Who?", "  answer: x", "  answer: y"));
w(`${D}yaml-question-list.yml`, lines("- question: Who?", "- question: [a, b]"));
w(`${D}yaml-id-object.yaml`, lines("- id: {a: 1}", "  question: Who?"));
w(`${D}yaml-empty-question.yaml`, lines("- question: Who?", "- question: ''"));
w(`${D}yaml-no-question-column.yaml`, lines("- prompt: Who?", "  answer: x"));
w(`${D}yaml-two-aliases.yaml`, lines("- question: Who?", "  query: Who?"));
w(`${D}yaml-duplicate-id.yaml`, lines("- {id: 1, question: Who?}", "- {id: 1, question: What?}"));
w(`${D}yaml-huge-number-id.yaml`, lines("- id: 1e999", "  question: Who?"));
w(`${D}yaml-scalar.yaml`, lines("just a string"));
w(`${D}yaml-billion-laughs.yaml`, lines("a: &a [x, x, x, x, x, x, x, x, x, x]", "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]", "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]", "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]", "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]", "samples: [*e]"));
w(`${D}yaml-invalid-utf8.yaml`, bytes("- question: Who", [0xed, 0xa0, 0x80], "?\n"));
w(`${D}yaml-bom-crlf-syntax-error.yaml`, BOM + crlf("- question: Who?", "- question: What?", "  answer: [x, y", "- question: Why?"));
// .parquet
const pqGood = pq([
  { name: "id", data: ["q1", "q2"], type: "STRING" },
  { name: "question", data: ["Who?", "What?"], type: "STRING" },
]);
w(`${D}parquet-not-parquet.parquet`, "id,question\nq1,Who?\n");
w(`${D}parquet-empty.parquet`, "");
w(`${D}parquet-truncated.parquet`, pqGood.subarray(0, Math.floor(pqGood.length / 2)));
w(`${D}parquet-corrupt-footer.parquet`, Buffer.concat([pqGood.subarray(0, pqGood.length - 8), Buffer.from([0xff, 0xff, 0xff, 0x7f]), Buffer.from("PAR1")]));
w(`${D}parquet-question-boolean.parquet`, pq([{ name: "question", data: [true, false], type: "BOOLEAN" }]));
w(`${D}parquet-invalid-utf8.parquet`, pq([
  { name: "id", data: ["q1", "q2"], type: "STRING" },
  { name: "question", data: [new TextEncoder().encode("Who?"), Uint8Array.from([0x57, 0x68, 0xff, 0x3f])], type: "BYTE_ARRAY" },
]));
{
  // A page of the question column with its bytes scrambled: the footer is intact, the data is not.
  const b = Buffer.from(pq([
    { name: "id", data: ["q1", "q2", "q3"], type: "STRING" },
    { name: "question", data: ["Who wrote Hamlet?", "What is the capital?", "Why?"], type: "STRING" },
  ]));
  b[52] ^= 0xff;
  b[53] ^= 0x5a;
  w(`${D}parquet-corrupt-data.parquet`, b);
}
w(`${D}parquet-no-question-column.parquet`, pq([{ name: "prompt", data: ["Who?"], type: "STRING" }, { name: "answer", data: ["x"], type: "STRING" }]));
w(`${D}parquet-two-aliases.parquet`, pq([{ name: "question", data: ["Who?"], type: "STRING" }, { name: "query", data: ["Who?"], type: "STRING" }]));
w(`${D}parquet-empty-question.parquet`, pq([{ name: "question", data: ["Who?", "What?", ""], type: "STRING" }]));
w(`${D}parquet-huge-number-id.parquet`, pq([{ name: "id", data: [1, Infinity], type: "DOUBLE" }, { name: "question", data: ["Who?", "What?"], type: "STRING" }]));
w(`${D}parquet-duplicate-id.parquet`, pq([{ name: "id", data: ["q1", "q1"], type: "STRING" }, { name: "question", data: ["Who?", "What?"], type: "STRING" }]));
w(`${D}parquet-ids-not-list.parquet`, pq([{ name: "question", data: ["Who?"], type: "STRING" }, { name: "relevant_ids", data: [true], type: "BOOLEAN" }]));
// BEIR directories
const queries = jl({ _id: "q1", text: "Who?" }, { _id: "q2", text: "What?" });
const qrelsTsv = lines("query-id\tcorpus-id\tscore", "q1\td1\t1", "q2\td2\t1");
w(`${D}beir-no-qrels-dir/queries.jsonl`, queries);
w(`${D}beir-no-test-split/queries.jsonl`, queries);
w(`${D}beir-no-test-split/qrels/dev.tsv`, qrelsTsv);
w(`${D}beir-no-queries/qrels/test.tsv`, qrelsTsv);
w(`${D}beir-qrels-no-score-column/queries.jsonl`, queries);
w(`${D}beir-qrels-no-score-column/qrels/test.tsv`, lines("query-id\tcorpus-id", "q1\td1", "q2\td2"));
w(`${D}beir-qrels-short-row/queries.jsonl`, queries);
w(`${D}beir-qrels-short-row/qrels/test.tsv`, lines("query-id\tcorpus-id\tscore", "q1\td1\t1", "q2\td2"));
w(`${D}beir-qrels-bad-score/queries.jsonl`, queries);
w(`${D}beir-qrels-bad-score/qrels/test.tsv`, lines("query-id\tcorpus-id\tscore", "q1\td1\t1", "q2\td2\thigh"));
w(`${D}beir-qrels-huge-score/queries.jsonl`, queries);
w(`${D}beir-qrels-huge-score/qrels/test.tsv`, lines("query-id\tcorpus-id\tscore", "q1\td1\t1e999"));
w(`${D}beir-qrels-judged-twice/queries.jsonl`, queries);
w(`${D}beir-qrels-judged-twice/qrels/test.tsv`, lines("query-id\tcorpus-id\tscore", "q1\td1\t1", "q1\td1\t2"));
w(`${D}beir-query-not-in-queries/queries.jsonl`, queries);
w(`${D}beir-query-not-in-queries/qrels/test.tsv`, lines("query-id\tcorpus-id\tscore", "q1\td1\t1", "q9\td2\t1"));
w(`${D}beir-queries-bad-json/queries.jsonl`, lines(rec({ _id: "q1", text: "Who?" }), '{"_id": "q2", "text": "What?"'));
w(`${D}beir-queries-bad-json/qrels/test.tsv`, qrelsTsv);
w(`${D}beir-queries-id-object/queries.jsonl`, jl({ _id: "q1", text: "Who?" }, { _id: { n: 2 }, text: "What?" }));
w(`${D}beir-queries-id-object/qrels/test.tsv`, qrelsTsv);
w(`${D}beir-queries-empty-text/queries.jsonl`, jl({ _id: "q1", text: "Who?" }, { _id: "q2", text: "" }));
w(`${D}beir-queries-empty-text/qrels/test.tsv`, qrelsTsv);
w(`${D}beir-queries-duplicate-id/queries.jsonl`, jl({ _id: "q1", text: "Who?" }, { _id: "q2", text: "What?" }, { _id: "q1", text: "Why?" }));
w(`${D}beir-queries-duplicate-id/qrels/test.tsv`, qrelsTsv);
w(`${D}beir-queries-invalid-utf8/queries.jsonl`, bytes(rec({ _id: "q1", text: "Who?" }), "\n", '{"_id": "q2", "text": "Wh', [0x80], 'at?"}\n'));
w(`${D}beir-queries-invalid-utf8/qrels/test.tsv`, qrelsTsv);
w(`${D}beir-qrels-invalid-utf8/queries.jsonl`, queries);
w(`${D}beir-qrels-invalid-utf8/qrels/test.tsv`, bytes("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td", [0xf8, 0x88], "\t1\n"));
// unsupported suffix
w(`${D}unsupported.xlsx`, "PK\x03\x04");

// ---------- TREC qrels: QADataset.fromTrec({ qrels }) ----------
const Q = "qrels/";
w(`${Q}three-fields.txt`, lines("301 0 FT911-3 1", "301 0 FT911-4", "302 0 FT911-5 0"));
w(`${Q}five-fields.txt`, lines("301 0 FT911-3 1", "301 0 FT911-4 0 extra"));
w(`${Q}bad-grade.txt`, lines("301 0 FT911-3 1", "302 0 FT911-4 relevant"));
w(`${Q}huge-grade.txt`, lines("301 0 FT911-3 1e999"));
w(`${Q}nan-grade.txt`, lines("301 0 FT911-3 NaN"));
w(`${Q}judged-twice.txt`, lines("301 0 FT911-3 1", "301 0 FT911-4 0", "301 0 FT911-3 0"));
w(`${Q}truncated.txt`, lines("301 0 FT911-3 1", "301 0 FT911-4 0", "302 0 FT9").slice(0, -1));
w(`${Q}invalid-utf8.txt`, bytes("301 0 FT911-3 1\n301 0 FT911-", [0xe2, 0x82], " 0\n"));
w(`${Q}bom-crlf-bad.txt`, BOM + crlf("301 0 FT911-3 1", "301 0 FT911-4 0", "302 0 FT911-5"));
w(`${Q}json-not-qrels.txt`, '{"301": {"FT911-3": 1}}\n');

// ---------- TREC topics: QADataset.fromTrec({ qrels: <good>, topics }) (qrels judge 301 and 302) ----------
const T = "topics/";
w(`${T}no-tab.tsv`, lines("301\tInternational organized crime", "302 Poliomyelitis and post-polio"));
w(`${T}empty-text.tsv`, lines("301\tInternational organized crime", "302\t  "));
w(`${T}given-twice.tsv`, lines("301\tInternational organized crime", "302\tPolio", "301\tAgain"));
w(`${T}missing-topic.tsv`, lines("301\tInternational organized crime"));
w(`${T}invalid-utf8.tsv`, bytes("301\tInternational organized crime\n302\tPoliomy", [0xe9], "litis\n"));
w(`${T}sgml-no-num.txt`, lines("<top>", "<num> Number: 301", "<title> International organized crime", "</top>", "<top>", "<title> Poliomyelitis", "</top>"));
w(`${T}sgml-no-title.txt`, lines("<top>", "<num> Number: 301", "<title> International organized crime", "</top>", "<top>", "<num> Number: 302", "<desc> Description: Polio", "</top>"));
w(`${T}bom-crlf-no-tab.tsv`, BOM + crlf("301\tInternational organized crime", "302"));

// ---------- TREC runs: TrecRun.load ----------
const R = "runs/";
const run = (n) => `301 Q0 FT911-${n} ${n} ${(10 - n / 10).toFixed(2)} bm25`;
w(`${R}five-fields.txt`, lines(run(1), run(2), "301 Q0 FT911-3 3 9.1"));
w(`${R}bad-score.txt`, lines(run(1), "301 Q0 FT911-2 2 high bm25"));
w(`${R}huge-score.txt`, lines(run(1), "301 Q0 FT911-2 2 1e999 bm25"));
w(`${R}nan-score.txt`, lines(run(1), "301 Q0 FT911-2 2 NaN bm25"));
w(`${R}duplicate-doc.txt`, lines(run(1), run(2), run(1)));
w(`${R}truncated.txt`, lines(run(1), run(2), run(3)).slice(0, -12));
w(`${R}invalid-utf8.txt`, bytes(lines(run(1)), "301 Q0 FT911-", [0xfc], " 2 9.8 bm25\n"));
w(`${R}bom-crlf-five-fields.txt`, BOM + crlf(run(1), run(2), "301 Q0 FT911-3 3 9.7"));
w(`${R}qrels-not-run.txt`, lines("301 0 FT911-3 1", "301 0 FT911-4 0"));

// ---------- predictions: Predictions.load ----------
const P = "predictions/";
w(`${P}truncated.json`, '{\n  "q1": "Shakespeare",\n  "q2": "Par');
w(`${P}empty.json`, "");
w(`${P}answer-number.json`, '{\n  "q1": "Shakespeare",\n  "q2": 42\n}\n');
w(`${P}answer-null-record.json`, `[\n  ${rec({ id: "q1", answer: "x" })},\n  ${rec({ id: "q2", answer: null })}\n]\n`);
w(`${P}top-level-string.json`, '"Shakespeare"\n');
w(`${P}duplicate-id.json`, `[${rec({ id: "q1", answer: "x" })}, ${rec({ id: "q1", answer: "y" })}]\n`);
w(`${P}invalid-utf8.json`, bytes('{\n  "q1": "Shakespeare",\n  "q2": "Par', [0xe9, 0xe9], 's"\n}\n'));
w(`${P}bom-crlf-truncated.json`, `${BOM}{\r\n  "q1": "Shakespeare",\r\n  "q2": "Par`);
w(`${P}bad-json-line-7.jsonl`, jl({ id: "q1", answer: "a" }, { id: "q2", answer: "b" }, { id: "q3", answer: "c" }, { id: "q4", answer: "d" }, { id: "q5", answer: "e" }, { id: "q6", answer: "f" }, '{"id": "q7", "answer": "g",}'));
w(`${P}id-object.jsonl`, jl({ id: "q1", answer: "a" }, { id: { q: 2 }, answer: "b" }));
w(`${P}huge-number-id.jsonl`, jl({ id: "q1", answer: "a" }, '{"id": 1e999, "answer": "b"}'));
w(`${P}unsafe-integer-id.json`, '[\n  {"id": 9007199254740993, "answer": "x"}\n]\n');
w(`${P}no-id-or-question.jsonl`, jl({ id: "q1", answer: "a" }, { prediction: "b" }));
w(`${P}empty-question.jsonl`, jl({ question: "Who?", answer: "a" }, { question: "", answer: "b" }));
w(`${P}answer-missing.jsonl`, jl({ id: "q1", answer: "a" }, { id: "q2", text: "b" }));
w(`${P}retrieved-not-list.jsonl`, jl({ id: "q1", answer: "a", retrieved_ids: "d1 d2" }));
w(`${P}retrieved-item-object.jsonl`, jl({ id: "q1", answer: "a", retrieved_ids: ["d1", { id: "d2" }] }));
w(`${P}duplicate-id.jsonl`, jl({ id: "q1", answer: "a" }, { id: "q2", answer: "b" }, { qid: "q1", answer: "c" }));
w(`${P}record-array.jsonl`, jl({ id: "q1", answer: "a" }, ["q2", "b"]));
w(`${P}invalid-utf8.jsonl`, bytes(jl({ id: "q1", answer: "a" }), '{"id": "q2", "answer": "', [0xc3], '"}\n'));
w(`${P}bom-crlf-bad.jsonl`, BOM + crlf(rec({ id: "q1", answer: "a" }), rec({ id: "q2", answer: ["b"] })));

// ---------- passages: loadCorpus ----------
const C = "corpus/";
const passage = (i, extra = {}) => ({ _id: `d${i}`, title: "T", text: `passage ${i}`, ...extra });
w(`${C}unsafe-integer-id.jsonl`, jl(passage(1), '{"_id": 12345678901234567890, "text": "passage 2"}'));
w(`${C}invalid-utf8.jsonl`, bytes(jl(passage(1)), '{"_id": "d2", "text": "pass', [0xe0, 0x80, 0x80], 'age"}\n'));
w(`${C}invalid-utf8.tsv`, bytes("_id\ttext\nd1\tpass", [0xf5], "age\n"));
w(`${C}text-number.jsonl`, jl(passage(1), passage(2, { text: 7 })));
w(`${C}duplicate-id.jsonl`, jl(passage(1), passage(2), passage(1)));
w(`${C}ragged.csv`, lines("_id,title,text", "d1,T,passage 1", "d2,T"));
w(`${C}bom-crlf-bad-json.jsonl`, BOM + crlf(rec(passage(1)), '{"_id": "d2", "text": }'));
