// The result model: what one run produced, in memory. Reading, saving and merging are in read.ts,
// save.ts and merge.ts; the file's shapes in codec.ts. The class keeps their entry points, so the
// public API is one class.
import { ConfigurationError } from "../errors.js";
import type { ScannedSamples } from "../internal/result-scan.js";
import { describe } from "../internal/validate.js";
import type {
  DistributionSummary,
  JudgeUsage,
  Metadata,
  Metric,
  SampleResult,
  StatusCounts,
  SummaryStat,
  Usage,
} from "../types.js";
import { headerOf, type ResultFile, sampleToJson } from "./codec.js";
import { mergeResults } from "./merge.js";
import { checkProvenance } from "./provenance.js";
import {
  type LazySamples,
  loadResult,
  parseResult,
  readLazySamples,
  resultFromJson,
} from "./read.js";
import { type RescoreOptions, rescoreResult } from "./rescore.js";
import { saveResult } from "./save.js";
import { countStatuses, sumJudgeUsage, summarizeSamples, sumUsage } from "./summarize-samples.js";

/** Which deterministic slice of the dataset a run covered. */
export interface ShardSpec {
  /** 0-based shard index, `0 ≤ index < count`. */
  readonly index: number;
  readonly count: number;
}

/**
 * The shard a result covers, as a result records it: its slice, and a fingerprint of the samples
 * in that slice (their ids and questions, in order, with the index and count). `merge` recomputes
 * it from the samples, so a shard whose index was changed (two shard files swapped by hand or by a
 * script) is refused rather than merged with every sample in another's place. Files written before
 * it existed lack it, and merge as before.
 */
export interface ResultShard extends ShardSpec {
  readonly samplesFingerprint?: string;
}

/** Identity of the dataset a run covered, used to pair runs and to merge shards. */
export interface DatasetInfo {
  /** A hash of the samples' ids, questions, answers and relevance (see `fingerprintSamples`). */
  readonly fingerprint: string;
  /** Number of samples in the whole dataset (not only this shard). */
  readonly size: number;
}

/**
 * Where a run came from, recorded in its result (`config_hash`, `git_commit`, `params` on disk)
 * so that a result says which pipeline made it. The CLI fills it in from the config; a library
 * user passes it as `run(target, { provenance })`.
 */
export interface Provenance {
  /** A hash of the config the run was made from. */
  readonly configHash?: string;
  /** The git commit of the working tree the run was made in, when there is one. */
  readonly gitCommit?: string;
  /** The target's parameters as the user declared them (chunk size, model, top-k…): JSON values. */
  readonly params?: Readonly<Record<string, unknown>>;
}

/**
 * What a run with `rateLimit` counted (on disk: `rate_limit: { rate_limited_calls,
 * concurrency_final, concurrency_min }`). A resumed run counts only its own calls.
 */
export interface RateLimitRecord {
  /** Calls that were rate-limited (each waited and ran again, or gave up past `maxWaits`). */
  readonly rateLimitedCalls: number;
  /** The concurrency in force when the run ended (`maxConcurrent` unless adaptive). */
  readonly concurrencyFinal: number;
  /** The lowest concurrency of the run. */
  readonly concurrencyMin: number;
}

/** Options of {@link BenchmarkResult.load}. */
export interface LoadResultOptions {
  /**
   * Read only the sample ids and scores now, and the full sample records when `samples` is first
   * read. This is what `Comparison.load` uses: loading 100 files of 10,000 samples this way takes
   * about a tenth of the time and memory. Default `false`.
   *
   * A lazy load checks the file as strictly as a full load does (UTF-8, JSON grammar, the header,
   * and the type of every field of every sample) and refuses the same files. Reading the records
   * reads the file again, so it must not change in between: a file whose size or modification
   * time changed is then refused. Files not in the layout `save` writes (one sample per line), and
   * files over 256 MB, are read in full either way.
   */
  readonly lazy?: boolean;
}

/** Everything a {@link BenchmarkResult} holds. */
export interface BenchmarkResultInit {
  readonly name: string;
  readonly createdAt: Date;
  readonly durationS: number;
  readonly samples: readonly SampleResult[];
  /** metric name → direction, in the run's metric order. */
  readonly higherIsBetter: Readonly<Record<string, boolean>>;
  /** Recomputed from `samples` when absent. */
  readonly summary?: Readonly<Record<string, DistributionSummary>>;
  /** Recomputed from `samples` when absent. */
  readonly status?: StatusCounts;
  readonly dataset?: DatasetInfo;
  readonly shard?: ResultShard;
  /** Whether the run kept the retrieved chunks' text (`keepChunkText`). Default `false`. */
  readonly keepChunkText?: boolean;
  readonly provenance?: Provenance;
  /** The target's usage summed over the samples. Recomputed from `samples` when absent. */
  readonly usage?: Usage;
  /** The metrics' model-call usage summed over the samples. Recomputed from `samples` when absent. */
  readonly judgeUsage?: JudgeUsage;
  /** With `rateLimit`: what the run's limiter counted. */
  readonly rateLimit?: RateLimitRecord;
  /** Trials per sample (`run(target, { trials })`); default: the first sample's trial count, else 1. */
  readonly trials?: number;
}

/**
 * Builds a result whose records are read from its file on first use (`load(path, { lazy: true })`);
 * set by {@link BenchmarkResult}'s static block, so that the lazy state stays private to the class.
 * @internal
 */
export let resultOfScan: (
  path: string,
  scanned: ScannedSamples<Omit<BenchmarkResultInit, "samples">>,
) => BenchmarkResult;

/**
 * The outcome of one `Benchmark.run`: per-sample records, status counts and per-metric summaries.
 *
 * It is self-describing: `higherIsBetter` travels with it, so a saved file keeps its meaning after
 * the Metric objects are gone. On disk it is one JSON object with the seed's snake_case field names
 * (see the package README for the format).
 */
export class BenchmarkResult {
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
    checkInit(init);
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
    return rescoreResult(this, metrics, options);
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
    return loadResult(path, options);
  }

  static {
    // read.ts builds lazily loaded results; their state is the class's private fields.
    resultOfScan = (path, scanned) => {
      const r = new BenchmarkResult({ ...scanned.header, samples: [] });
      r.#samples = undefined;
      r.#lazy = {
        path,
        count: scanned.sampleIds.length,
        size: scanned.size,
        mtimeMs: scanned.mtimeMs,
      };
      r.#sampleIds = Object.freeze(scanned.sampleIds);
      r.#questionHashes = scanned.questionHashes;
      r.#columns = scanned.columns;
      return r;
    };
  }

  /**
   * Parses the text of a result file. `source` names it in error messages.
   *
   * @throws {ConfigurationError} as {@link BenchmarkResult.load}.
   */
  static parse(text: string, source = "<result>"): BenchmarkResult {
    return parseResult(text, source);
  }

  /**
   * Builds a result from the parsed snake_case object, validating every field.
   *
   * @throws {ConfigurationError} naming `source` and the offending field.
   */
  static fromJSON(data: unknown, source = "<result>"): BenchmarkResult {
    return resultFromJson(data, source);
  }

  /**
   * Joins the results of a sharded run (`run(target, { shard })`) into the result of the whole
   * dataset, in dataset order, and recomputes the summary and status counts.
   *
   * @throws {ConfigurationError} when the shards differ in name, metrics or dataset, overlap,
   * or do not cover the dataset, saying which.
   */
  static merge(shards: readonly BenchmarkResult[]): BenchmarkResult {
    return mergeResults(shards);
  }
}

function checkInit(init: BenchmarkResultInit): void {
  const i = init as Partial<Record<keyof BenchmarkResultInit, unknown>> | null;
  const bad = (field: string, expected: string, found: unknown) =>
    new ConfigurationError(
      `BenchmarkResult: ${field} must be ${expected}, found ${describe(found)}`,
    );
  if (typeof i !== "object" || i === null) throw bad("the init", "an object", i);
  if (typeof i.name !== "string") throw bad("name", "a string", i.name);
  if (!(i.createdAt instanceof Date)) throw bad("createdAt", "a Date", i.createdAt);
  // An Invalid Date would make save() throw a RangeError (toISOString), and a NaN or negative
  // duration would be saved as a file that load() refuses.
  if (Number.isNaN(i.createdAt.getTime())) {
    throw new ConfigurationError(
      "BenchmarkResult: createdAt must be a valid Date, found an Invalid Date",
    );
  }
  if (typeof i.durationS !== "number" || !Number.isFinite(i.durationS) || i.durationS < 0)
    throw bad("durationS", "a non-negative number of seconds", i.durationS);
  if (!Array.isArray(i.samples)) throw bad("samples", "an array", i.samples);
  if (typeof i.higherIsBetter !== "object" || i.higherIsBetter === null)
    throw bad("higherIsBetter", "an object of metric → boolean", i.higherIsBetter);
  if (i.provenance !== undefined) checkProvenance(i.provenance, "BenchmarkResult: provenance");
  if (i.trials !== undefined && !(Number.isSafeInteger(i.trials) && (i.trials as number) >= 1))
    throw bad("trials", "a positive integer", i.trials);
}
