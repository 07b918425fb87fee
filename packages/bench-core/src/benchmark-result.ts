// The BenchmarkResult: what a run produced, and the door to its file. A facade: load, parse,
// fromJSON, save and merge hand off to result/, rescore to runner/rescore.ts; none of those
// modules imports this one (they take and give the result's data, `ResultData` and
// `BenchmarkResultInit`).

import type { ResultFile } from "./result/codec.js";
import { headerOf, sampleToJson } from "./result/encode-result.js";
import { mergeResults } from "./result/merge.js";
import {
  type LazyResult,
  type LazySamples,
  loadResult,
  parseResult,
  readLazySamples,
  resultFromJson,
} from "./result/read.js";
import {
  type BenchmarkResultInit,
  type DatasetInfo,
  expectInit,
  type LoadResultOptions,
  type Provenance,
  type RateLimitRecord,
  type ResultData,
  type ResultShard,
} from "./result/result-init.js";
import { saveResult } from "./result/save.js";
import {
  countStatuses,
  sumJudgeUsage,
  summarizeSamples,
  sumUsage,
} from "./result/summarize-samples.js";
import { type RescoreOptions, rescoreResult } from "./runner/rescore.js";
import type {
  DistributionSummary,
  JudgeUsage,
  Metadata,
  Metric,
  SampleResult,
  StatusCounts,
  SummaryStat,
  Usage,
} from "./types.js";

export type {
  BenchmarkResultInit,
  DatasetInfo,
  LoadResultOptions,
  Provenance,
  RateLimitRecord,
  ResultData,
  ResultShard,
  ShardSpec,
} from "./result/result-init.js";

/**
 * The outcome of one `Benchmark.run`: per-sample records, status counts and per-metric summaries.
 *
 * It is self-describing: `higherIsBetter` travels with it, so a saved file keeps its meaning after
 * the Metric objects are gone. On disk it is one JSON object with the seed's snake_case field names
 * (see the package README for the format).
 */
export class BenchmarkResult implements ResultData {
  readonly name: string;
  readonly createdAt: Date;
  readonly durationS: number;
  readonly status: StatusCounts;
  readonly summary: Readonly<Record<string, DistributionSummary>>;
  readonly higherIsBetter: Readonly<Record<string, boolean>>;
  readonly dataset: DatasetInfo | undefined;
  readonly shard: ResultShard | undefined;
  /** Whether the run kept the retrieved chunks' text, so that metrics reading it can rescore it. */
  readonly keepChunkText: boolean;
  /** Where the run came from, when it was recorded. */
  readonly provenance: Provenance | undefined;
  #usage: Usage | null | undefined;
  #judgeUsage: JudgeUsage | null | undefined;
  /** With `rateLimit`: what the run's limiter counted (rate-limited calls, concurrency). */
  readonly rateLimit: RateLimitRecord | undefined;
  /**
   * Trials per sample: 1 unless the run had `trials: n`. With n > 1 every sample's `trials` holds
   * its n trials, its scores are their means, and the summary has `trial_std` per metric.
   */
  readonly trials: number;
  #samples: readonly SampleResult[] | undefined;
  /** Set by a lazy load until the records are read. */
  #lazy: LazySamples | undefined;
  #sampleIds: readonly (string | undefined)[] | undefined;
  #questionHashes: Int32Array | undefined;
  #columns: Map<string, Float64Array> | undefined;

  /**
   * @throws {ConfigurationError} when `init` lacks one of its required fields or holds one of
   * the wrong type, an Invalid Date, or a negative or non-finite duration (the samples themselves
   * are trusted: `Benchmark.run` and `load` build them).
   */
  constructor(init: BenchmarkResultInit) {
    expectInit(init);
    this.name = init.name;
    this.createdAt = init.createdAt;
    this.durationS = init.durationS;
    this.#samples = init.samples;
    this.higherIsBetter = init.higherIsBetter;
    this.status = init.status ?? countStatuses(init.samples);
    // Records with trials and no count given (a result built by hand): the count they hold.
    this.trials = init.trials ?? init.samples[0]?.trials?.length ?? 1;
    this.summary =
      init.summary ??
      summarizeSamples(Object.keys(init.higherIsBetter), init.samples, this.trials > 1);
    this.dataset = init.dataset;
    this.shard = init.shard;
    this.keepChunkText = init.keepChunkText === true;
    this.provenance = init.provenance;
    this.#usage = init.usage;
    this.#judgeUsage = init.judgeUsage;
    this.rateLimit = init.rateLimit;
  }

  /**
   * The target's usage summed over the samples that reported one (a field is absent when no
   * sample reported it); `undefined` when none did.
   */
  get usage(): Usage | undefined {
    if (this.#usage === undefined) this.#usage = sumUsage(this.samples) ?? null;
    return this.#usage ?? undefined;
  }

  /**
   * What the metrics reported of their model calls (judges, embedders), summed over the samples,
   * `calls` included; `undefined` when none reported any.
   */
  get judgeUsage(): JudgeUsage | undefined {
    if (this.#judgeUsage === undefined) this.#judgeUsage = sumJudgeUsage(this.samples) ?? null;
    return this.#judgeUsage ?? undefined;
  }

  /**
   * Scores the saved outputs of this run again with `metrics`, with no target call: the answers,
   * retrieved chunks, latencies and usage the result kept are what the metrics read, so the scores
   * equal a fresh run's over the same outputs, bit for bit. Errored samples stay errored. Judge
   * metrics get `reportUsage` (summed into `judgeUsage`), and use a cache when the judge is
   * wrapped with `cached()`.
   *
   * @example
   * ```ts
   * const saved = await BenchmarkResult.load("results/recursive-500.json");
   * const again = await saved.rescore([new Recall({ k: 10 })], { dataset });
   * await again.save("results/recursive-500.rescored.json");
   * ```
   *
   * @throws {ConfigurationError} before any metric runs: metric names that repeat; a metric that
   * reads what the result did not keep (chunk text without `keepChunkText`, an answer from a
   * retriever run, relevant ids or gold answers of a format-1 result rescored without its
   * dataset); a dataset that does not hold every sample of the result.
   */
  async rescore<M extends Metadata = Metadata>(
    metrics: readonly Metric<M>[],
    options: RescoreOptions<M> = {},
  ): Promise<BenchmarkResult> {
    return new BenchmarkResult(await rescoreResult(this, metrics, options));
  }

  /**
   * The per-sample records, in dataset order. After a lazy load (`load(path, { lazy: true })`)
   * the first read parses them from the file.
   *
   * @throws {ConfigurationError} on that first read, when the file changed since the load, is
   * gone, or holds a bad sample.
   */
  get samples(): readonly SampleResult[] {
    if (this.#samples === undefined) {
      const lazy = this.#lazy as LazySamples;
      this.#samples = readLazySamples(lazy);
      this.#lazy = undefined;
    }
    return this.#samples;
  }

  /** Number of samples; does not read the records of a lazily loaded result. */
  get sampleCount(): number {
    return this.#samples === undefined ? (this.#lazy as LazySamples).count : this.#samples.length;
  }

  /**
   * Two 32-bit hashes of each sample's question (entries 2i and 2i + 1), read by a lazy load
   * (`load(path, { lazy: true })`) without reading the records; `undefined` for a result built or
   * loaded otherwise. Two runs whose hashes agree sample by sample ask the same questions (two
   * different questions agree with a chance of about 5·10⁻²⁰): `@fastrag/bench-compare` pairs
   * runs without fingerprints this way instead of reading every record. Shared: never write it.
   */
  questionHashes(): Int32Array | undefined {
    return this.#questionHashes;
  }

  /**
   * Every sample's `sampleId` (undefined where it has none), in sample order. Does not read the
   * records of a lazily loaded result.
   */
  sampleIds(): readonly (string | undefined)[] {
    if (this.#sampleIds === undefined) {
      const samples = this.#samples as readonly SampleResult[];
      this.#sampleIds = Object.freeze(samples.map((s) => s.sampleId));
    }
    return this.#sampleIds;
  }

  /**
   * One metric's score per sample, in sample order, with `NaN` where the sample has no number
   * (an errored sample, a `null` score, a missing key); `undefined` when the run has no such
   * metric. Does not read the records of a lazily loaded result. The array is the result's own
   * (shared between calls, for speed): read it, do not write it.
   */
  scoreColumn(metric: string): Float64Array | undefined {
    if (!Object.hasOwn(this.higherIsBetter, metric)) return undefined;
    let columns = this.#columns;
    if (columns === undefined) {
      columns = new Map();
      this.#columns = columns;
    }
    let column = columns.get(metric);
    if (column === undefined) {
      const samples = this.samples;
      column = new Float64Array(samples.length);
      for (let i = 0; i < samples.length; i++) {
        const scores = (samples[i] as SampleResult).scores;
        const v = Object.hasOwn(scores, metric) ? scores[metric] : null;
        column[i] = typeof v === "number" ? v : Number.NaN;
      }
      columns.set(metric, column);
    }
    return column;
  }

  /** Metric names, in the run's order. */
  get metrics(): string[] {
    return Object.keys(this.higherIsBetter);
  }

  /** One statistic of one metric, or `undefined` when the run has no such metric. */
  stat(metric: string, stat: SummaryStat = "mean"): number | null | undefined {
    const s = Object.hasOwn(this.summary, metric) ? this.summary[metric] : undefined;
    return s === undefined ? undefined : s[stat];
  }

  /** The plain snake_case object written to disk. */
  toJSON(): ResultFile {
    return {
      ...headerOf(this),
      samples: this.samples.map(sampleToJson),
    };
  }

  /**
   * Writes the result as JSON, atomically: a temporary file in the same folder, then a rename, so
   * a crash never leaves half a result. Samples are streamed one per line, so a result of 10^6
   * samples never becomes one giant string. Missing folders are created.
   *
   * @throws {ConfigurationError} when the file cannot be written (naming the path and the
   * system's reason), or when a value cannot be written as JSON (a cycle, a BigInt, put into a
   * summary or a sample record by hand), naming the field. Nothing is left behind then: neither
   * a temporary file nor a changed target.
   */
  async save(path: string): Promise<void> {
    await saveResult(this, path);
  }

  /**
   * Reads a result file written by `save` (or by the Python implementation).
   *
   * @throws {ConfigurationError} when the file is missing, is not valid JSON (e.g. truncated), is
   * not a result (a sample missing a field, an impossible `created_at`), contradicts itself (a
   * summary or status counts that are not its samples', uris not one per retrieved id), or has a
   * format version this version cannot read. The message names the file and the offending field.
   */
  static async load(path: string, options: LoadResultOptions = {}): Promise<BenchmarkResult> {
    const loaded = await loadResult(path, options);
    return loaded.lazy === undefined
      ? new BenchmarkResult(loaded.init)
      : BenchmarkResult.#ofLazy(loaded.lazy);
  }

  /** A lazily loaded result: its ids, question hashes and score columns now, records later. */
  static #ofLazy(lazy: LazyResult): BenchmarkResult {
    const r = new BenchmarkResult({ ...lazy.header, samples: [] });
    r.#samples = undefined;
    r.#lazy = lazy.samples;
    r.#sampleIds = Object.freeze(lazy.sampleIds);
    r.#questionHashes = lazy.questionHashes;
    r.#columns = lazy.columns;
    return r;
  }

  /**
   * Parses the text of a result file. `source` names it in error messages.
   *
   * @throws {ConfigurationError} as {@link BenchmarkResult.load}.
   */
  static parse(text: string, source = "<result>"): BenchmarkResult {
    return new BenchmarkResult(parseResult(text, source));
  }

  /**
   * Builds a result from the parsed snake_case object, validating every field.
   *
   * @throws {ConfigurationError} naming `source` and the offending field.
   */
  static fromJSON(data: unknown, source = "<result>"): BenchmarkResult {
    return new BenchmarkResult(resultFromJson(data, source));
  }

  /**
   * Joins the results of a sharded run (`run(target, { shard })`) into the result of the whole
   * dataset, in dataset order, and recomputes the summary and status counts.
   *
   * @throws {ConfigurationError} when the shards differ in name, metrics or dataset, overlap,
   * or do not cover the dataset, saying which.
   */
  static merge(shards: readonly BenchmarkResult[]): BenchmarkResult {
    return new BenchmarkResult(mergeResults(shards));
  }
}
