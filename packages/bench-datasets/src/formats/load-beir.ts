import { access, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { EvalSample, Metadata } from "@fastrag/bench-core";
import { describeValue, setOwn } from "@fastrag/bench-core/internal";
import { readTextFile } from "../io/files.js";
import { forEachLine, isBlank } from "../io/lines.js";
import {
  atLine,
  describeInexact,
  inColumn,
  inputError,
  isExactNumber,
  isPlainRecord,
  newRecord,
  type Place,
} from "../records/problems.js";
import type { LoadedSamples } from "../records/sample-builder.js";
import { parseJson } from "./json-text.js";

/** A BEIR record id: `_id` (or `id`), a string or a number. */
function beirId(record: Record<string, unknown>, where: Place): string {
  const key = Object.hasOwn(record, "_id") ? "_id" : "id";
  const value = record[key];
  if (typeof value === "string" && value.length > 0) return value;
  if (typeof value === "number" && isExactNumber(value)) return String(value);
  throw inputError(
    inColumn(where, key),
    `expected an id (a non-empty string or number), found ${typeof value === "number" ? describeInexact(value) : describeValue(value)}`,
  );
}

/**
 * BEIR qrels: query id → (corpus id → grade), in order of first appearance. `firstLines`, when
 * given, receives the line each query is first judged on, for messages about that query.
 */
async function readBeirQrels(
  path: string,
  firstLines?: Map<string, number>,
): Promise<Map<string, Map<string, number>>> {
  const text = await readTextFile(path);
  const lines = text.split("\n");
  const qrels = new Map<string, Map<string, number>>();
  let columns = [0, 1, 2];
  let first = true;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!.replace(/\r$/, "");
    if (isBlank(line)) continue;
    const cells = line.split("\t");
    const where = atLine(path, n + 1);
    if (first) {
      first = false;
      // A header names the columns; a headerless file starts with a numeric score.
      if (cells.length < 3 || !Number.isFinite(Number(cells[2]))) {
        columns = ["query-id", "corpus-id", "score"].map((name) => {
          const at = cells.indexOf(name);
          if (at === -1) {
            throw inputError(
              where,
              `missing qrels column "${name}"; expected a header "query-id<TAB>corpus-id<TAB>score", found ${JSON.stringify(line.slice(0, 80))}`,
              { field: name },
            );
          }
          return at;
        });
        continue;
      }
    }
    const qid = cells[columns[0]!];
    const docid = cells[columns[1]!];
    const score = cells[columns[2]!];
    const names = ["query-id", "corpus-id", "score"];
    for (let c = 0; c < 3; c++) {
      if (cells[columns[c]!] === undefined || cells[columns[c]!] === "") {
        throw inputError(
          inColumn(where, names[c]!, `column ${columns[c]! + 1} (${names[c]})`, columns[c]! + 1),
          `missing value; expected 3 tab-separated fields, found ${cells.length}`,
        );
      }
    }
    const grade = Number(score);
    if (!Number.isFinite(grade)) {
      throw inputError(
        inColumn(where, "score", `column ${columns[2]! + 1} (score)`, columns[2]! + 1),
        `expected a numeric grade, found ${JSON.stringify(score)}`,
      );
    }
    let judged = qrels.get(qid!);
    if (judged === undefined) {
      judged = new Map();
      qrels.set(qid!, judged);
      firstLines?.set(qid!, n + 1);
    }
    if (judged.has(docid!)) {
      throw inputError(
        inColumn(where, "corpus-id", `column ${columns[1]! + 1} (corpus-id)`, columns[1]! + 1),
        `document ${JSON.stringify(docid)} is judged twice for query ${JSON.stringify(qid)}`,
      );
    }
    judged.set(docid!, grade);
  }
  return qrels;
}

/** `path` when it exists, else `path.gz` when that does (else `path`, for the error naming it). */
export async function plainOrGz(path: string): Promise<string> {
  if (await exists(path)) return path;
  return (await exists(`${path}.gz`)) ? `${path}.gz` : path;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A BEIR directory: `queries.jsonl` (`{_id, text, metadata?}`) and `qrels/<split>.tsv`, each
 * also read gzip-compressed under the same name plus `.gz`. One sample per query judged in the
 * split, in qrels order; grades become `relevance`, grade > 0 `relevantIds`.
 */
export async function loadBeirDataset(dir: string, split: string): Promise<LoadedSamples> {
  let qrelsFiles: string[];
  try {
    const names = (await readdir(join(dir, "qrels")))
      .filter((name) => /\.tsv(?:\.gz)?$/.test(name))
      .map((name) => name.replace(/\.gz$/, ""));
    qrelsFiles = [...new Set(names)];
  } catch (error) {
    throw inputError(
      dir,
      "a directory is read as a BEIR dataset and needs queries.jsonl and qrels/<split>.tsv; qrels/ is missing",
      { kind: "unreadable-file", path: join(dir, "qrels"), cause: error },
    );
  }
  if (!qrelsFiles.includes(`${split}.tsv`)) {
    throw inputError(
      dir,
      `no qrels for split "${split}" (qrels/${split}.tsv); splits found: ${qrelsFiles.map((f) => f.slice(0, -4)).join(", ") || "(none)"}`,
      { kind: "invalid-option", option: "split", path: dir },
    );
  }
  const qrelsPath = await plainOrGz(join(dir, "qrels", `${split}.tsv`));
  const firstLines = new Map<string, number>();
  const qrels = await readBeirQrels(qrelsPath, firstLines);
  const queriesPath = await plainOrGz(join(dir, "queries.jsonl"));
  const queries = new Map<string, { text: string; metadata?: Metadata }>();
  await forEachLine(queriesPath, (line, lineNumber) => {
    if (isBlank(line)) return;
    const where = atLine(queriesPath, lineNumber);
    const record = parseJson(line, queriesPath, lineNumber);
    if (!isPlainRecord(record))
      throw inputError(
        where,
        `expected a query object {_id, text}, found ${describeValue(record)}`,
      );
    const id = beirId(record, where);
    const text = record.text;
    if (typeof text !== "string" || text.trim().length === 0) {
      throw inputError(
        inColumn(where, "text"),
        `expected the query text (a non-empty string), found ${describeValue(text)}`,
      );
    }
    if (queries.has(id))
      throw inputError(inColumn(where, "_id"), `query ${JSON.stringify(id)} is given twice`);
    const metadata = record.metadata;
    queries.set(
      id,
      isPlainRecord(metadata) && Object.keys(metadata).length > 0 ? { text, metadata } : { text },
    );
  });
  const samples: EvalSample[] = [];
  for (const [qid, judged] of qrels) {
    const query = queries.get(qid);
    if (query === undefined) {
      throw inputError(
        atLine(qrelsPath, firstLines.get(qid) as number),
        `query ${JSON.stringify(qid)} is judged but missing from ${queriesPath}`,
      );
    }
    const relevance: Record<string, number> = newRecord();
    const relevantIds: string[] = [];
    for (const [docid, grade] of judged) {
      setOwn(relevance, docid, grade);
      if (grade > 0) relevantIds.push(docid);
    }
    const sample: EvalSample = {
      id: qid,
      question: query.text,
      expectedAnswers: [],
      relevantIds,
      relevance,
    };
    samples.push(query.metadata === undefined ? sample : { ...sample, metadata: query.metadata });
  }
  return { samples, warnings: [] };
}
