import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import {
  ConfigurationError,
  type RetrievedChunk,
  type Retriever,
  type TargetCallOptions,
} from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";
import { feedText } from "../io/byte-lines.js";
import { feedFile } from "../io/files.js";
import { type RunColumns, RunParser } from "./run-parser.js";
import type { RunWorkerMessage } from "./run-worker.js";

/** Options of {@link TrecRun.load}. */
export interface TrecRunLoadOptions {
  /**
   * Parse the file on a worker thread, leaving this one free meanwhile: `fastrag-bench eval`
   * reads the qrels while the run is parsed, on two cores in about the time of the longer of the
   * two. The run and its errors are the same. Default `false`. Where the worker's module is not
   * there to start (code run from TypeScript sources, a bundle), the file is parsed on this thread.
   * So is it when `queries` is given: a function cannot cross to another thread.
   */
  readonly thread?: boolean;
  /**
   * Keeps only the rankings of the queries for which this returns `true` (the others answer `[]`,
   * as queries the run lacks do): to split one evaluation across threads, as `fastrag-bench
   * eval` does, or to load a subset. It is called once per distinct query id, in order of first
   * appearance. The lines of a rejected query are read for their query id only: their other
   * fields are not checked. By default every query is kept.
   */
  readonly queries?: (queryId: string) => boolean;
}

const EMPTY: readonly RetrievedChunk[] = Object.freeze([]);

/**
 * A replay target: a {@link Retriever} that answers each query from a stored TREC run file, so
 * a run produced elsewhere (Anserini, Pyserini, a vendor's export) can be scored without
 * re-running its pipeline.
 *
 * Rankings are ordered as trec_eval orders them, not as the file lists them: by score
 * descending, ties broken by docno descending in byte-wise (strcmp) order. The rank column is
 * ignored, and so are any fields after the sixth.
 *
 * Each sample is answered by `sample.id` (the TREC query id), falling back to the question text
 * when the sample has no id. A query the run does not contain gets an empty ranking, so its
 * retrieval scores are 0, as with `trec_eval -c`; it is not marked errored, because "the system
 * retrieved nothing" is a legitimate outcome of a stored run.
 *
 * @example
 * ```ts
 * const dataset = await QADataset.fromTrec({ qrels: "qrels.test" });
 * const run = await TrecRun.load("results.test");
 * const result = await new Benchmark({ dataset, metrics: [new NDCG({ k: 10 })] }).run(run, { name: "bm25" });
 * ```
 */
export class TrecRun implements Retriever {
  /** The file the run was read from. */
  readonly source: string;
  /** The run tag of the first line (the sixth column). */
  readonly tag: string | undefined;
  // Columns rather than 10^6 chunk objects: a ranking's chunks are built when it is asked for,
  // so they die young instead of filling the old generation.
  private readonly index: ReadonlyMap<string, number>;
  private readonly qids: readonly string[];
  private readonly starts: Int32Array;
  private readonly docIds: Int32Array;
  private readonly scores: Float64Array;
  private readonly names: readonly string[];

  private constructor(source: string, parsed: RunColumns) {
    this.source = source;
    this.tag = parsed.tag;
    this.index = parsed.index;
    this.qids = parsed.qids;
    this.starts = parsed.starts;
    this.docIds = parsed.docIds;
    this.scores = parsed.scores;
    this.names = parsed.names;
  }

  /**
   * Reads a TREC run file (`qid Q0 docno rank score tag`, whitespace-separated), decompressing it
   * as it is read when it is gzip (`run.txt.gz`).
   *
   * @throws ConfigurationError when the file is missing, is gzip that cannot be decompressed, a line has fewer than 6 fields, a score
   *   is not a number, or a document is listed twice for one query; the message names the line
   *   and column.
   */
  static async load(path: string, options: TrecRunLoadOptions = {}): Promise<TrecRun> {
    const keep = options?.queries;
    if (keep !== undefined && typeof keep !== "function") {
      throw new ConfigurationError(
        `TrecRun.load: queries must be a function (queryId) => boolean, found ${describeValue(keep)}`,
        { kind: "invalid-option", option: "queries" },
      );
    }
    if (options?.thread === true && keep === undefined) {
      const worker = new URL("./run-worker.js", import.meta.url);
      if (worker.protocol === "file:" && existsSync(fileURLToPath(worker))) {
        return new TrecRun(path, await parseOnThread(worker, path));
      }
    }
    const parser = new RunParser(path, keep);
    await feedFile(path, parser);
    parser.finish();
    return new TrecRun(path, parser.columns());
  }

  /**
   * Parses the text of a TREC run. `source` names it in error messages.
   *
   * @throws ConfigurationError as {@link TrecRun.load}.
   */
  static parse(text: string, source = "TREC run"): TrecRun {
    const parser = new RunParser(source, undefined, false);
    feedText(text, parser);
    parser.finish();
    return new TrecRun(source, parser.columns());
  }

  /** The query ids the run answers, in order of first appearance in the file. */
  queryIds(): string[] {
    return this.qids.slice();
  }

  /** True when the run holds a ranking for `queryId`. */
  has(queryId: string): boolean {
    return this.index.has(queryId);
  }

  /** The ranking of one query in trec_eval's order; empty for a query the run lacks. */
  ranking(queryId: string): readonly RetrievedChunk[] {
    const q = this.index.get(queryId);
    if (q === undefined) return EMPTY;
    const from = this.starts[q] as number;
    const to = this.starts[q + 1] as number;
    const { docIds, scores, names } = this;
    const chunks: RetrievedChunk[] = [];
    for (let k = from; k < to; k++) {
      // Not frozen: freezing 10^6 small objects costs more than building them; the type is readonly.
      chunks.push({ id: names[docIds[k] as number] as string, score: scores[k] as number });
    }
    return chunks;
  }

  /**
   * The stored ranking of `options.sample.id` (else of `query`). Never throws for a missing
   * query: it answers `[]`, scored 0 like `trec_eval -c`.
   */
  retrieve(
    query: string,
    options?: Partial<TargetCallOptions>,
  ): Promise<readonly RetrievedChunk[]> {
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = options?.sample?.id ?? query;
    return Promise.resolve(this.ranking(id));
  }
}

/** Parses the run on a worker thread; its errors are rethrown here as they were thrown there. */
function parseOnThread(worker: URL, path: string): Promise<RunColumns> {
  return new Promise((resolve, reject) => {
    const thread = new Worker(worker, { workerData: { path } });
    let settled = false;
    thread.once("message", (message: RunWorkerMessage) => {
      settled = true;
      void thread.terminate();
      if ("columns" in message) {
        resolve(message.columns);
        return;
      }
      const { code } = message.error;
      // The cause crossed the thread as its code (ENOENT…), which is what callers test.
      const cause = code === undefined ? undefined : Object.assign(new Error(code), { code });
      const options = cause === undefined ? undefined : { cause };
      const fields = message.error.configuration;
      reject(
        fields !== undefined
          ? new ConfigurationError(message.error.message, {
              ...fields,
              kind: fields.kind,
              ...options,
            })
          : new Error(message.error.message, options),
      );
    });
    thread.once("error", (error) => {
      if (!settled) reject(error);
    });
    thread.once("exit", (code) => {
      if (!settled) reject(new Error(`TrecRun.load: the parsing thread exited with code ${code}`));
    });
  });
}
