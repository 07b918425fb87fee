import { ConfigurationError } from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";
import { inputError, type Place } from "./problems.js";

/** A field of `EvalSample` (from `@fastrag/bench-core`) that can be read from a column. */
export type SampleField =
  | "id"
  | "question"
  | "expectedAnswers"
  | "relevantIds"
  | "relevance"
  | "metadata";

/** Every {@link SampleField}, in the order messages list them. */
export const SAMPLE_FIELDS: readonly SampleField[] = [
  "id",
  "question",
  "expectedAnswers",
  "relevantIds",
  "relevance",
  "metadata",
];

/**
 * Overrides the auto-detection of single fields: field → column name.
 *
 * A string names the column to read (exact, case-sensitive). `null` means "do not read this field
 * at all" (its alias columns then go to `metadata` like any other extra column), which is how to
 * silence a `contexts` column that holds passage text. Fields left out are auto-detected from
 * {@link COLUMN_ALIASES}.
 *
 * @example
 * ```ts
 * // RAGAS v1 files carry both `answer` (the model's) and `ground_truth` (the gold one).
 * await QADataset.load("ragas.csv", { columns: { expectedAnswers: "ground_truth" } });
 * ```
 */
export type ColumnMapping = { readonly [F in SampleField]?: string | null };

/**
 * The column names each field is auto-detected from. Detection is exact and case-sensitive.
 * When two aliases of one field are both present, loading fails with a `ConfigurationError`
 * naming both: pass a {@link ColumnMapping} to choose.
 *
 * - `id`: `id`, `_id`, `qid`, `query_id`, `query-id`, `question_id`, `sample_id`
 * - `question`: `question`, `query`, `user_input`, `input`
 * - `expectedAnswers`: `expected_answers`, `expectedAnswers`, `expected_answer`, `answers`,
 *   `answer`, `ground_truths`, `ground_truth`, `reference`, `gold_answers`, `correct_answer`
 *   (WikiQA's), `answers.text` (SQuAD after Hugging Face's `Dataset.flatten()`)
 * - `relevantIds`: `relevant_ids`, `relevantIds`, `relevant_doc_ids`, `reference_context_ids`,
 *   `contexts`, `reference_contexts`
 * - `relevance`: `relevance`
 * - `metadata`: `metadata`
 *
 * Columns that match no field are kept in the sample's `metadata` under their own names.
 */
export const COLUMN_ALIASES: Readonly<Record<SampleField, readonly string[]>> = {
  id: ["id", "_id", "qid", "query_id", "query-id", "question_id", "sample_id"],
  question: ["question", "query", "user_input", "input"],
  expectedAnswers: [
    "expected_answers",
    "expectedAnswers",
    "expected_answer",
    "answers",
    "answer",
    "ground_truths",
    "ground_truth",
    "reference",
    "gold_answers",
    "correct_answer",
    "answers.text",
  ],
  relevantIds: [
    "relevant_ids",
    "relevantIds",
    "relevant_doc_ids",
    "reference_context_ids",
    "contexts",
    "reference_contexts",
  ],
  relevance: ["relevance"],
  metadata: ["metadata"],
};

/** The snake_case name of each field in the native file format. */
export const NATIVE_FIELD_NAMES: Readonly<Record<SampleField, string>> = {
  id: "id",
  question: "question",
  expectedAnswers: "expected_answers",
  relevantIds: "relevant_ids",
  relevance: "relevance",
  metadata: "metadata",
};

/**
 * Checks a user-supplied mapping and returns it as field → column (`null` = disabled).
 *
 * @throws ConfigurationError for an unknown field or a column name that is not a non-empty string.
 */
export function normalizeColumnMapping(
  mapping: ColumnMapping | undefined,
): ReadonlyMap<SampleField, string | null> {
  const result = new Map<SampleField, string | null>();
  if (mapping === undefined || mapping === null) return result;
  if (typeof mapping !== "object" || Array.isArray(mapping)) {
    throw new ConfigurationError(
      `column mapping: expected an object of field → column, found ${typeof mapping}`,
      { kind: "invalid-option", option: "columns" },
    );
  }
  // The key that set each field: `expected_answers` and `expectedAnswers` are one field.
  const keyOf = new Map<SampleField, string>();
  for (const key of Object.keys(mapping)) {
    const field = (SAMPLE_FIELDS as readonly string[]).includes(key)
      ? (key as SampleField)
      : snakeToField(key);
    if (field === undefined) {
      throw new ConfigurationError(
        `column mapping: unknown field "${key}"; expected one of ${SAMPLE_FIELDS.join(", ")}`,
        { kind: "invalid-option", option: "columns", field: key },
      );
    }
    const column = (mapping as Record<string, unknown>)[key];
    if (column === undefined) continue;
    if (column !== null && (typeof column !== "string" || column.length === 0)) {
      throw new ConfigurationError(
        `column mapping: field "${key}" must name a column (a non-empty string) or be null, found ${typeof column}`,
        { kind: "invalid-option", option: "columns", field: key },
      );
    }
    const earlier = keyOf.get(field);
    if (earlier !== undefined) {
      // One of the two would be ignored without a word.
      throw new ConfigurationError(
        `column mapping: "${earlier}" and "${key}" both map the ${field} field (to ${describeColumn(result.get(field))} and ${describeColumn(column)}); keep one`,
        { kind: "invalid-option", option: "columns", field: key },
      );
    }
    keyOf.set(field, key);
    if (column === null && field === "question") {
      throw new ConfigurationError(
        `column mapping: the question field cannot be null: every sample needs a question; name its column, e.g. { question: "prompt" }, or leave the field out to detect it`,
        { kind: "invalid-option", option: "columns", field: key },
      );
    }
    if (column !== null) {
      for (const [other, taken] of result) {
        if (taken === column && other !== field) {
          throw new ConfigurationError(
            `column mapping: column "${column}" is mapped to both ${other} and ${field}; a column fills one field`,
            { kind: "invalid-option", option: "columns", field: key },
          );
        }
      }
    }
    result.set(field, column);
  }
  return result;
}

function describeColumn(column: string | null | undefined): string {
  return typeof column === "string" ? `"${column}"` : "null";
}

/** True for a key a {@link ColumnMapping} takes: a field, or its snake_case name. */
export function isMappingKey(key: string): boolean {
  return (SAMPLE_FIELDS as readonly string[]).includes(key) || snakeToField(key) !== undefined;
}
function snakeToField(key: string): SampleField | undefined {
  for (const field of SAMPLE_FIELDS) if (NATIVE_FIELD_NAMES[field] === key) return field;
  return undefined;
}

/**
 * Resolves which column feeds each field, given the column names of a file (a CSV header, a
 * Parquet schema, the keys of a record).
 *
 * Returns field → column for every field found; fields with no column are absent. Explicitly
 * mapped columns must exist.
 *
 * @throws ConfigurationError when `columns` is not an array of strings, when two aliases of one
 *   field are present (naming both), when a mapped column is missing, or when no question column
 *   is found (naming the columns found and the aliases tried).
 * @example
 * ```ts
 * detectColumns(["user_input", "reference", "response"]);
 * // Map { "question" => "user_input", "expectedAnswers" => "reference" }
 * ```
 */
export function detectColumns(
  columns: readonly string[],
  mapping?: ColumnMapping,
  where = "dataset",
): Map<SampleField, string> {
  if (!Array.isArray(columns)) {
    throw new ConfigurationError(
      `detectColumns: expected an array of column names (strings), found ${describeValue(columns)}`,
      { kind: "invalid-option", option: "columns" },
    );
  }
  for (let i = 0; i < columns.length; i++) {
    if (typeof columns[i] !== "string") {
      throw new ConfigurationError(
        `detectColumns: expected an array of column names (strings), found ${describeValue(columns[i])} at index ${i}`,
        { kind: "invalid-option", option: `columns[${i}]` },
      );
    }
  }
  return resolveColumns(columns, mapping, { text: where });
}

/**
 * {@link detectColumns} for a loader, whose `where` gives the errors their place as fields too
 * (the file, the line).
 */
export function resolveColumns(
  columns: readonly string[],
  mapping: ColumnMapping | undefined,
  where: Place,
): Map<SampleField, string> {
  const explicit = normalizeColumnMapping(mapping);
  const present = new Set(columns);
  const resolved = new Map<SampleField, string>();
  for (const field of SAMPLE_FIELDS) {
    if (explicit.has(field)) {
      const column = explicit.get(field);
      if (column === null || column === undefined) continue;
      if (!present.has(column)) {
        throw inputError(
          where,
          `column "${column}" (mapped to ${field}) not found; columns found: ${listColumns(columns)}`,
          { field: column },
        );
      }
      resolved.set(field, column);
      continue;
    }
    let found: string | undefined;
    for (const alias of COLUMN_ALIASES[field]) {
      if (!present.has(alias)) continue;
      if (found !== undefined) throw aliasConflict(where, field, found, alias);
      found = alias;
    }
    if (found !== undefined) resolved.set(field, found);
  }
  // A column mapped to one field that is also another field's alias would feed both.
  for (const [field, column] of resolved) {
    if (explicit.has(field)) continue;
    for (const [other, taken] of resolved) {
      if (other !== field && taken === column && explicit.has(other)) {
        throw inputError(
          where,
          `column "${column}" is mapped to ${other}, and by its name is also the ${field} column; map ${field} to another column (e.g. { ${field}: "<column>" }) or ${other} elsewhere`,
          { kind: "invalid-option", option: "columns", field: column },
        );
      }
    }
  }
  if (!resolved.has("question")) throw missingQuestion(where, columns, explicit.get("question"));
  return resolved;
}

/**
 * Gold-answer columns that, beside an `answer` column, make that `answer` the model's own (RAGAS
 * v1 files: `answer` + `ground_truth`), so the message must not suggest mapping it as gold.
 */
const GOLD_BESIDE_ANSWER = new Set([
  "expected_answers",
  "expectedAnswers",
  "expected_answer",
  "ground_truths",
  "ground_truth",
  "reference",
  "gold_answers",
]);

/** Two columns of a file that could each be `field`'s (their aliases), of kind `invalid-input`. */
export function aliasConflict(
  where: Place,
  field: SampleField,
  first: string,
  second: string,
): ConfigurationError {
  const both = `both "${first}" and "${second}" could be the ${field} column; `;
  const gold = first === "answer" ? second : second === "answer" ? first : undefined;
  const fix =
    field === "expectedAnswers" && gold !== undefined && GOLD_BESIDE_ANSWER.has(gold)
      ? `beside "${gold}", "answer" is usually the model's answer (as in RAGAS files), so choose the gold one with a column mapping: { expectedAnswers: "${gold}" }`
      : `choose one with a column mapping, e.g. { ${field}: "${first}" }`;
  return inputError(where, both + fix, { field: second });
}

/** A file's records with no question column, of kind `invalid-input`. */
export function missingQuestion(
  where: Place,
  columns: readonly string[],
  mapped?: string | null,
): ConfigurationError {
  const tried =
    typeof mapped === "string"
      ? `the mapped column "${mapped}"`
      : `the aliases ${COLUMN_ALIASES.question.map((a) => `"${a}"`).join(", ")}`;
  return inputError(
    where,
    `no question column; tried ${tried}; columns found: ${listColumns(columns)}. ` +
      (typeof mapped === "string"
        ? 'Map one with { question: "<column>" }'
        : questionHint(columns)),
    { field: "question" },
  );
}

/**
 * How to load a file without a question column: files of the benchmarks whose questions live
 * elsewhere get their own advice, anything else a mapping.
 */
function questionHint(columns: readonly string[]): string {
  const has = (name: string) => columns.includes(name);
  if (has("query-id") && has("corpus-id")) {
    return 'These are BEIR qrels: load the BEIR directory that holds qrels/ and queries.jsonl, QADataset.load("<dir>")';
  }
  if (has("_id") && has("text") && has("title")) {
    return 'These look like BEIR corpus passages: read them with loadCorpus(path); the questions of a BEIR dataset are in its queries.jsonl, QADataset.load("<dir>")';
  }
  if (has("_id") && has("text")) {
    return 'These look like BEIR queries: load the BEIR directory (each judged query with its qrels), QADataset.load("<dir>"), or map { question: "text" }';
  }
  // MS MARCO's queries.dev.small.tsv and TREC DL's msmarco-test2019-queries.tsv: no header, so the
  // first query was read as the column names.
  if (columns.length === 2 && /^\d+$/.test(columns[0] as string)) {
    return `The first row looks like data, not a header: a headerless "qid<TAB>query" file (MS MARCO queries, TREC DL topics) is read as the topics of its qrels, QADataset.fromTrec({ qrels: "<qrels>", topics: "<this file>" }), or add a header line (id<TAB>question)`;
  }
  // A question column spelled in another case or with spaces (`Question`, ` question`): detection
  // is exact, so name the mapping that reads it.
  const near = columns.find((c) => QUESTION_SPELLINGS.has(c.trim().toLowerCase()));
  if (near !== undefined) {
    return `Detection is exact and case-sensitive; to read ${JSON.stringify(near)}, map it: { question: ${JSON.stringify(near)} }`;
  }
  // One column naming them all: a file separated by another character than the one read
  // (European Excel writes ";" in .csv files).
  if (columns.length === 1) {
    const only = columns[0] as string;
    for (const [separator, name] of SEPARATORS) {
      if (only.split(separator).some((part) => QUESTION_SPELLINGS.has(part.trim().toLowerCase()))) {
        return `The header is one column holding ${name}s: the file seems separated by ${name}s; a .csv is read with commas and a .tsv with tabs: name the file for its separator, or save it again with commas as .csv`;
      }
    }
  }
  return 'Map one with { question: "<column>" }';
}

const QUESTION_SPELLINGS = new Set(COLUMN_ALIASES.question.map((alias) => alias.toLowerCase()));

const SEPARATORS: readonly (readonly [string, string])[] = [
  [";", "semicolon"],
  ["\t", "tab"],
  [",", "comma"],
  ["|", "pipe"],
];

function listColumns(columns: readonly string[]): string {
  if (columns.length === 0) return "(none)";
  const shown = columns.slice(0, 30).map((c) => JSON.stringify(c));
  return columns.length > 30
    ? `${shown.join(", ")}, … (${columns.length} in all)`
    : shown.join(", ");
}
