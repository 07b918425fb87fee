import { createReadStream, readFileSync, statSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import { ConfigurationError } from "./errors.js";
import { writeFileAtomic } from "./internal/atomic-write.js";
import { type ScannedSamples, scanResultFile } from "./internal/result-scan.js";
import { decodeUtf8, shortText } from "./internal/text.js";
import {
  describe,
  expectArray,
  expectBoolean,
  expectFiniteOrNull,
  expectNonNegativeInt,
  expectObject,
  expectString,
  expectStringOrNull,
  setOwn,
} from "./internal/validate.js";
import { summarizeValues } from "./summary.js";
import type {
  DistributionSummary,
  SampleResult,
  SampleStatus,
  StatusCounts,
  SummaryStat,
} from "./types.js";
import { SUMMARY_STATS } from "./types.js";

/** The format string written into every result file. Files of another major version are refused. */
export const RESULT_FORMAT = "fastrag-bench-result/1";
const FORMAT_RE = /^fastrag-bench-result\/(\d+)(?:\.\d+)*$/;
const STATUSES: ReadonlySet<string> = new Set(["successful", "incomplete", "errored"]);

/** Which deterministic slice of the dataset a run covered. */
export interface ShardSpec {
  /** 0-based shard index, `0 ≤ index < count`. */
  readonly index: number;
  readonly count: number;
}

/** Identity of the dataset a run covered, used to pair runs and to merge shards. */
export interface DatasetInfo {
  /** A hash of the samples' ids, questions, answers and relevance (see `fingerprintSamples`). */
  readonly fingerprint: string;
  /** Number of samples in the whole dataset (not only this shard). */
  readonly size: number;
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
  readonly shard?: ShardSpec;
}

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
  readonly shard: ShardSpec | undefined;
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
    this.summary = init.summary ?? summarizeSamples(Object.keys(init.higherIsBetter), init.samples);
    this.dataset = init.dataset;
    this.shard = init.shard;
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
    const header = stringifyOrThrow(headerOf(this), path, "", 1);
    const samples = this.samples;
    await writeFileAtomic(path, function* () {
      // The header without its closing brace, then `"samples": [` and one sample per line.
      yield `${header.slice(0, -2)},\n "samples": [\n`;
      const batch: string[] = [];
      for (let i = 0; i < samples.length; i++) {
        batch.push(
          stringifyOrThrow(sampleToJson(samples[i] as SampleResult), path, `samples[${i}]`),
        );
        if (batch.length === 1000) {
          yield `${batch.join(",\n")}${i + 1 < samples.length ? ",\n" : "\n"}`;
          batch.length = 0;
        }
      }
      if (batch.length > 0) yield `${batch.join(",\n")}\n`;
      yield "]}\n";
    });
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
    let size: number;
    try {
      size = (await stat(path)).size;
    } catch (error) {
      throw new ConfigurationError(`${path}: cannot read result file (${describeIoError(error)})`, {
        cause: error,
      });
    }
    // A lazy load reads the records again later in one piece: past 256 MB that is the streaming
    // reader's job, so such files are read in full now.
    if (options?.lazy === true && size <= 256 * 1024 * 1024) {
      let scanned: ScannedSamples<Omit<BenchmarkResultInit, "samples">> | undefined;
      try {
        scanned = scanResultFile(path, {
          header: (data) => {
            const header = parseHeader(data, path);
            const st = header.status as StatusCounts;
            return {
              header,
              metrics: Object.keys(header.higherIsBetter),
              expected: st.successful + st.errored + st.incomplete,
            };
          },
          sample: (data, where) => {
            const s = parseSampleJson(data, path, where);
            return {
              sampleId: s.sampleId,
              question: s.question,
              status: s.status,
              scores: s.scores,
            };
          },
        });
      } catch (error) {
        if (ConfigurationError.isInstance(error)) throw error;
        throw new ConfigurationError(
          `${path}: cannot read result file (${describeIoError(error)})`,
          { cause: error },
        );
      }
      if (scanned !== undefined) {
        checkStatusCounts(scanned.header.status as StatusCounts, scanned.statuses, path);
        const columns = scanned.columns;
        checkSummary(
          scanned.header.summary ?? {},
          Object.keys(scanned.header.higherIsBetter),
          (m) => columns.get(m) ?? new Float64Array(scanned.sampleIds.length).fill(Number.NaN),
          path,
        );
        return BenchmarkResult.#fromScan(path, scanned);
      }
    }
    // Past ~256 MB a single string gets close to V8's limit: read our own layout line by line.
    if (size > 256 * 1024 * 1024) {
      const streamed = await loadStreaming(path);
      if (streamed !== undefined) return streamed;
    }
    let text: string;
    try {
      text = decodeUtf8(await readFile(path), path);
    } catch (error) {
      if (ConfigurationError.isInstance(error)) throw error;
      throw new ConfigurationError(`${path}: cannot read result file (${describeIoError(error)})`, {
        cause: error,
      });
    }
    return BenchmarkResult.parse(text, path);
  }

  static #fromScan(
    path: string,
    scanned: ScannedSamples<Omit<BenchmarkResultInit, "samples">>,
  ): BenchmarkResult {
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
  }

  /**
   * Parses the text of a result file. `source` names it in error messages.
   *
   * @throws {ConfigurationError} as {@link BenchmarkResult.load}.
   */
  static parse(text: string, source = "<result>"): BenchmarkResult {
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new ConfigurationError(`${source}: ${jsonSyntaxProblem(text, error)}`, {
        cause: error,
      });
    }
    return BenchmarkResult.fromJSON(data, source);
  }

  /**
   * Builds a result from the parsed snake_case object, validating every field.
   *
   * @throws {ConfigurationError} naming `source` and the offending field.
   */
  static fromJSON(data: unknown, source = "<result>"): BenchmarkResult {
    const header = parseHeader(data, source);
    const rawSamples = expectArray((data as Record<string, unknown>).samples, source, "samples");
    const samples: SampleResult[] = new Array(rawSamples.length);
    for (let i = 0; i < rawSamples.length; i++) {
      samples[i] = parseSampleJson(rawSamples[i], source, `samples[${i}]`);
    }
    checkStatusCounts(header.status as StatusCounts, countStatuses(samples), source);
    checkSummary(
      header.summary ?? {},
      Object.keys(header.higherIsBetter),
      (m) => scoreColumnOfSamples(samples, m),
      source,
    );
    return new BenchmarkResult({ ...header, samples });
  }

  /**
   * Joins the results of a sharded run (`run(target, { shard })`) into the result of the whole
   * dataset, in dataset order, and recomputes the summary and status counts.
   *
   * @throws {ConfigurationError} when the shards differ in name, metrics or dataset, overlap,
   * or do not cover the dataset, saying which.
   */
  static merge(shards: readonly BenchmarkResult[]): BenchmarkResult {
    if (!Array.isArray(shards)) {
      throw new ConfigurationError(
        `merge: expected an array of results, found ${describe(shards)}`,
      );
    }
    for (const [i, s] of shards.entries()) {
      // Duck-typed, not instanceof: a result from another copy of this package merges too.
      const r = s as Partial<BenchmarkResult> | null;
      if (
        typeof r !== "object" ||
        r === null ||
        typeof r.name !== "string" ||
        !Array.isArray(r.metrics)
      ) {
        throw new ConfigurationError(
          `merge: shards[${i}] is ${describe(s)}, expected a BenchmarkResult (from run() or load())`,
        );
      }
    }
    if (shards.length === 0)
      throw new ConfigurationError("merge: expected at least one shard, found none");
    const first = shards[0] as BenchmarkResult;
    const metrics = first.metrics.join(",");
    for (const s of shards) {
      if (s.name !== first.name) {
        throw new ConfigurationError(
          `merge: shards belong to different runs: "${first.name}" and "${s.name}"; merge each run's shards on their own (e.g. the files <name>.shard-*-of-N.json of one name)`,
        );
      }
      if (s.metrics.join(",") !== metrics) {
        throw new ConfigurationError(
          `merge: shards of "${first.name}" have different metrics: [${first.metrics.join(", ")}] and [${s.metrics.join(", ")}]`,
        );
      }
      for (const m of first.metrics) {
        // Same names, same keys: both directions are own properties.
        const a = first.higherIsBetter[m];
        const b = s.higherIsBetter[m];
        if (a !== b) {
          throw new ConfigurationError(
            `merge: shards of "${first.name}" disagree on the direction of "${m}" (${a ? "higher" : "lower"} is better in one, ${b ? "higher" : "lower"} in another); were they scored by different versions of the metric?`,
          );
        }
      }
      if (s.dataset === undefined || s.shard === undefined) {
        throw new ConfigurationError(
          `merge: a result of "${s.name}" is not a shard (it has no shard or dataset fingerprint); run with { shard: { index, count } }`,
        );
      }
      if (
        s.dataset.fingerprint !== first.dataset?.fingerprint ||
        s.dataset.size !== first.dataset?.size
      ) {
        throw new ConfigurationError(
          `merge: shards of "${first.name}" ran on different datasets (fingerprints ${first.dataset?.fingerprint} and ${s.dataset.fingerprint})`,
        );
      }
      if (s.shard.count !== first.shard?.count) {
        throw new ConfigurationError(
          `merge: shards of "${first.name}" were cut differently (shard counts ${first.shard?.count} and ${s.shard.count})`,
        );
      }
    }
    const count = (first.shard as ShardSpec).count;
    const size = (first.dataset as DatasetInfo).size;
    const byIndex = new Map<number, BenchmarkResult>();
    for (const s of shards) {
      const index = (s.shard as ShardSpec).index;
      if (byIndex.has(index)) {
        throw new ConfigurationError(
          `merge: shard ${index + 1}/${count} appears twice; shards must be disjoint`,
        );
      }
      const expected = shardSize(size, index, count);
      if (s.samples.length !== expected) {
        throw new ConfigurationError(
          `merge: shard ${index + 1}/${count} holds ${s.samples.length} samples, expected ${expected}; it did not finish`,
        );
      }
      byIndex.set(index, s);
    }
    const missing: string[] = [];
    for (let i = 0; i < count; i++) if (!byIndex.has(i)) missing.push(`${i + 1}/${count}`);
    if (missing.length > 0) {
      throw new ConfigurationError(`merge: incomplete; missing shard(s) ${missing.join(", ")}`);
    }
    const samples: SampleResult[] = new Array(size);
    for (const [index, s] of byIndex) {
      for (let j = 0; j < s.samples.length; j++)
        samples[j * count + index] = s.samples[j] as SampleResult;
    }
    let createdAt = first.createdAt;
    let durationS = 0;
    for (const s of shards) {
      if (s.createdAt < createdAt) createdAt = s.createdAt;
      durationS = Math.max(durationS, s.durationS);
    }
    return new BenchmarkResult({
      name: first.name,
      createdAt,
      durationS,
      samples,
      higherIsBetter: first.higherIsBetter,
      dataset: first.dataset,
    });
  }
}

/**
 * `JSON.stringify`, with its TypeError (a cycle, a BigInt) turned into a ConfigurationError that
 * names the field of `value` that cannot be written (`where` names `value` itself).
 */
function stringifyOrThrow(value: object, path: string, where: string, indent?: number): string {
  try {
    return JSON.stringify(value, null, indent);
  } catch (error) {
    const field = unwritableField(value, where, []) || "the result";
    const reason = String((error as Error)?.message ?? error).split("\n")[0];
    throw new ConfigurationError(
      `${path}: cannot save the result: ${field} cannot be written as JSON (${reason}); results hold plain data only`,
      { cause: error },
    );
  }
}

/**
 * The path of the first value inside `value` that JSON.stringify refuses: where a cycle closes,
 * or the BigInt itself. Only walked after a failure, so its cost never touches a good save.
 */
function unwritableField(value: unknown, where: string, ancestors: object[]): string {
  if (typeof value !== "object" || value === null) return where;
  if (ancestors.includes(value)) return where;
  ancestors.push(value);
  for (const key of Object.keys(value)) {
    const child = (value as Record<string, unknown>)[key];
    try {
      JSON.stringify(child);
    } catch {
      const name = Array.isArray(value)
        ? `${where}[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(key)
          ? `${where}${where === "" ? "" : "."}${key}`
          : `${where}[${JSON.stringify(key)}]`;
      return unwritableField(child, name, ancestors);
    }
  }
  ancestors.pop();
  return where;
}

/** Where the records of a lazily loaded result are, and what the file looked like then. */
interface LazySamples {
  readonly path: string;
  readonly count: number;
  readonly size: number;
  readonly mtimeMs: number;
}

function readLazySamples(lazy: LazySamples): readonly SampleResult[] {
  const { path } = lazy;
  let bytes: Buffer;
  try {
    const st = statSync(path);
    if (st.size !== lazy.size || st.mtimeMs !== lazy.mtimeMs) {
      throw new ConfigurationError(
        `${path}: the file changed after it was loaded with { lazy: true }, so its samples can no longer be read; load it again`,
      );
    }
    bytes = readFileSync(path);
  } catch (error) {
    if (ConfigurationError.isInstance(error)) throw error;
    throw new ConfigurationError(
      `${path}: cannot read the samples of a result loaded with { lazy: true } (${describeIoError(error)})`,
      { cause: error },
    );
  }
  let samples: readonly SampleResult[];
  try {
    samples = BenchmarkResult.parse(decodeUtf8(bytes, path), path).samples;
  } catch (error) {
    if (ConfigurationError.isInstance(error)) throw error;
    throw new ConfigurationError(
      `${path}: cannot read the samples of a result loaded with { lazy: true } (${(error as Error).message})`,
      { cause: error },
    );
  }
  if (samples.length !== lazy.count) {
    throw new ConfigurationError(
      `${path}: the file changed after it was loaded with { lazy: true } (${lazy.count} samples then, ${samples.length} now); load it again`,
    );
  }
  return samples;
}

/**
 * What is wrong with a text that JSON.parse refused: where (line and column, when the engine's
 * message gives the position), and "truncated" only when the text ends too early.
 */
function jsonSyntaxProblem(text: string, error: unknown): string {
  const message = (error as Error).message;
  if (text.trim() === "") return "not valid JSON (the file is empty)";
  const at = /at position (\d+)/.exec(message);
  if (at === null) {
    const truncated = /end of (JSON )?input/i.test(message);
    return `not valid JSON${truncated ? ", truncated" : ""}: ${message}`;
  }
  const offset = Number(at[1]);
  if (offset >= text.trimEnd().length) return `not valid JSON, truncated: ${message}`;
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  const near = JSON.stringify(text.slice(offset, offset + 12));
  // Columns in characters, as editors count them (an emoji is one, not two UTF-16 units).
  const column = [...text.slice(lineStart, offset)].length + 1;
  return `line ${line}, column ${column}: not valid JSON at ${near}: ${message}`;
}

/** Number of samples shard `index` of `count` takes from a dataset of `size` (round-robin). */
export function shardSize(size: number, index: number, count: number): number {
  return index >= size ? 0 : Math.floor((size - 1 - index) / count) + 1;
}

/** The header's status counts must be the samples': a file that says otherwise is not one result. */
function checkStatusCounts(header: StatusCounts, found: StatusCounts, source: string): void {
  for (const k of ["successful", "incomplete", "errored"] as const) {
    if (header[k] !== found[k]) {
      throw new ConfigurationError(
        `${source}: status.${k}: the header counts ${header[k]} but the samples hold ${found[k]} (successful ${found.successful}, incomplete ${found.incomplete}, errored ${found.errored})`,
      );
    }
  }
}

/**
 * The header's summary must be the samples': a summary left stale after scores were edited would
 * show one number in tables while the paired tests, which read the scores, show another. Count,
 * min and max must match exactly; the mean to 1e-9 of the largest score's magnitude (another
 * implementation may sum in another order). With count 0 every statistic must be null; with a
 * count, mean, min and max must be numbers. Std and percentiles, whose definitions differ between
 * tools, are not compared.
 */
function checkSummary(
  summary: Readonly<Record<string, DistributionSummary>>,
  metrics: readonly string[],
  column: (metric: string) => ArrayLike<number>,
  source: string,
): void {
  for (const m of Object.keys(summary)) checkMetricSummary(summary[m] as DistributionSummary, m);
  function checkMetricSummary(s: DistributionSummary, m: string): void {
    const values = column(m);
    let count = 0;
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < values.length; i++) {
      const v = values[i] as number;
      if (Number.isNaN(v)) continue;
      count++;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    // Summed in units of the largest magnitude, so that huge scores cannot overflow.
    const size = Math.max(Math.abs(min), Math.abs(max));
    let scaled = 0;
    if (size > 0) {
      for (let i = 0; i < values.length; i++) {
        const v = values[i] as number;
        if (!Number.isNaN(v)) scaled += v / size;
      }
    }
    const where = `${source}: summary["${m}"]`;
    const stale = (what: string) =>
      new ConfigurationError(
        `${where}.${what} does not match the samples' scores; was the file edited after it was saved? (BenchmarkResult recomputes summaries: merge or re-save it from its samples)`,
      );
    if (s.count !== count) {
      throw new ConfigurationError(
        `${where}.count is ${s.count}, but ${count} samples have a score for it; was the file edited after it was saved?`,
      );
    }
    if (count === 0) {
      // Nothing scored it: a number here (a 0 mean) would be a failure shown as a score.
      for (const stat of SUMMARY_STATS) {
        const v = s[stat];
        if (stat !== "count" && v !== null) {
          throw new ConfigurationError(
            `${where}.${stat} is ${v}, but its count is 0: a metric that no sample scored has null statistics, never numbers; was the file edited after it was saved?`,
          );
        }
      }
      return;
    }
    for (const stat of ["mean", "min", "max"] as const) {
      if (s[stat] === null) {
        throw new ConfigurationError(
          `${where}.${stat} is null, but ${count} ${count === 1 ? "sample has" : "samples have"} a score for it: expected their ${stat}; was the file edited after it was saved?`,
        );
      }
    }
    if (s.min !== min) throw stale(`min (${s.min}, the scores' ${min})`);
    if (s.max !== max) throw stale(`max (${s.max}, the scores' ${max})`);
    const mean = (scaled / count) * size;
    // Relative to the scores' size, not the mean's: scores that cancel out leave a mean whose
    // rounding depends on the summation order. Relative to it alone: an absolute floor would let a
    // stale mean of small scores (1e-6) pass. MIN_VALUE covers subnormal scores, whose mean
    // another tool may round to the neighbouring subnormal.
    if (!(Math.abs((s.mean as number) - mean) <= Math.max(1e-9 * size, 4 * Number.MIN_VALUE))) {
      throw stale(`mean (${s.mean}, the scores' ${mean})`);
    }
  }
  // A metric with a direction but no summary entry: fine when nothing scored it, else the tables
  // would print "—" for real scores.
  for (const m of metrics) {
    if (Object.hasOwn(summary, m)) continue;
    const values = column(m);
    for (let i = 0; i < values.length; i++) {
      if (!Number.isNaN(values[i] as number)) {
        throw new ConfigurationError(
          `${source}: summary has no entry for "${m}", but samples score it (sample ${i + 1}); was the file edited after it was saved?`,
        );
      }
    }
  }
}

/** One metric's scores as a column, NaN where a sample has none. */
function scoreColumnOfSamples(samples: readonly SampleResult[], metric: string): Float64Array {
  const column = new Float64Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const scores = (samples[i] as SampleResult).scores;
    const v = Object.hasOwn(scores, metric) ? scores[metric] : null;
    column[i] = v === null || v === undefined ? Number.NaN : v;
  }
  return column;
}

/** Counts samples per status. */
export function countStatuses(samples: readonly SampleResult[]): StatusCounts {
  let successful = 0;
  let errored = 0;
  let incomplete = 0;
  for (const s of samples) {
    if (s.status === "successful") successful++;
    else if (s.status === "errored") errored++;
    else incomplete++;
  }
  return { successful, errored, incomplete };
}

/** Summarizes every metric over the samples' non-null scores. */
export function summarizeSamples(
  metrics: readonly string[],
  samples: readonly SampleResult[],
): Record<string, DistributionSummary> {
  const summary: Record<string, DistributionSummary> = {};
  for (const m of metrics) {
    const column = new Float64Array(samples.length);
    let n = 0;
    for (let i = 0; i < samples.length; i++) {
      const scores = (samples[i] as SampleResult).scores;
      if (!Object.hasOwn(scores, m)) continue;
      const v = scores[m];
      if (v !== null && v !== undefined) column[n++] = v;
    }
    setOwn(summary, m, summarizeValues(column.subarray(0, n)));
  }
  return summary;
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
}

/** The on-disk shape of a result (snake_case). */
export interface ResultFile {
  format: string;
  name: string;
  created_at: string;
  duration_s: number;
  status: StatusCounts;
  summary: Record<string, DistributionSummary>;
  higher_is_better: Record<string, boolean>;
  dataset?: DatasetInfo;
  shard?: ShardSpec;
  samples: SampleFile[];
}

/** The on-disk shape of one sample (snake_case). */
export interface SampleFile {
  sample_id?: string;
  question: string;
  status: SampleStatus;
  scores: Record<string, number | null>;
  answer: string | null;
  retrieved_ids: string[];
  retrieved_uris: (string | null)[];
  latency_ms: number | null;
  error: string | null;
  attempts?: number;
}

function headerOf(r: BenchmarkResult): Omit<ResultFile, "samples"> {
  const out: Omit<ResultFile, "samples"> = {
    format: RESULT_FORMAT,
    name: r.name,
    created_at: r.createdAt.toISOString(),
    duration_s: r.durationS,
    status: {
      successful: r.status.successful,
      errored: r.status.errored,
      incomplete: r.status.incomplete,
    },
    summary: { ...r.summary },
    higher_is_better: { ...r.higherIsBetter },
  };
  if (r.dataset) out.dataset = { fingerprint: r.dataset.fingerprint, size: r.dataset.size };
  if (r.shard) out.shard = { index: r.shard.index, count: r.shard.count };
  return out;
}

/** Converts a sample record to its snake_case file shape. */
export function sampleToJson(s: SampleResult): SampleFile {
  const out: SampleFile = {
    question: s.question,
    status: s.status,
    scores: s.scores as Record<string, number | null>,
    answer: s.answer,
    retrieved_ids: s.retrievedIds as string[],
    retrieved_uris: s.retrievedUris as (string | null)[],
    latency_ms: s.latencyMs,
    error: s.error,
  };
  if (s.sampleId !== undefined) return { sample_id: s.sampleId, ...out, ...attemptsOf(s) };
  return { ...out, ...attemptsOf(s) };
}

function attemptsOf(s: SampleResult): { attempts?: number } {
  return s.attempts === undefined ? {} : { attempts: s.attempts };
}

function parseHeader(data: unknown, source: string): Omit<BenchmarkResultInit, "samples"> {
  const obj = expectObject(data, source, "the top level");
  if (!("format" in obj) && !("samples" in obj)) {
    throw new ConfigurationError(
      `${source}: not a fastrag bench result: expected an object with "format" and "samples", found keys ${describeKeys(obj)}`,
    );
  }
  const format = expectString(obj.format, source, "format");
  const m = FORMAT_RE.exec(format);
  if (!m) {
    throw new ConfigurationError(
      `${source}: not a fastrag bench result: format is "${format}", expected "${RESULT_FORMAT}"`,
    );
  }
  if (m[1] !== "1") {
    throw new ConfigurationError(
      `${source}: result format "${format}" is not supported by this version, which reads "${RESULT_FORMAT}"; upgrade @fastrag/bench-core`,
    );
  }
  const name = expectString(obj.name, source, "name");
  const createdAt = parseCreatedAt(expectString(obj.created_at, source, "created_at"), source);
  const durationS = expectFiniteOrNull(obj.duration_s, source, "duration_s");
  if (durationS === null || durationS < 0) {
    throw new ConfigurationError(
      `${source}: duration_s: expected a non-negative number, found ${describe(obj.duration_s)}`,
    );
  }
  const statusObj = expectObject(obj.status, source, "status");
  const status: StatusCounts = {
    successful: expectNonNegativeInt(statusObj.successful, source, "status.successful"),
    errored: expectNonNegativeInt(statusObj.errored, source, "status.errored"),
    incomplete: expectNonNegativeInt(statusObj.incomplete, source, "status.incomplete"),
  };
  const hib = expectObject(obj.higher_is_better, source, "higher_is_better");
  const higherIsBetter: Record<string, boolean> = {};
  for (const key of Object.keys(hib)) {
    setOwn(higherIsBetter, key, expectBoolean(hib[key], source, `higher_is_better["${key}"]`));
  }
  const summaryObj = expectObject(obj.summary, source, "summary");
  const summary: Record<string, DistributionSummary> = {};
  for (const key of Object.keys(summaryObj)) {
    setOwn(summary, key, parseSummary(summaryObj[key], source, `summary["${key}"]`));
    if (!Object.hasOwn(higherIsBetter, key)) {
      throw new ConfigurationError(
        `${source}: summary has metric "${key}" but higher_is_better does not say its direction`,
      );
    }
  }
  const out: {
    -readonly [K in keyof Omit<BenchmarkResultInit, "samples">]: Omit<
      BenchmarkResultInit,
      "samples"
    >[K];
  } = {
    name,
    createdAt,
    durationS,
    status,
    summary,
    higherIsBetter,
  };
  if (obj.dataset !== undefined && obj.dataset !== null) {
    const d = expectObject(obj.dataset, source, "dataset");
    out.dataset = {
      fingerprint: expectString(d.fingerprint, source, "dataset.fingerprint"),
      size: expectNonNegativeInt(d.size, source, "dataset.size"),
    };
  }
  if (obj.shard !== undefined && obj.shard !== null) {
    const s = expectObject(obj.shard, source, "shard");
    const index = expectNonNegativeInt(s.index, source, "shard.index");
    const count = expectNonNegativeInt(s.count, source, "shard.count");
    if (count < 1 || index >= count) {
      throw new ConfigurationError(
        `${source}: shard: expected 0 ≤ index < count, found index ${index}, count ${count}`,
      );
    }
    out.shard = { index, count };
  }
  return out;
}

const ISO_DATE_RE =
  /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?([Zz]|[+-]\d{2}(?::?\d{2}(?::\d{2}(?:\.\d+)?)?)?)?)?$/;
/** A zone offset: `+01`, `+0100`, `+01:00`, or with seconds as Python writes them (`+00:19:32`). */
const ZONE_RE = /^([+-])(\d{2})(?::?(\d{2})(?::(\d{2})(\.\d+)?)?)?$/;
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/**
 * Reads `created_at` as ISO-8601 (RFC 3339), strictly, so that a file means the same instant on
 * every machine: `new Date(text)` reads a date-time without a zone as the reading machine's local
 * time, rolls impossible dates over (February 31 → March 3) and accepts free text ("Jan 1 2026").
 *
 * - With a zone (`Z`, `+01:00`, `+0100`, `+01`, or with seconds, `+00:19:32`, as Python writes
 *   a local-mean-time offset): that instant. `save` writes `toISOString()`
 *   (`Z`, and `±YYYYYY` years beyond 0000–9999); Python's `isoformat()` of an aware datetime
 *   writes `+00:00` and microseconds, read to the millisecond.
 * - Without a zone (`2026-01-01T10:00:00`, as Python's `isoformat()` writes a naive datetime, or
 *   with a space, as `str(datetime)` does): read as UTC. The writer's zone is unknown; UTC is what
 *   `datetime.utcnow()` meant, and the same instant on every machine.
 * - A date alone (`2026-01-01`): midnight UTC, as ECMAScript reads it.
 *
 * The time may stop after the hour (`2026-01-02T03+00:00`, Python's `isoformat(timespec="hours")`)
 * or the minute. Every field must exist as written: month 01–12, a day the month has, hour 00–23, minute and
 * second 00–59.
 */
function parseCreatedAt(raw: string, source: string): Date {
  const bad = (why: string) =>
    new ConfigurationError(
      `${source}: created_at: expected an ISO-8601 date, found ${JSON.stringify(shortText(raw, 60))}${why}`,
    );
  const m = ISO_DATE_RE.exec(raw);
  if (m === null || m[1] === "-000000") throw bad("");
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = m[4] === undefined ? 0 : Number(m[4]);
  const minute = m[5] === undefined ? 0 : Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, "0"));
  if (month < 1 || month > 12) throw bad(`, whose month ${m[2]} does not exist (01–12)`);
  const days = daysInMonth(year, month);
  if (day < 1 || day > days) {
    throw bad(`, whose day ${m[3]} does not exist (${MONTHS[month - 1]} ${year} has ${days} days)`);
  }
  if (hour > 23) throw bad(`, whose hour ${m[4]} does not exist (00–23)`);
  if (minute > 59) throw bad(`, whose minute ${m[5]} does not exist (00–59)`);
  if (second > 59) throw bad(`, whose second ${m[6]} does not exist (00–59)`);
  let offsetMs = 0;
  const zone = m[8];
  if (zone !== undefined && zone !== "Z" && zone !== "z") {
    const z = ZONE_RE.exec(zone);
    const oh = Number(z?.[2]);
    const om = z?.[3] === undefined ? 0 : Number(z[3]);
    const os = z?.[4] === undefined ? 0 : Number(z[4]);
    if (z === null || oh > 23 || om > 59 || os > 59)
      throw bad(`, whose zone offset ${zone} does not exist`);
    const fraction = z[5] === undefined ? 0 : Number(z[5]);
    offsetMs = (z[1] === "-" ? -1 : 1) * Math.round((oh * 3600 + om * 60 + os + fraction) * 1000);
  }
  // setUTCFullYear, not Date.UTC, which reads the years 0–99 as 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms - offsetMs);
  if (Number.isNaN(date.getTime())) throw bad(", which is outside the range of dates");
  return date;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function parseSummary(value: unknown, source: string, where: string): DistributionSummary {
  const o = expectObject(value, source, where);
  const out: Record<string, number | null> = {};
  for (const stat of SUMMARY_STATS) {
    const v = o[stat];
    out[stat] =
      stat === "count"
        ? expectNonNegativeInt(v, source, `${where}.count`)
        : expectFiniteOrNull(v ?? null, source, `${where}.${stat}`);
  }
  return out as unknown as DistributionSummary;
}

/**
 * Validates one sample of a result file (or a journal line). `question`, `status`, `scores` and
 * `retrieved_ids` are required: without them a record says nothing about its sample. The
 * auxiliary fields `answer`, `latency_ms` and `error` read as `null` when absent, and
 * `retrieved_uris` (absent or `null`) as one `null` per retrieved id (every version of `save` writes them all, but a
 * file made by another tool may leave out what it did not record); `sample_id` and `attempts` are
 * optional. @internal
 */
export function parseSampleJson(value: unknown, source: string, where: string): SampleResult {
  const o = expectObject(value, source, where);
  const status = expectString(o.status, source, `${where}.status`);
  if (!STATUSES.has(status)) {
    throw new ConfigurationError(
      `${source}: ${where}.status: expected "successful", "incomplete" or "errored", found "${status}"`,
    );
  }
  const scoresObj = expectObject(
    present(o, "scores", "an object of metric → score", source, where),
    source,
    `${where}.scores`,
  );
  const scores: Record<string, number | null> = {};
  for (const key in scoresObj) {
    if (!Object.hasOwn(scoresObj, key)) continue;
    const v = scoresObj[key];
    if (status === "errored" && v !== null) {
      throw new ConfigurationError(
        `${source}: ${where}.scores["${key}"]: an errored sample has no scores (every one is null: a failure is never scored), found ${describe(v)}`,
      );
    }
    setOwn(
      scores,
      key,
      v === null || (typeof v === "number" && Number.isFinite(v))
        ? v
        : expectFiniteOrNull(v, source, `${where}.scores["${key}"]`),
    );
  }
  const ids = expectArray(
    present(o, "retrieved_ids", "an array of strings", source, where),
    source,
    `${where}.retrieved_ids`,
  );
  const retrievedIds: string[] = new Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    retrievedIds[i] =
      typeof id === "string" ? id : expectString(id, source, `${where}.retrieved_ids[${i}]`);
  }
  const uris =
    o.retrieved_uris === undefined || o.retrieved_uris === null
      ? new Array<null>(ids.length).fill(null)
      : expectArray(o.retrieved_uris, source, `${where}.retrieved_uris`);
  if (uris.length !== ids.length) {
    throw new ConfigurationError(
      `${source}: ${where}.retrieved_uris: expected one entry per retrieved id (${ids.length}, null where a chunk has no uri), found ${uris.length}`,
    );
  }
  const retrievedUris: (string | null)[] = new Array(uris.length);
  for (let i = 0; i < uris.length; i++) {
    const u = uris[i];
    retrievedUris[i] =
      u === null || typeof u === "string"
        ? u
        : expectStringOrNull(u, source, `${where}.retrieved_uris[${i}]`);
  }
  const sample: {
    -readonly [K in keyof SampleResult]: SampleResult[K];
  } = {
    question: expectString(o.question, source, `${where}.question`),
    status: status as SampleStatus,
    scores,
    answer: expectStringOrNull(o.answer ?? null, source, `${where}.answer`),
    retrievedIds,
    retrievedUris,
    latencyMs: expectFiniteOrNull(o.latency_ms ?? null, source, `${where}.latency_ms`),
    error: expectStringOrNull(o.error ?? null, source, `${where}.error`),
  };
  if (o.sample_id !== undefined && o.sample_id !== null) {
    sample.sampleId =
      typeof o.sample_id === "number"
        ? String(o.sample_id)
        : expectString(o.sample_id, source, `${where}.sample_id`);
  }
  if (o.attempts !== undefined)
    sample.attempts = expectNonNegativeInt(o.attempts, source, `${where}.attempts`);
  return sample;
}

/** A sample field the format requires: its value, or a ConfigurationError saying it is missing. */
function present(
  o: Record<string, unknown>,
  key: string,
  expected: string,
  source: string,
  where: string,
): unknown {
  const v = o[key];
  if (v === undefined) {
    throw new ConfigurationError(`${source}: ${where}.${key}: missing, expected ${expected}`);
  }
  return v;
}

function describeKeys(obj: Record<string, unknown>): string {
  const keys = Object.keys(obj);
  return keys.length === 0
    ? "(none)"
    : keys
        .slice(0, 8)
        .map((k) => JSON.stringify(k))
        .join(", ");
}

function describeIoError(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === "ENOENT") return "no such file";
  if (code === "EISDIR") return "it is a directory";
  return (error as Error).message;
}

/**
 * Reads a file in the layout `save` writes (header, then one sample per line) without holding the
 * whole text. Returns undefined when the file is in another layout.
 */
async function loadStreaming(path: string): Promise<BenchmarkResult | undefined> {
  const lines = createInterface({
    input: createReadStream(path, "utf8"),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let headerText = "";
  let inSamples = false;
  let header: Omit<BenchmarkResultInit, "samples"> | undefined;
  const samples: SampleResult[] = [];
  let lineNo = 0;
  let closed = false;
  try {
    for await (const raw of lines) {
      lineNo++;
      if (!inSamples) {
        if (raw === ' "samples": [') {
          inSamples = true;
          header = parseHeader(JSON.parse(`${headerText.replace(/,\s*$/, "")}}`), path);
          continue;
        }
        headerText += raw;
        if (headerText.length > 64 * 1024 * 1024) return undefined;
        continue;
      }
      if (raw === "]}") {
        closed = true;
        break;
      }
      const text = raw.endsWith(",") ? raw.slice(0, -1) : raw;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        throw new ConfigurationError(
          `${path}:${lineNo}: not valid JSON, perhaps truncated: ${(error as Error).message}`,
          {
            cause: error,
          },
        );
      }
      samples.push(parseSampleJson(parsed, path, `samples[${samples.length}] (line ${lineNo})`));
    }
  } catch (error) {
    if (ConfigurationError.isInstance(error)) throw error;
    return undefined;
  } finally {
    lines.close();
  }
  if (!header) return undefined;
  if (!closed)
    throw new ConfigurationError(
      `${path}: truncated: the samples array never closes (read ${lineNo} lines)`,
    );
  checkStatusCounts(header.status as StatusCounts, countStatuses(samples), path);
  checkSummary(
    header.summary ?? {},
    Object.keys(header.higherIsBetter),
    (m) => scoreColumnOfSamples(samples, m),
    path,
  );
  return new BenchmarkResult({ ...header, samples });
}
