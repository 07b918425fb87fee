// The Benchmark: a dataset and its metrics, checked once, and `run`, the story of one run. Each
// stage of a run is a module of runner/ and the result's modules are under result/;
// docs/architecture.md ("Core in detail") maps them.
import {
  BenchmarkResult,
  type DatasetInfo,
  type ResultShard,
  type ShardSpec,
} from "./benchmark-result.js";
import { describeValue } from "./describe-value.js";
import { errorMessage } from "./error-message.js";
import { ConfigurationError } from "./errors.js";
import { fingerprintSamples, fingerprintShard } from "./internal/fingerprint.js";
import type { JournalHeader } from "./internal/journal.js";
import { setOwn } from "./internal/validate.js";
import { JournalWriteError, RunAbortedError } from "./run-errors.js";
import { expectMetrics, expectMetricsCanScore } from "./runner/check-metrics.js";
import { detectTarget, expectTargetServesMetrics, type TargetKind } from "./runner/check-output.js";
import { expectDataset } from "./runner/check-sample.js";
import {
  claimJournal,
  closeJournal,
  JournalSink,
  releaseJournal,
  resumeJournal,
  unjournaledNote,
  warningHandler,
} from "./runner/checkpoint.js";
import { journaledWords } from "./runner/journaled-count.js";
import { MetricCutter } from "./runner/metric-cutter.js";
import { ProgressCounter } from "./runner/progress.js";
import { expectRateLimit, type RateLimitOptions } from "./runner/rate-limit-options.js";
import { RunLimiter } from "./runner/rate-limiter.js";
import { runLoop } from "./runner/run-loop.js";
import { expectRunOptions, expectTrials, type RunOptions } from "./runner/run-options.js";
import type { SampleContext } from "./runner/sample-context.js";
import { expectCacheKey } from "./runner/target-cache.js";
import { runTrialsLoop } from "./runner/trials.js";
import type { DatasetLike, EvalSample, Metadata, Metric, SampleResult, Target } from "./types.js";

/** Options of `new Benchmark(...)`. */
export interface BenchmarkOptions<M extends Metadata = Metadata> {
  readonly dataset: DatasetLike<M>;
  readonly metrics: readonly Metric<M>[];
  /** Samples in flight at once (with `rateLimit.adaptive`, the most). A positive integer; default 4. */
  readonly maxConcurrent?: number;
  /**
   * Run as fast as the provider allows, and no faster: budgets of requests and tokens per minute
   * shared by every call of a run, concurrency that adapts to rate-limit errors, and rate-limited
   * calls waited out and run again instead of failing. See {@link RateLimitOptions}.
   *
   * @example
   * ```ts
   * new Benchmark({ dataset, metrics, maxConcurrent: 64, rateLimit: { adaptive: true, requestsPerMinute: 500 } });
   * ```
   */
  readonly rateLimit?: RateLimitOptions;
  /**
   * Runs of every sample, each an independent call (default 1); a run's own `trials` option
   * overrides it. See `RunOptions.trials`.
   */
  readonly trials?: number;
}

/**
 * Runs every sample of a dataset through a pipeline and scores it.
 *
 * @example
 * ```ts
 * const benchmark = new Benchmark({
 *   dataset: await QADataset.load("eval.json"),
 *   metrics: [new Recall({ k: 5 }), new NDCG({ k: 5 }), new Latency()],
 *   maxConcurrent: 4,
 * });
 * const result = await benchmark.run(engine, { name: "recursive-500" });
 * await result.save("results/recursive-500.json");
 * ```
 */
export class Benchmark<M extends Metadata = Metadata> {
  readonly samples: readonly EvalSample<M>[];
  readonly metrics: readonly Metric<M>[];
  readonly maxConcurrent: number;
  readonly rateLimit: RateLimitOptions | undefined;
  /** Trials per sample of a run that does not say (`BenchmarkOptions.trials`, default 1). */
  readonly trials: number;
  private fingerprintCache: string | undefined;
  // Each sample's question and id as validated here: what records and journals keep, and what a
  // resume checks a journal against, even after a target edited the sample objects in place.
  private readonly questions: readonly string[];
  private readonly ids: readonly (string | undefined)[];

  /**
   * @throws {ConfigurationError} for an empty or malformed dataset, an empty metric list, two
   * metrics with one name, a `maxConcurrent` that is not a positive integer, or when no metric
   * can score this dataset (every metric needs relevant ids and no sample has any), or a
   * malformed `rateLimit`.
   */
  constructor(options: BenchmarkOptions<M>) {
    if (typeof options !== "object" || options === null) {
      throw new ConfigurationError(
        "Benchmark: expected options { dataset, metrics, maxConcurrent? }",
        { kind: "invalid-option" },
      );
    }
    const { dataset, metrics, maxConcurrent = 4, rateLimit, trials = 1 } = options;
    const samples = Array.isArray(dataset)
      ? (dataset as readonly EvalSample<M>[])
      : (dataset as { samples?: readonly EvalSample<M>[] } | undefined)?.samples;
    if (!Array.isArray(samples)) {
      throw new ConfigurationError(
        "Benchmark: dataset must be an array of samples or an object with `samples` (e.g. a QADataset)",
        { kind: "invalid-option", option: "dataset" },
      );
    }
    const { questions, ids: sampleIds } = expectDataset(samples);
    expectMetrics(metrics);
    if (!Number.isSafeInteger(maxConcurrent) || maxConcurrent < 1) {
      throw new ConfigurationError(
        `Benchmark: maxConcurrent must be a positive integer, found ${describeValue(maxConcurrent)}`,
        { kind: "invalid-option", option: "maxConcurrent" },
      );
    }
    expectRateLimit(rateLimit);
    expectTrials(trials, "Benchmark");
    expectMetricsCanScore(metrics, samples);
    this.samples = samples;
    this.questions = questions;
    this.ids = sampleIds;
    this.metrics = metrics;
    this.maxConcurrent = maxConcurrent;
    this.rateLimit = rateLimit;
    this.trials = trials;
  }

  /** The dataset's fingerprint, as recorded in results and journals. */
  get fingerprint(): string {
    this.fingerprintCache ??= fingerprintSamples(this.samples);
    return this.fingerprintCache;
  }

  /**
   * Runs every sample (or the shard's slice) through `target` and scores it.
   *
   * A sample whose pipeline throws, rejects, times out or returns malformed output is `errored`,
   * with every score `null`: a failure is never scored as zero. A sample where a metric returns
   * `null` or throws is `incomplete`. Results come back in dataset order.
   *
   * @throws {ConfigurationError} before any sample runs, for an unusable target, bad options, a
   * bare Retriever with a metric that needs an answer, or a checkpoint journal of another run.
   * @throws {RunAbortedError} when `signal` aborts, or `stop` aborts before every sample ran; its
   * `partial` holds the finished samples.
   */
  async run(target: Target<M>, options: RunOptions): Promise<BenchmarkResult> {
    const kind = detectTarget(target);
    expectRunOptions(options);
    expectTargetServesMetrics(kind, this.metrics, options.name);
    // Before the journal is opened: a refusal must leave no descriptor open and no file behind.
    expectCacheKey(target.cacheKey, options.cache !== undefined);
    // Two runs of this process on one journal would both run the samples it lacks, each
    // appending its own lines: the second is refused before it reads the journal. (Across
    // processes, the CLI's lock does this; see the README.)
    const claimed = options.checkpoint === undefined ? undefined : claimJournal(options);
    try {
      return await this.runWithJournalClaimed(target, kind, options);
    } finally {
      if (claimed !== undefined) releaseJournal(claimed);
    }
  }

  /** The shard as its result records it, with the fingerprint of its slice's samples. */
  private resultShard(shard: ShardSpec, positions: readonly number[]): ResultShard {
    const { ids, questions } = this;
    const samplesFingerprint = fingerprintShard(
      shard.index,
      shard.count,
      positions.length,
      (j) => ids[positions[j] as number],
      (j) => questions[positions[j] as number] as string,
    );
    return { index: shard.index, count: shard.count, samplesFingerprint };
  }

  /**
   * {@link Benchmark.run} once its checkpoint journal, if any, is this run's alone: the journal
   * resumed, the samples it lacks run, the result made, and the run's failure, if any, thrown.
   */
  private async runWithJournalClaimed(
    target: Target<M>,
    kind: TargetKind,
    options: RunOptions,
  ): Promise<BenchmarkResult> {
    const started = Date.now();
    const t0 = performance.now();
    const trials = options.trials ?? this.trials;
    const positions = runPositions(this.samples.length, options.shard);
    // Finished samples by dataset position: from the journal first, then as the run finishes them.
    const slots: (SampleResult | undefined)[] = new Array(this.samples.length);
    const resumed =
      options.checkpoint === undefined
        ? undefined
        : await this.resume(options.checkpoint, options, trials, slots);
    const journal = resumed?.sink;
    // One limiter per run: its buckets and concurrency are this run's, shared by all its calls.
    const limiter =
      this.rateLimit === undefined ? undefined : new RunLimiter(this.rateLimit, this.maxConcurrent);
    const ctx = this.sampleContext(target, kind, options, limiter);
    const progress = new ProgressCounter(options.onProgress, positions, slots, limiter);
    try {
      await this.runSamples(ctx, {
        todo: positions.filter((i) => slots[i] === undefined),
        trials,
        trialsDone: resumed?.trials,
        slots,
        journal,
        progress,
      });
    } finally {
      ctx.cutter?.dispose();
      await closeJournal(journal?.writer);
    }
    const result = this.resultOf(options, {
      createdAt: new Date(started),
      durationS: (performance.now() - t0) / 1000,
      samples: inOrder(positions, slots),
      positions,
      limiter,
      trials,
    });
    if (journal?.failure !== undefined) {
      throw journalWriteError(journal, {
        path: options.checkpoint as string,
        result,
        samplesInRun: positions.length,
        withTrials: trials > 1,
        unjournaledSamples: journal.unjournaledSamples(slots, trials > 1),
      });
    }
    const { signal, stop } = options;
    if (signal?.aborted || (stop?.aborted && result.samples.length < positions.length)) {
      throw new RunAbortedError(
        `Benchmark.run("${options.name}") was ${signal?.aborted ? "aborted" : "stopped"} after ${result.samples.length} of ${positions.length} samples${options.checkpoint ? `; re-run with the same checkpoint to finish` : ""}`,
        result,
        { cause: signal?.aborted ? signal.reason : stop?.reason },
      );
    }
    return result;
  }

  /**
   * Reads the run's checkpoint journal (refusing one of another run), puts the samples it holds
   * into `slots`, and opens it for appending; with trials, the trials it holds of the others.
   */
  private async resume(
    checkpoint: string,
    options: RunOptions,
    trials: number,
    slots: (SampleResult | undefined)[],
  ): Promise<{ sink: JournalSink; trials: Map<number, (SampleResult | undefined)[]> }> {
    const { name, shard } = options;
    const header: JournalHeader = {
      name,
      fingerprint: this.fingerprint,
      size: this.samples.length,
      metrics: this.metrics.map((m) => m.name),
      shard: shard ? { index: shard.index, count: shard.count } : null,
      ...(trials > 1 ? { trials } : {}),
    };
    const warn = warningHandler(options.onWarning);
    const resumed = await resumeJournal({
      checkpoint,
      header,
      questions: this.questions,
      ids: this.ids,
      retryErrored: options.retryErrored === true,
      slots,
      warn,
    });
    const sink = new JournalSink(
      resumed.writer,
      resumed.kept,
      options.continueWithoutJournal === true,
      warn,
    );
    return { sink, trials: resumed.trials };
  }

  /** What every stage of the run's samples reads (see {@link SampleContext}). */
  private sampleContext(
    target: Target<M>,
    kind: TargetKind,
    options: RunOptions,
    limiter: RunLimiter | undefined,
  ): SampleContext<M> {
    const { name, signal, timeoutMs, retries, cache } = options;
    return {
      samples: this.samples,
      questions: this.questions,
      ids: this.ids,
      target,
      kind,
      metrics: this.metrics,
      timeoutMs,
      retries,
      signal,
      stop: options.stop,
      cutter: signal === undefined ? undefined : new MetricCutter(signal),
      keepChunkText: options.keepChunkText === true,
      limiter,
      direct:
        timeoutMs === undefined &&
        signal === undefined &&
        (retries?.attempts ?? 1) === 1 &&
        cache === undefined &&
        limiter === undefined,
      targetCache:
        cache === undefined
          ? undefined
          : { cache, refresh: options.refresh === true, cacheKey: target.cacheKey, runName: name },
      // The judge metrics' steps go through the same store (DESIGN §11): no hand wiring.
      judge: cache === undefined ? undefined : { cache, refresh: options.refresh === true },
    };
  }

  /**
   * Runs the samples of `run.todo` (each trial of them, with trials), putting each finished one
   * into `run.slots`, journaling it (each trial as it finishes) and reporting progress. A line
   * that cannot be journaled stops the run at once (unless the caller goes on without a
   * journal): each further call would be paid for and lost to a crash.
   */
  private async runSamples(
    ctx: SampleContext<M>,
    run: {
      readonly todo: readonly number[];
      readonly trials: number;
      readonly trialsDone: Map<number, (SampleResult | undefined)[]> | undefined;
      readonly slots: (SampleResult | undefined)[];
      readonly journal: JournalSink | undefined;
      readonly progress: ProgressCounter;
    },
  ): Promise<void> {
    const { todo, trials, slots, journal, progress } = run;
    const loop = {
      maxConcurrent: this.maxConcurrent,
      stopWhen: journal === undefined ? undefined : () => journal.stopping,
    };
    if (trials <= 1) {
      await runLoop(ctx, todo, loop, (i, record) => {
        slots[i] = record;
        journal?.append(i, record);
        progress.finished(record);
      });
      return;
    }
    const done = run.trialsDone ?? new Map<number, (SampleResult | undefined)[]>();
    let already = 0;
    for (const list of done.values()) for (const r of list) if (r !== undefined) already++;
    progress.countTrials(trials, already);
    await runTrialsLoop(ctx, { todo, trials, done }, loop, {
      trial: (i, t, record, last) => {
        journal?.append(i, record, t);
        progress.trialFinished(last);
      },
      sample: (i, record) => {
        slots[i] = record;
        progress.finished(record);
      },
    });
  }

  /** The run's result: its finished samples in dataset order, and what the run recorded. */
  private resultOf(
    options: RunOptions,
    run: {
      readonly createdAt: Date;
      readonly durationS: number;
      readonly samples: SampleResult[];
      readonly positions: readonly number[];
      readonly limiter: RunLimiter | undefined;
      readonly trials: number;
    },
  ): BenchmarkResult {
    const { shard, provenance } = options;
    const higherIsBetter: Record<string, boolean> = {};
    for (const m of this.metrics) setOwn(higherIsBetter, m.name, m.higherIsBetter);
    return new BenchmarkResult({
      name: options.name,
      createdAt: run.createdAt,
      durationS: run.durationS,
      samples: run.samples,
      higherIsBetter,
      dataset: lazyDatasetInfo(this, this.samples.length),
      ...(shard ? { shard: this.resultShard(shard, run.positions) } : {}),
      keepChunkText: options.keepChunkText === true,
      ...(provenance ? { provenance } : {}),
      ...(run.limiter ? { rateLimit: run.limiter.record() } : {}),
      ...(run.trials > 1 ? { trials: run.trials } : {}),
    });
  }
}

/** The dataset positions a run covers: all of them, or its shard's, round-robin. */
function runPositions(total: number, shard: ShardSpec | undefined): number[] {
  const positions: number[] = [];
  if (shard) for (let i = shard.index; i < total; i += shard.count) positions.push(i);
  else for (let i = 0; i < total; i++) positions.push(i);
  return positions;
}

/** The finished samples of `positions`, in that order. */
function inOrder(
  positions: readonly number[],
  slots: readonly (SampleResult | undefined)[],
): SampleResult[] {
  const samples: SampleResult[] = [];
  for (const i of positions) {
    const s = slots[i];
    if (s !== undefined) samples.push(s);
  }
  return samples;
}

/**
 * The error of a run stopped by a journal line that could not be written: the counts of what the
 * journal keeps and what it lacks, and the message that words them with the library's advice.
 */
function journalWriteError(
  journal: JournalSink,
  run: {
    readonly path: string;
    readonly result: BenchmarkResult;
    readonly samplesInRun: number;
    readonly withTrials: boolean;
    readonly unjournaledSamples: number;
  },
): JournalWriteError {
  const { path, result, samplesInRun, unjournaledSamples } = run;
  const samplesNotRun = samplesInRun - result.samples.length;
  const journaled = journal.journaled;
  const summary = `${errorMessage(journal.failure)}; the run stopped at once, with ${samplesNotRun} of ${samplesInRun} samples not run. Nothing finished is lost: ${journaledWords(journaled)} are kept in ${path}`;
  const unjournaled = unjournaledNote(unjournaledSamples, run.withTrials);
  return new JournalWriteError({
    message: `${summary}, and a run with the same checkpoint resumes from them${unjournaled}; or pass continueWithoutJournal: true to go on without a journal`,
    path,
    partial: result,
    cause: (journal.failure as { cause?: unknown }).cause ?? journal.failure,
    samplesInRun,
    samplesNotRun,
    journaled,
    unjournaledSamples,
    summary,
    unjournaled,
  });
}

/**
 * The result's dataset identity, with the fingerprint hashed on first read: a run that is never
 * saved or paired (an offline `eval`) skips hashing the whole dataset. Until then the result holds
 * the benchmark; the first read lets it go. (Sample objects edited after the run would be hashed
 * as edited: datasets are treated as immutable, as the benchmark's own cached fingerprint already
 * assumed across runs.)
 */
function lazyDatasetInfo(benchmark: Benchmark, size: number): DatasetInfo {
  let source: Benchmark | undefined = benchmark;
  let fingerprint: string | undefined;
  return {
    get fingerprint(): string {
      if (fingerprint === undefined) {
        fingerprint = (source as Benchmark).fingerprint;
        source = undefined;
      }
      return fingerprint;
    },
    size,
  };
}
