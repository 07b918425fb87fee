import { open } from "node:fs/promises";
import { basename } from "node:path";
import { ConfigurationError, type EvalSample, type Metadata } from "@fastrag/bench-core";
import { writeFileAtomic } from "@fastrag/bench-core/internal";
import type { HuggingFaceOptions } from "./formats/hugging-face.js";
import { loadBeirDataset } from "./formats/load-beir.js";
import { loadJsonDataset } from "./formats/load-json.js";
import { loadJsonlDataset } from "./formats/load-jsonl.js";
import { feedFile } from "./io/byte-lines.js";
import { isDirectory, readTextFile } from "./io/files.js";
import { gunzipHead, isGzip, withoutGz } from "./io/gzip.js";
import type { ColumnMapping } from "./records/column-mapping.js";
import { describeValue } from "./records/problems.js";
import { type LoadedSamples, SampleBuilder } from "./records/sample-builder.js";
import { QrelsParser } from "./trec/qrels-parser.js";
import { parseTopics } from "./trec/topics.js";

/** Which part of an SGML TREC topic becomes the question. */
export type TopicField = "title" | "description" | "narrative";

/** Options of {@link QADataset.load} beyond the column mapping. */
export interface LoadOptions {
  /** For a BEIR directory: which `qrels/<split>.tsv` to read. Default `"test"`. */
  readonly split?: string;
  /** For TREC qrels: the topics file, as {@link TrecDatasetOptions.topics}. */
  readonly topics?: string;
  /** For TREC qrels with SGML topics: as {@link TrecDatasetOptions.topicField}. */
  readonly topicField?: TopicField;
  /** For TREC qrels: as {@link TrecDatasetOptions.relevanceLevel}. */
  readonly relevanceLevel?: number;
}

/** Options of {@link QADataset.fromTrec}. */
export interface TrecDatasetOptions {
  /** Path of a TREC qrels file: `qid iter docno rel` per line. */
  readonly qrels: string;
  /**
   * Path of the topics: SGML (`<top><num> Number: 301 <title> …`) or `qid<TAB>text` lines. When
   * absent, each question is its query id.
   */
  readonly topics?: string;
  /** Which part of an SGML topic becomes the question. Default `"title"`. */
  readonly topicField?: TopicField;
  /**
   * The minimum grade that counts as relevant for binary measures (`relevantIds`), like
   * `trec_eval -l`. By default any grade > 0 is relevant. `relevance` always keeps every judged
   * grade, so graded measures (ndcg) are unaffected, as in trec_eval.
   */
  readonly relevanceLevel?: number;
  /**
   * Keeps only the queries for which this returns `true`: to evaluate a subset of topics, or to
   * split one evaluation across threads (`fastrag-bench eval` gives each thread the queries of
   * a hash of their id). It is called once per distinct query id, in order of first appearance,
   * before that query's judgments are read. The lines of a rejected query are read for their
   * query id only: their other fields are not checked. By default every query is kept.
   */
  readonly queries?: (queryId: string) => boolean;
}

/** What {@link QADataset} is built from besides its samples. */
export interface QADatasetInit {
  /** Problems worth telling the user about that did not stop loading. */
  readonly warnings?: readonly string[];
  /** Where the samples came from (a path or URL), for messages. */
  readonly source?: string;
}

/** One sample of the native dataset format, as on disk (snake_case). */
export interface NativeSample {
  id?: string;
  question: string;
  expected_answers: readonly string[];
  relevant_ids: readonly string[];
  relevance?: Readonly<Record<string, number>>;
  metadata: Metadata;
}

// TREC samples have no gold answers: one shared, frozen empty list instead of 10^5 of them.
const NO_ANSWERS: readonly string[] = Object.freeze([]);

const SUPPORTED =
  '.json (native, bare array or SQuAD), .jsonl, .csv, .tsv, .yaml/.yml, .parquet, a BEIR directory (queries.jsonl + qrels/<split>.tsv), or TREC qrels (lines "qid iter docno rel"; topics with the topics option); each may be gzip-compressed (.gz)';

/** The TREC options of `load`'s options, as `fromTrec` takes them. */
function trecOptions(options: LoadOptions): Omit<TrecDatasetOptions, "qrels"> {
  return {
    ...(options.topics !== undefined ? { topics: options.topics } : {}),
    ...(options.topicField !== undefined ? { topicField: options.topicField } : {}),
    ...(options.relevanceLevel !== undefined ? { relevanceLevel: options.relevanceLevel } : {}),
  };
}

/** A file named as TREC qrels usually are: `qrels.test`, `qrels-dev.txt`, `robust04.qrels`. */
function isQrelsName(path: string): boolean {
  const name = basename(path).toLowerCase();
  return /(?:^|[._-])qrels(?:[._-]|$)/.test(name);
}

/**
 * Whether a file reads as TREC qrels: its first non-blank line has four whitespace-separated
 * fields, the second an iteration number (`0`, or `Q0` as some files have it) and the last a whole
 * grade, as in `301 0 FR940202-2-00009 1` (a line of text such as "population of china 2020" is
 * not). Only the file's first 4 KiB are read; a file that cannot be read is not qrels (the caller
 * then reports it as the format its suffix names, or as unsupported).
 */
async function looksLikeQrels(path: string): Promise<boolean> {
  let head: string;
  try {
    const file = await open(path, "r");
    try {
      const buffer = Buffer.alloc(4096);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
      const bytes = isGzip(buffer, bytesRead)
        ? gunzipHead(buffer.subarray(0, bytesRead))
        : buffer.subarray(0, bytesRead);
      head = bytes.toString("latin1");
    } finally {
      await file.close();
    }
  } catch {
    return false;
  }
  const line = head.split("\n").find((l) => l.trim() !== "");
  if (line === undefined) return false;
  const fields = line.trim().split(/\s+/);
  return (
    fields.length === 4 &&
    /^(?:\d+|Q0)$/.test(fields[1] as string) &&
    /^[-+]?\d+$/.test(fields[3] as string)
  );
}

/**
 * An evaluation set: questions with their gold answers and relevant ids, in file order.
 *
 * Load one with {@link QADataset.load} (by file suffix), {@link QADataset.fromTrec},
 * {@link QADataset.fromHuggingFace} or {@link QADataset.fromRecords}; pass it to `Benchmark` as
 * its `dataset`. Loading validates every record and never evaluates code from the file.
 *
 * @example
 * ```ts
 * const dataset = await QADataset.load("eval.jsonl");
 * for (const warning of dataset.warnings) console.warn(warning);
 * const benchmark = new Benchmark({ dataset, metrics: [new Recall({ k: 5 })] });
 * ```
 */
export class QADataset<M extends Metadata = Metadata> implements Iterable<EvalSample<M>> {
  /** The samples, in file order. */
  readonly samples: readonly EvalSample<M>[];
  /** Problems that did not stop loading (e.g. a relevant_ids column holding passage text). */
  readonly warnings: readonly string[];
  /** Where the samples came from, when known. */
  readonly source: string | undefined;

  /**
   * Wraps samples that are already valid `EvalSample`s (they are not re-checked). To build a
   * dataset from untrusted data, use {@link QADataset.fromRecords}.
   */
  constructor(samples: readonly EvalSample<M>[], init: QADatasetInit = {}) {
    this.samples = samples;
    this.warnings = init.warnings ?? [];
    this.source = init.source;
  }

  /** Number of samples. */
  get length(): number {
    return this.samples.length;
  }

  /** Iterates the samples in file order, so a dataset works in `for…of` and spreads. */
  [Symbol.iterator](): Iterator<EvalSample<M>> {
    return this.samples[Symbol.iterator]();
  }

  /**
   * Loads a dataset, choosing the reader by the path:
   * - `.json`: the native `{"samples": [...]}`, a bare array of records, or SQuAD's nested
   *   `data[].paragraphs[].qas[]` (each question a sample; `expected_answers` its answer texts or
   *   `[""]` when impossible; `relevant_ids` its paragraph as `<title>#<index>`);
   * - `.jsonl` (streamed line by line), `.csv`/`.tsv` (papaparse, streamed; cells holding a JSON
   *   array or a Python list are lists, and an answers cell may hold a `{"text": [...]}` object,
   *   in JSON or as the Python repr Hugging Face `datasets` writes),
   *   `.yaml`/`.yml`, `.parquet` (hyparquet);
   * - a BEIR directory: `queries.jsonl` and `qrels/<split>.tsv` (`options.split`, default `test`);
   * - TREC qrels: a file named as qrels are (`qrels.test`, `robust04.qrels`, also
   *   `qrels.dev.small.tsv` when its first line reads `qid iter docno rel`), or of any other
   *   unknown suffix whose first line reads so, as {@link QADataset.fromTrec} reads it (with the
   *   `topics`, `topicField` and `relevanceLevel` options; `columns` and `split` do not apply).
   *
   * Columns are auto-detected from {@link COLUMN_ALIASES}; `columns` overrides single fields.
   * SQuAD files, BEIR directories and TREC qrels have fixed fields, so `columns` does not apply to them.
   *
   * Any of these files may be gzip-compressed: it is recognised by its content and decompressed as
   * it is read, and a `.gz` suffix is looked past (`eval.jsonl.gz` reads as `.jsonl`).
   *
   * @throws ConfigurationError for an unsupported suffix (listing those supported), a missing
   *   file, or any malformed content; the message names the file, line/row and column.
   */
  static async load(
    path: string,
    columns?: ColumnMapping,
    options: LoadOptions = {},
  ): Promise<QADataset> {
    if (typeof path !== "string" || path.length === 0) {
      throw new ConfigurationError(
        `QADataset.load: expected a file path, found ${describeValue(path)}`,
      );
    }
    // `data.jsonl.gz` reads as `.jsonl`: every reader decompresses gzip files.
    const lower = withoutGz(path.toLowerCase());
    let loaded: LoadedSamples;
    if (
      options.split !== undefined &&
      (typeof options.split !== "string" || options.split === "")
    ) {
      throw new ConfigurationError(
        `QADataset.load: split must be a non-empty string, found ${describeValue(options.split)}`,
      );
    }
    // Qrels by name come first: MS MARCO's are `qrels.dev.small.tsv`, TREC lines in a .tsv.
    if (isQrelsName(path) && !lower.endsWith(".json") && (await looksLikeQrels(path))) {
      return QADataset.fromTrec({ qrels: path, ...trecOptions(options) });
    }
    if (lower.endsWith(".jsonl")) loaded = await loadJsonlDataset(path, columns);
    else if (lower.endsWith(".json")) loaded = await loadJsonDataset(path, columns);
    // CSV, YAML, Parquet and Hugging Face load their parsers on first use: importing the package
    // (for TREC files, say) does not pay for parsers it never calls.
    else if (lower.endsWith(".csv"))
      loaded = await (await import("./formats/load-csv.js")).loadCsvDataset(path, columns, ",");
    else if (lower.endsWith(".tsv"))
      loaded = await (await import("./formats/load-csv.js")).loadCsvDataset(path, columns, "\t");
    else if (lower.endsWith(".yaml") || lower.endsWith(".yml"))
      loaded = await (await import("./formats/load-yaml.js")).loadYamlDataset(path, columns);
    else if (lower.endsWith(".parquet"))
      loaded = await (await import("./formats/load-parquet.js")).loadParquetDataset(path, columns);
    else if (await isDirectory(path)) loaded = await loadBeirDataset(path, options.split ?? "test");
    else if (isQrelsName(path) || (await looksLikeQrels(path))) {
      return QADataset.fromTrec({ qrels: path, ...trecOptions(options) });
    } else {
      throw new ConfigurationError(`${path}: unsupported dataset format; expected ${SUPPORTED}`);
    }
    return new QADataset(loaded.samples, { warnings: loaded.warnings, source: path });
  }

  /**
   * Builds a dataset from records already in memory (objects of columns), with the same column
   * detection, coercion and checks as the file loaders. camelCase keys (`expectedAnswers`,
   * `relevantIds`) are recognised too, so `EvalSample`-shaped objects load as they are.
   *
   * @throws ConfigurationError naming the record and column of the first bad value.
   */
  static fromRecords(
    records: Iterable<unknown>,
    columns?: ColumnMapping,
    init: { readonly source?: string } = {},
  ): QADataset {
    const source = init.source ?? "records";
    if (
      typeof (records as { [Symbol.iterator]?: unknown } | null)?.[Symbol.iterator] !== "function"
    ) {
      throw new ConfigurationError(
        `QADataset.fromRecords: expected an iterable of records, found ${describeValue(records)}`,
      );
    }
    const builder = new SampleBuilder(columns, { source, unit: "record" });
    let position = 0;
    for (const record of records) builder.addRecord(record, ++position);
    const { samples, warnings } = builder.result();
    return new QADataset(samples, { warnings, source });
  }

  /**
   * Builds a dataset from TREC qrels (and optionally topics). One sample per query in the qrels,
   * in order of first appearance, including queries with no relevant document (trec_eval
   * averages those in as 0). `id` is the query id; `question` is the topic text, or the query id
   * without topics; `relevance` holds every judged grade (≤ 0 included: judged non-relevant);
   * `relevantIds` the documents with grade > 0, or ≥ `relevanceLevel` when given. Either file may
   * be gzip-compressed.
   *
   * @throws ConfigurationError for a malformed qrels or topics line (naming line and column), or a
   *   qrels query missing from the topics.
   * @example
   * ```ts
   * const dataset = await QADataset.fromTrec({ qrels: "qrels.txt", topics: "topics.301-350" });
   * ```
   */
  static async fromTrec(options: TrecDatasetOptions): Promise<QADataset> {
    if (typeof options?.qrels !== "string") {
      throw new ConfigurationError(
        `QADataset.fromTrec: expected { qrels: "<path>" }, found ${describeValue(options?.qrels)}`,
      );
    }
    const level = options.relevanceLevel;
    if (level !== undefined && (typeof level !== "number" || !Number.isFinite(level))) {
      throw new ConfigurationError(
        `QADataset.fromTrec: relevanceLevel must be a number, found ${describeValue(level)}`,
      );
    }
    const keep = options.queries;
    if (keep !== undefined && typeof keep !== "function") {
      throw new ConfigurationError(
        `QADataset.fromTrec: queries must be a function (queryId) => boolean, found ${describeValue(keep)}`,
      );
    }
    const qrels = new QrelsParser(options.qrels, level, keep);
    await feedFile(options.qrels, qrels);
    const topics =
      options.topics === undefined
        ? undefined
        : parseTopics(await readTextFile(options.topics), options.topics, options.topicField);
    const { qids, relevance, relevantIds, firstLines } = qrels;
    const samples: EvalSample[] = new Array(qids.length);
    for (let q = 0; q < qids.length; q++) {
      const qid = qids[q] as string;
      let question = qid;
      if (topics !== undefined) {
        const text = topics.get(qid);
        if (text === undefined) {
          throw new ConfigurationError(
            `${options.topics}: no topic for query ${JSON.stringify(qid)}, which line ${firstLines[q]} of ${options.qrels} judges; ${topicsHint(qid, topics)}`,
          );
        }
        question = text;
      }
      samples[q] = {
        id: qid,
        question,
        expectedAnswers: NO_ANSWERS,
        relevantIds: relevantIds[q] as string[],
        relevance: relevance[q] as Record<string, number>,
      };
    }
    return new QADataset(samples, { source: options.qrels });
  }

  /**
   * Loads a dataset from the Hugging Face Hub through its dataset-viewer API: the API lists the
   * Parquet export of the dataset, and the chosen config/split's files are downloaded and read
   * with hyparquet. Columns are detected as for files (HF SQuAD's `answers: {text: [...]}` is
   * understood).
   *
   * Every request has an inactivity limit (`timeoutMs`, default 30 s), so with no network this fails
   * with a clear error instead of hanging.
   *
   * @throws ConfigurationError for an unknown dataset, config or split (listing those that
   *   exist), an HTTP error, an unreachable host or a timeout. Rejects with `signal.reason`
   *   when `signal` aborts.
   * @example
   * ```ts
   * const dataset = await QADataset.fromHuggingFace("rajpurkar/squad_v2", { split: "validation" });
   * ```
   */
  static async fromHuggingFace(repo: string, options: HuggingFaceOptions = {}): Promise<QADataset> {
    const { loadFromHuggingFace } = await import("./formats/hugging-face.js");
    const loaded = await loadFromHuggingFace(repo, options);
    return new QADataset(loaded.samples, { warnings: loaded.warnings, source: `hf://${repo}` });
  }

  /** The native file format's object (snake_case), as {@link QADataset.save} writes it. */
  toJSON(): { samples: NativeSample[] } {
    const samples: NativeSample[] = new Array(this.samples.length);
    for (let i = 0; i < this.samples.length; i++) samples[i] = toNative(this.samples[i]!);
    return { samples };
  }

  /**
   * Writes the dataset in the native format, `{"samples": [...]}` with snake_case fields, one
   * sample per line. The write is atomic (a temporary file, then a rename).
   *
   * @throws ConfigurationError when `path` does not end in `.json` (load reads by suffix).
   * @throws the underlying file-system error when the directory cannot be written.
   */
  async save(path: string): Promise<void> {
    // load() reads by suffix: a native file of another name would not load back.
    if (typeof path !== "string" || !path.toLowerCase().endsWith(".json")) {
      throw new ConfigurationError(
        `QADataset.save: ${describeValue(path)}: the native format is JSON, and QADataset.load reads it by its suffix; name the file *.json`,
      );
    }
    const samples = this.samples;
    await writeFileAtomic(path, function* () {
      yield '{"samples": [';
      for (let i = 0; i < samples.length; i++) {
        yield `${i === 0 ? "\n" : ",\n"}${JSON.stringify(toNative(samples[i]!))}`;
      }
      yield samples.length === 0 ? "]}\n" : "\n]}\n";
    });
  }
}

/**
 * What the topics hold instead of `qid`, for the message of a missing topic. Old TREC topics
 * number `<num> Number: 051` while their qrels say `51`: ids are compared as text, as trec_eval
 * compares them, so say so when only leading zeros differ.
 */
function topicsHint(qid: string, topics: ReadonlyMap<string, string>): string {
  const bare = (id: string) => id.replace(/^0+(?=\d)/, "");
  const wanted = bare(qid);
  for (const id of topics.keys()) {
    if (bare(id) === wanted) {
      return `the topics have ${JSON.stringify(id)}: query ids are compared as text (as trec_eval compares them), so write them alike in both files (both zero-padded or neither)`;
    }
  }
  const shown = [...topics.keys()].slice(0, 3).map((id) => JSON.stringify(id));
  return topics.size === 0
    ? "the topics hold no topic"
    : `the topics hold ${topics.size} (${shown.join(", ")}${topics.size > 3 ? ", …" : ""})`;
}

function toNative(sample: EvalSample): NativeSample {
  // Key order as in DESIGN.md §4: id, question, expected_answers, relevant_ids, relevance, metadata.
  const out = {} as NativeSample;
  if (sample.id !== undefined) out.id = sample.id;
  out.question = sample.question;
  out.expected_answers = sample.expectedAnswers;
  out.relevant_ids = sample.relevantIds;
  if (sample.relevance !== undefined) out.relevance = sample.relevance;
  out.metadata = sample.metadata ?? {};
  return out;
}
