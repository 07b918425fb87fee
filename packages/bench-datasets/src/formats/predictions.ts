import type {
  QueryEngine,
  QueryResponse,
  RetrievedChunk,
  TargetCallOptions,
} from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";
import { readTextFile } from "../io/files.js";
import { forEachLine, isBlank } from "../io/lines.js";
import { WRITE_AS_JSONL } from "../io/text-limit.js";
import {
  atLine,
  describeInexact,
  inColumn,
  inputError,
  isExactNumber,
  isPlainRecord,
  type Place,
} from "../records/problems.js";
import { parseJson } from "./json-text.js";

interface Prediction {
  readonly answer: string;
  readonly chunks?: readonly RetrievedChunk[];
}

/** Marks a question that two records answer differently, so a lookup by it must fail loudly. */
const AMBIGUOUS: Prediction = Object.freeze({ answer: "" });

const ID_KEYS = ["id", "question_id", "qid", "sample_id"] as const;

/**
 * A replay target: a {@link QueryEngine} that answers from stored predictions, so the outputs of
 * a model (a SQuAD leaderboard submission, an export of a production system) can be scored
 * without re-running it.
 *
 * Reads either
 * - a JSON object `{ question_id: answer }` (the SQuAD prediction format; `""` means "no answer"), or
 * - records (a `.jsonl` file, or a `.json` array) of `{ id | question, answer, retrieved_ids? }`.
 *   `id` may also be spelled `question_id`, `qid` or `sample_id`; `retrieved_ids` become the
 *   returned chunks, in order, so retrieval metrics can score them too.
 *
 * Each sample is answered by `sample.id`, else by its question text. A sample the file does not
 * answer rejects with `Error("no prediction for …")`, so the runner marks it `errored`: a
 * missing prediction is never silently scored as a wrong (or empty) answer.
 *
 * @example
 * ```ts
 * const dataset = await QADataset.load("dev-v2.0.json");
 * const engine = await Predictions.load("predictions.json");
 * await new Benchmark({ dataset, metrics: [new ExactMatch(), new TokenF1()] }).run(engine, { name: "bidaf" });
 * ```
 */
export class Predictions implements QueryEngine {
  /** The file the predictions were read from. */
  readonly source: string;
  private readonly byId: Map<string, Prediction>;
  private readonly byQuestion: Map<string, Prediction>;
  /** Number of predictions read. */
  readonly size: number;

  private constructor(source: string, index: PredictionIndex) {
    this.source = source;
    this.byId = index.byId;
    this.byQuestion = index.byQuestion;
    this.size = index.count;
  }

  /**
   * Reads predictions from a `.json` file (an object of id → answer, or an array of records) or
   * a `.jsonl` file of records; either may be gzip-compressed (`preds.jsonl.gz`).
   *
   * @throws ConfigurationError for a missing file, invalid JSON, an answer that is not a string,
   *   a record with neither id nor question, non-string retrieved ids or an id given twice.
   */
  static async load(path: string): Promise<Predictions> {
    if (/\.jsonl(?:\.gz)?$/i.test(path)) {
      const records: { record: unknown; line: number }[] = [];
      await forEachLine(path, (line, lineNumber) => {
        if (!isBlank(line))
          records.push({ record: parseJson(line, path, lineNumber), line: lineNumber });
      });
      const builder = new PredictionIndex(path);
      for (const { record, line } of records) builder.add(record, atLine(path, line));
      return new Predictions(path, builder);
    }
    const data = parseJson(await readTextFile(path, WRITE_AS_JSONL), path);
    return new Predictions(path, indexOf(data, path, path));
  }

  /**
   * Builds predictions from parsed data: an object of id → answer, or an array of records.
   *
   * @throws ConfigurationError as {@link Predictions.load}.
   */
  static fromJSON(data: unknown, source = "predictions"): Predictions {
    return new Predictions(source, indexOf(data, source, undefined));
  }

  /**
   * The stored answer (and retrieved ids as chunks) for `options.sample.id`, else for the
   * question text.
   *
   * @throws Error("no prediction for …") when the file does not answer this sample (the runner
   *   marks it errored), or when the question is answered by two records without ids.
   */
  query(question: string, options?: Partial<TargetCallOptions>): Promise<QueryResponse> {
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = options?.sample?.id;
    let found = id === undefined ? undefined : this.byId.get(id);
    if (found === undefined) found = this.byQuestion.get(question);
    if (found === AMBIGUOUS) {
      return Promise.reject(
        new Error(
          `two predictions in ${this.source} answer the question ${JSON.stringify(question)}; give them ids`,
        ),
      );
    }
    if (found === undefined) {
      const which =
        id === undefined
          ? `question ${JSON.stringify(question)}`
          : `sample ${JSON.stringify(id)} (${JSON.stringify(question)})`;
      return Promise.reject(new Error(`no prediction for ${which} in ${this.source}`));
    }
    const response: { answer: string; chunks?: readonly RetrievedChunk[] } = {
      answer: found.answer,
    };
    if (found.chunks !== undefined) response.chunks = found.chunks;
    return Promise.resolve(response);
  }
}

/**
 * The index of parsed predictions: an object of id → answer, or an array of records. `path`, the
 * file they were read from (none for data in memory), goes into the errors' fields.
 */
function indexOf(data: unknown, source: string, path: string | undefined): PredictionIndex {
  const index = new PredictionIndex(source);
  const at = (where: string): Place =>
    path === undefined ? { text: `${source}: ${where}` } : { text: `${source}: ${where}`, path };
  if (Array.isArray(data)) {
    for (let i = 0; i < data.length; i++) index.add(data[i], at(`record ${i + 1}`));
  } else if (isPlainRecord(data)) {
    for (const key in data) {
      if (!Object.hasOwn(data, key)) continue;
      const answer = data[key];
      if (typeof answer !== "string") {
        throw inputError(
          { ...at(`key ${JSON.stringify(key)}`), field: key },
          `expected the predicted answer (a string), found ${describeValue(answer)}`,
        );
      }
      index.byId.set(key, { answer });
      index.count++;
    }
  } else {
    throw inputError(
      at("the top level"),
      `expected an object of {question_id: answer} or an array of {id, answer} records, found ${describeValue(data)}`,
    );
  }
  return index;
}

class PredictionIndex {
  readonly byId = new Map<string, Prediction>();
  readonly byQuestion = new Map<string, Prediction>();
  count = 0;
  constructor(private readonly source: string) {}

  add(record: unknown, where: Place): void {
    if (!isPlainRecord(record)) {
      throw inputError(
        where,
        `expected a record {id | question, answer, retrieved_ids?}, found ${describeValue(record)}`,
      );
    }
    let id: string | undefined;
    for (const key of ID_KEYS) {
      const value = record[key];
      if (value === undefined || value === null) continue;
      if (typeof value === "number" && isExactNumber(value)) id = String(value);
      else if (typeof value === "string" && value.length > 0) id = value;
      else
        throw inputError(
          inColumn(where, key),
          `expected an id (a string or number), found ${typeof value === "number" ? describeInexact(value) : describeValue(value)}`,
        );
      break;
    }
    const question = record.question;
    if (question !== undefined && (typeof question !== "string" || question.length === 0)) {
      throw inputError(
        inColumn(where, "question"),
        `expected a non-empty string, found ${describeValue(question)}`,
      );
    }
    if (id === undefined && question === undefined) {
      throw inputError(
        where,
        `expected an "id" or a "question" to match samples by; found columns ${Object.keys(record).join(", ") || "(none)"}`,
      );
    }
    const answer = record.answer;
    if (typeof answer !== "string") {
      throw inputError(
        inColumn(where, "answer"),
        `expected the predicted answer (a string), found ${describeValue(answer)}`,
      );
    }
    const prediction: { answer: string; chunks?: readonly RetrievedChunk[] } = { answer };
    const retrieved = record.retrieved_ids;
    if (retrieved !== undefined && retrieved !== null) {
      if (!Array.isArray(retrieved)) {
        throw inputError(
          inColumn(where, "retrieved_ids"),
          `expected a list of ids, found ${describeValue(retrieved)}`,
        );
      }
      const chunks: RetrievedChunk[] = [];
      for (let i = 0; i < retrieved.length; i++) {
        const item = retrieved[i];
        if (typeof item === "string") chunks.push({ id: item });
        else if (typeof item === "number" && isExactNumber(item)) chunks.push({ id: String(item) });
        else
          throw inputError(
            inColumn(where, "retrieved_ids"),
            `item ${i + 1} should be a string id, found ${typeof item === "number" ? describeInexact(item) : describeValue(item)}`,
          );
      }
      prediction.chunks = chunks;
    }
    this.count++;
    if (id !== undefined) {
      if (this.byId.has(id))
        throw inputError(
          where,
          `a prediction for id ${JSON.stringify(id)} is given twice in ${this.source}`,
        );
      this.byId.set(id, prediction);
    }
    // Also by question, for samples without ids.
    if (typeof question === "string") {
      this.byQuestion.set(question, this.byQuestion.has(question) ? AMBIGUOUS : prediction);
    }
  }
}
