import { describeValue } from "@fastrag/bench-core/internal";
import { readTextFile } from "../io/files.js";
import { WRITE_AS_JSONL } from "../io/text-limit.js";
import type { ColumnMapping } from "../records/column-mapping.js";
import { inFile, inputError, isPlainRecord } from "../records/problems.js";
import { type LoadedSamples, SampleBuilder } from "../records/sample-builder.js";
import { parseJson } from "./json-text.js";
import { isSquad, samplesFromSquad } from "./squad.js";

/** Reads a `.json` dataset: native `{samples}`, a bare array of records, or SQuAD. */
export async function loadJsonDataset(
  path: string,
  mapping: ColumnMapping | undefined,
): Promise<LoadedSamples> {
  const document = parseJson(await readTextFile(path, WRITE_AS_JSONL), path);
  return samplesFromDocument(document, mapping, path);
}

/**
 * Samples from an already-parsed document (JSON or YAML): an array of records, `{samples: [...]}`,
 * or SQuAD's `{data: [...]}`.
 */
export function samplesFromDocument(
  document: unknown,
  mapping: ColumnMapping | undefined,
  source: string,
): LoadedSamples {
  let records: unknown[];
  let arrayName = "";
  if (Array.isArray(document)) {
    records = document;
  } else if (isPlainRecord(document) && Array.isArray(document.samples)) {
    records = document.samples;
    arrayName = "samples";
  } else if (isSquad(document)) {
    return samplesFromSquad(document, source);
  } else if (isPlainRecord(document) && Object.hasOwn(document, "samples")) {
    throw inputError(
      inFile(source, "samples", "samples"),
      `expected an array of records, found ${describeValue(document.samples)}`,
    );
  } else {
    throw inputError(
      inFile(source, "the top level"),
      `expected the native format {"samples": [...]}, a bare array of records, or SQuAD's {"data": [{"paragraphs": [...]}]}; found ${describeValue(document)}` +
        (isPlainRecord(document)
          ? ` with keys ${Object.keys(document).slice(0, 10).join(", ")}${recordsHint(document)}`
          : ""),
    );
  }
  const builder = new SampleBuilder(mapping, {
    source,
    path: source,
    unit: "record",
    arrayName,
    ownsRecords: true,
  });
  for (let i = 0; i < records.length; i++) builder.addRecord(records[i], i + 1);
  return builder.result();
}

/**
 * Where a document of another shape keeps its records (TriviaQA's `{"Data": [...], "Version": …}`):
 * the key of its one array of objects, as advice on loading them.
 */
function recordsHint(document: Record<string, unknown>): string {
  const keys = Object.keys(document).filter((key) => {
    const value = document[key];
    return Array.isArray(value) && value.length > 0 && isPlainRecord(value[0]);
  });
  if (keys.length !== 1) return "";
  return `; its records seem to be under ${JSON.stringify(keys[0])}: load them with QADataset.fromRecords(document[${JSON.stringify(keys[0])}], { columns }), mapping their question and answer columns`;
}
