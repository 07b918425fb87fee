import { ConfigurationError, type EvalSample, type Metadata } from "@fastrag/bench-core";
import {
  describeValue,
  isTimeoutMs,
  MAX_TIMER_MS,
  optionsObject,
  writeFileAtomic,
} from "@fastrag/bench-core/internal";
import type { HuggingFaceOptions } from "./formats/hugging-face.js";
import { loadBeirDataset } from "./formats/load-beir.js";
import { loadJsonDataset } from "./formats/load-json.js";
import { loadJsonlDataset } from "./formats/load-jsonl.js";
import { isDirectory } from "./io/files.js";
import { withoutGz } from "./io/gzip.js";
import {
  DEFAULT_URL_TIMEOUT_MS,
  isUrlObject,
  pathOfFileUrl,
  urlOf,
  withDownload,
} from "./io/url-source.js";
import { type ColumnMapping, isMappingKey } from "./records/column-mapping.js";
import { type LoadedSamples, SampleBuilder } from "./records/sample-builder.js";
import { isQrelsName, looksLikeQrels } from "./trec/qrels-file.js";
import type { TopicField } from "./trec/topics.js";
import { type TrecDatasetOptions, trecSamples } from "./trec/trec-samples.js";

/** Options of {@link QADataset.load}. */
export interface LoadOptions {
  /**
   * Which column holds which sample field, overriding the auto-detection field by field
   * (`{ question: "prompt", expectedAnswers: "ground_truth" }`). SQuAD files, BEIR directories and
   * TREC qrels have fixed fields, so it does not apply to them.
   */
  readonly columns?: ColumnMapping;
  /** For a BEIR directory: which `qrels/<split>.tsv` to read. Default `"test"`. */
  readonly split?: string;
  /** For TREC qrels: the topics file, as {@link TrecDatasetOptions.topics}. */
  readonly topics?: string;
  /** For TREC qrels with SGML topics: as {@link TrecDatasetOptions.topicField}. */
  readonly topicField?: TopicField;
  /** For TREC qrels: as {@link TrecDatasetOptions.relevanceLevel}. */
  readonly relevanceLevel?: number;
  /**
   * For an `http:`/`https:` URL: aborts the download, and `load` rejects with `signal.reason`.
   * A signal already aborted stops any load before it starts.
   */
  readonly signal?: AbortSignal;
  /**
   * For an `http:`/`https:` URL: how long the server may send nothing (no answer, no bytes)
   * before the load fails, in milliseconds. Default 30,000.
   */
  readonly timeoutMs?: number;
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

const SUPPORTED =
  '.json (native, bare array or SQuAD), .jsonl, .csv, .tsv, .yaml/.yml, .parquet, a BEIR directory (queries.jsonl + qrels/<split>.tsv), or TREC qrels (lines "qid iter docno rel"; topics with the topics option); each may be gzip-compressed (.gz)';

/** The keys {@link LoadOptions} may have. */
const LOAD_OPTIONS = [
  "columns",
  "split",
  "topics",
  "topicField",
  "relevanceLevel",
  "signal",
  "timeoutMs",
] as const;

/** The TREC options of `load`'s options, as `fromTrec` takes them. */
function trecOptions(options: LoadOptions): Omit<TrecDatasetOptions, "qrels"> {
  return {
    ...(options.topics !== undefined ? { topics: options.topics } : {}),
    ...(options.topicField !== undefined ? { topicField: options.topicField } : {}),
    ...(options.relevanceLevel !== undefined ? { relevanceLevel: options.relevanceLevel } : {}),
  };
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
   * Columns are auto-detected from {@link COLUMN_ALIASES}; `options.columns` overrides single
   * fields. SQuAD files, BEIR directories and TREC qrels have fixed fields, so `columns` does not
   * apply to them.
   *
   * Any of these files may be gzip-compressed: it is recognised by its content and decompressed as
   * it is read, and a `.gz` suffix is looked past (`eval.jsonl.gz` reads as `.jsonl`).
   *
   * `source` may be a URL, as a `URL` object or a string starting `file://`, `http://` or
   * `https://`. A `file:` URL loads as its path. An `http(s):` URL's body is streamed with fetch
   * to a temporary file, read by the reader its last path segment's suffix names (as a path's
   * would be; the server's Content-Encoding is undone by fetch), then deleted; messages and
   * warnings name the URL. `options.signal` aborts the download and `options.timeoutMs` bounds
   * how long the server may send nothing. A BEIR directory cannot be loaded by URL.
   *
   * @throws ConfigurationError for an unsupported suffix (listing those supported), a missing
   *   file, or any malformed content; the message names the file, line/row and column. An unknown
   *   option (`invalid-option`). For a URL: an answer other than 2xx (kind `unreadable-file`,
   *   naming the status and the URL), a host that cannot be reached or a download that stalls for
   *   `timeoutMs` (`unreadable-file`), a scheme other than `file:`, `http:` and `https:`
   *   (`invalid-option`). Rejects with `signal.reason` when `options.signal` aborts.
   * @example
   * ```ts
   * const ragas = await QADataset.load("ragas.csv", { columns: { expectedAnswers: "ground_truth" } });
   * const remote = await QADataset.load(new URL("https://example.org/eval.jsonl.gz"), {
   *   signal: AbortSignal.timeout(60_000),
   * });
   * ```
   */
  static async load(source: string | URL, options?: LoadOptions): Promise<QADataset> {
    const checked = expectLoadOptions(source, options);
    checked.signal?.throwIfAborted();
    const url = urlOf(source);
    if (url !== undefined && url.protocol !== "file:") {
      return withDownload(
        url,
        { signal: checked.signal, timeoutMs: checked.timeoutMs },
        (file) => QADataset.load(file, checked),
        (dataset, rename) =>
          new QADataset(dataset.samples, {
            warnings: dataset.warnings.map(rename),
            source: url.href,
          }),
      );
    }
    // Not a URL: a string (URL objects are URLs).
    return loadPath(url === undefined ? (source as string) : pathOfFileUrl(url), checked);
  }

  /**
   * Builds a dataset from records already in memory (objects of columns), with the same column
   * detection, coercion and checks as the file loaders. camelCase keys (`expectedAnswers`,
   * `relevantIds`) are recognised too, so `EvalSample`-shaped objects load as they are.
   * `options.columns` overrides the detection as for {@link QADataset.load}; `options.source`
   * names the records in messages (default `"records"`).
   *
   * @throws ConfigurationError naming the record and column of the first bad value.
   */
  static fromRecords(
    records: Iterable<unknown>,
    options: { readonly columns?: ColumnMapping; readonly source?: string } = {},
  ): QADataset {
    const { columns, source = "records" } = optionsObject("QADataset.fromRecords", options, [
      "columns",
      "source",
    ]) as { columns?: ColumnMapping; source?: string };
    if (
      typeof (records as { [Symbol.iterator]?: unknown } | null)?.[Symbol.iterator] !== "function"
    ) {
      throw new ConfigurationError(
        `QADataset.fromRecords: expected an iterable of records, found ${describeValue(records)}`,
        { kind: "invalid-option", option: "records" },
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
        { kind: "invalid-option", option: "qrels" },
      );
    }
    const level = options.relevanceLevel;
    if (level !== undefined && (typeof level !== "number" || !Number.isFinite(level))) {
      throw new ConfigurationError(
        `QADataset.fromTrec: relevanceLevel must be a number, found ${describeValue(level)}`,
        { kind: "invalid-option", option: "relevanceLevel" },
      );
    }
    const keep = options.queries;
    if (keep !== undefined && typeof keep !== "function") {
      throw new ConfigurationError(
        `QADataset.fromTrec: queries must be a function (queryId) => boolean, found ${describeValue(keep)}`,
        { kind: "invalid-option", option: "queries" },
      );
    }
    const samples = await trecSamples(options, level, keep);
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
        `QADataset.save: expected a path that ends in .json (the native format is JSON, and QADataset.load reads it by its suffix), found ${describeValue(path)}; name the file *.json`,
        { kind: "invalid-option", option: "path" },
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

/** {@link LoadOptions}, checked: the signal and the timeout resolved. */
type CheckedLoadOptions = LoadOptions & {
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number;
};

/** Checks `load`'s arguments before anything is read. */
function expectLoadOptions(source: unknown, options: LoadOptions | undefined): CheckedLoadOptions {
  if (!isUrlObject(source) && (typeof source !== "string" || source.length === 0)) {
    throw new ConfigurationError(
      `QADataset.load: expected a file path, found ${describeValue(source)}`,
      { kind: "invalid-option", option: "path" },
    );
  }
  // A column mapping where the options go (the mapping was once a second argument of its own).
  const field = Object.keys(options ?? {}).find((key) => !LOAD_OPTIONS.includes(key as never));
  if (field !== undefined && isMappingKey(field)) {
    throw new ConfigurationError(
      `QADataset.load: unknown option ${JSON.stringify(field)}; a column mapping goes in the columns option: { columns: { ${field}: ${JSON.stringify((options as Record<string, unknown>)[field])} } }`,
      { kind: "invalid-option", option: field },
    );
  }
  const o = optionsObject("QADataset.load", options, LOAD_OPTIONS) as LoadOptions;
  const { signal, timeoutMs = DEFAULT_URL_TIMEOUT_MS } = o;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new ConfigurationError(
      `QADataset.load: signal must be an AbortSignal, found ${describeValue(signal)}`,
      { kind: "invalid-option", option: "signal" },
    );
  }
  if (!isTimeoutMs(timeoutMs)) {
    throw new ConfigurationError(
      `QADataset.load: timeoutMs must be a number of milliseconds in (0, ${MAX_TIMER_MS}], found ${describeValue(timeoutMs)}`,
      { kind: "invalid-option", option: "timeoutMs" },
    );
  }
  if (o.split !== undefined && (typeof o.split !== "string" || o.split === "")) {
    throw new ConfigurationError(
      `QADataset.load: split must be a non-empty string, found ${describeValue(o.split)}`,
      { kind: "invalid-option", option: "split" },
    );
  }
  return { ...o, signal, timeoutMs };
}

/** Loads a local path, by its suffix (see {@link QADataset.load}). */
async function loadPath(path: string, options: CheckedLoadOptions): Promise<QADataset> {
  const { columns } = options;
  // `data.jsonl.gz` reads as `.jsonl`: every reader decompresses gzip files.
  const lower = withoutGz(path.toLowerCase());
  // Qrels by name come first: MS MARCO's are `qrels.dev.small.tsv`, TREC lines in a .tsv.
  if (isQrelsName(path) && !lower.endsWith(".json") && (await looksLikeQrels(path))) {
    return QADataset.fromTrec({ qrels: path, ...trecOptions(options) });
  }
  let loaded: LoadedSamples;
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
    throw new ConfigurationError(`${path}: unsupported dataset format; expected ${SUPPORTED}`, {
      kind: "invalid-input",
      path,
    });
  }
  return new QADataset(loaded.samples, { warnings: loaded.warnings, source: path });
}
