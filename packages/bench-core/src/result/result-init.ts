// What a BenchmarkResult is made of (`BenchmarkResultInit` and the records it points to: shard,
// dataset, provenance, rate limit), what it holds as the modules reading one see it
// (`ResultData`), and the check of an init a caller builds by hand.

import { describeValue } from "../describe-value.js";
import { ConfigurationError } from "../errors.js";
import type {
  DistributionSummary,
  JudgeUsage,
  SampleResult,
  StatusCounts,
  Usage,
} from "../types.js";
import { expectProvenance, type Provenance } from "./provenance.js";

export type { Provenance } from "./provenance.js";

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

/** Options of `BenchmarkResult.load`. */
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

/** Everything a `BenchmarkResult` holds. */
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
 * What a result holds, as the modules that read one (save, merge, rescore) see it: the fields of
 * a `BenchmarkResult`, without its methods. Those modules take this rather than the class, so
 * that none of them imports the class that imports them.
 */
export interface ResultData {
  readonly name: string;
  readonly createdAt: Date;
  readonly durationS: number;
  readonly status: StatusCounts;
  readonly summary: Readonly<Record<string, DistributionSummary>>;
  readonly higherIsBetter: Readonly<Record<string, boolean>>;
  /** Metric names, in the run's order. */
  readonly metrics: readonly string[];
  readonly dataset: DatasetInfo | undefined;
  readonly shard: ResultShard | undefined;
  readonly keepChunkText: boolean;
  readonly provenance: Provenance | undefined;
  readonly usage: Usage | undefined;
  readonly judgeUsage: JudgeUsage | undefined;
  readonly rateLimit: RateLimitRecord | undefined;
  /** Trials per sample; 1 without trials. */
  readonly trials: number;
  readonly samples: readonly SampleResult[];
}

/** Checks an init built by hand. @throws {ConfigurationError} naming the field. */
export function expectInit(init: BenchmarkResultInit): void {
  const i = init as Partial<Record<keyof BenchmarkResultInit, unknown>> | null;
  const bad = (field: string, expected: string, found: unknown) =>
    new ConfigurationError(
      `BenchmarkResult: ${field} must be ${expected}, found ${describeValue(found)}`,
      { kind: "invalid-option", ...(field === "the init" ? {} : { option: field }) },
    );
  if (typeof i !== "object" || i === null) throw bad("the init", "an object", i);
  if (typeof i.name !== "string") throw bad("name", "a string", i.name);
  if (!(i.createdAt instanceof Date)) throw bad("createdAt", "a Date", i.createdAt);
  // An Invalid Date would make save() throw a RangeError (toISOString), and a NaN or negative
  // duration would be saved as a file that load() refuses.
  if (Number.isNaN(i.createdAt.getTime())) {
    throw new ConfigurationError(
      "BenchmarkResult: createdAt must be a valid Date, found an Invalid Date",
      { kind: "invalid-option", option: "createdAt" },
    );
  }
  if (typeof i.durationS !== "number" || !Number.isFinite(i.durationS) || i.durationS < 0)
    throw bad("durationS", "a non-negative number of seconds", i.durationS);
  if (!Array.isArray(i.samples)) throw bad("samples", "an array", i.samples);
  if (typeof i.higherIsBetter !== "object" || i.higherIsBetter === null)
    throw bad("higherIsBetter", "an object of metric → boolean", i.higherIsBetter);
  if (i.provenance !== undefined) expectProvenance(i.provenance, "BenchmarkResult: provenance");
  if (i.trials !== undefined && !(Number.isSafeInteger(i.trials) && (i.trials as number) >= 1))
    throw bad("trials", "a positive integer", i.trials);
}
