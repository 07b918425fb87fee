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
      );
    }
    const { dataset, metrics, maxConcurrent = 4, rateLimit, trials = 1 } = options;
    const samples = Array.isArray(dataset)
      ? (dataset as readonly EvalSample<M>[])
      : (dataset as { samples?: readonly EvalSample<M>[] } | undefined)?.samples;
    if (!Array.isArray(samples)) {
      throw new ConfigurationError(
        "Benchmark: dataset must be an array of samples or an object with `samples` (e.g. a QADataset)",
      );
    }
    const { questions, ids: sampleIds } = expectDataset(samples);
    expectMetrics(metrics);
    if (!Number.isSafeInteger(maxConcurrent) || maxConcurrent < 1) {
      throw new ConfigurationError(
        `Benchmark: maxConcurrent must be a positive integer, found ${describeValue(maxConcurrent)}`,
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

  /** {@link Benchmark.run} once its checkpoint journal, if any, is this run's alone. */
  private async runWithJournalClaimed(
    target: Target<M>,
    kind: TargetKind,
    options: RunOptions,
  ): Promise<BenchmarkResult> {
    const { name, signal, stop, timeoutMs, retries, onProgress, checkpoint, shard } = options;
    const started = Date.now();
    const t0 = performance.now();
    const total = this.samples.length;
    const trials = options.trials ?? this.trials;

    const positions: number[] = [];
    if (shard) for (let i = shard.index; i < total; i += shard.count) positions.push(i);
    else for (let i = 0; i < total; i++) positions.push(i);

    // Finished samples by dataset position: from the journal first, then as the run finishes them.
    const slots: (SampleResult | undefined)[] = new Array(total);
    let journal: JournalSink | undefined;
    // With trials: the trials a journal already holds, by dataset position.
    let trialsDone = new Map<number, (SampleResult | undefined)[]>();
    const warn = warningHandler(options.onWarning);
    if (checkpoint !== undefined) {
      const header: JournalHeader = {
        name,
        fingerprint: this.fingerprint,
        size: total,
        metrics: this.metrics.map((m) => m.name),
        shard: shard ? { index: shard.index, count: shard.count } : null,
        ...(trials > 1 ? { trials } : {}),
      };
      const {
        writer,
        kept,
        trials: journaled,
      } = await resumeJournal(
        checkpoint,
        header,
        this.questions,
        this.ids,
        options.retryErrored,
        slots,
        warn,
      );
      journal = new JournalSink(writer, kept, options.continueWithoutJournal === true, warn);
      trialsDone = journaled;
    }
    const todo = positions.filter((i) => slots[i] === undefined);
    // One limiter per run: its buckets and concurrency are this run's, shared by all its calls.
    const limiter =
      this.rateLimit === undefined ? undefined : new RunLimiter(this.rateLimit, this.maxConcurrent);
    const progress = new ProgressCounter(onProgress, positions, slots, limiter);
    if (trials > 1) {
      let already = 0;
      for (const list of trialsDone.values()) for (const r of list) if (r !== undefined) already++;
      progress.countTrials(trials, already);
    }

    const ctx: SampleContext<M> = {
      target,
      kind,
      metrics: this.metrics,
      timeoutMs,
      retries,
      signal,
      stop,
      cutter: signal === undefined ? undefined : new MetricCutter(signal),
      keepChunkText: options.keepChunkText === true,
      limiter,
      direct:
        timeoutMs === undefined &&
        signal === undefined &&
        (retries?.attempts ?? 1) === 1 &&
        options.cache === undefined &&
        limiter === undefined,
      targetCache:
        options.cache === undefined
          ? undefined
          : {
              cache: options.cache,
              refresh: options.refresh === true,
              cacheKey: target.cacheKey,
              runName: name,
            },
      // The judge metrics' steps go through the same store (DESIGN §11): no hand wiring.
      judge:
        options.cache === undefined
          ? undefined
          : { cache: options.cache, refresh: options.refresh === true },
    };
    const work = { samples: this.samples, questions: this.questions, ids: this.ids, todo };
    try {
      // A sample whose line cannot be journaled stops the run at once (unless the caller goes
      // on without a journal): each further call would be paid for and lost to a crash.
      const sink = journal;
      const stopWhen = sink === undefined ? undefined : () => sink.stopping;
      if (trials > 1) {
        // Each trial is journaled as it finishes; a sample, once all its trials are, is kept.
        await runTrialsLoop(
          ctx,
          { ...work, trials, done: trialsDone },
          this.maxConcurrent,
          {
            trial: (i, t, record, last) => {
              sink?.append(i, record, t);
              progress.trialFinished(last);
            },
            sample: (i, record) => {
              slots[i] = record;
              progress.finished(record);
            },
          },
          stopWhen,
        );
      } else {
        await runLoop(
          ctx,
          work,
          this.maxConcurrent,
          (i, record) => {
            slots[i] = record;
            sink?.append(i, record);
            progress.finished(record);
          },
          stopWhen,
        );
      }
    } finally {
      ctx.cutter?.dispose();
      await closeJournal(journal?.writer);
    }

    const samples: SampleResult[] = [];
    for (const i of positions) {
      const s = slots[i];
      if (s !== undefined) samples.push(s);
    }
    const higherIsBetter: Record<string, boolean> = {};
    for (const m of this.metrics) setOwn(higherIsBetter, m.name, m.higherIsBetter);
    const result = new BenchmarkResult({
      name,
      createdAt: new Date(started),
      durationS: (performance.now() - t0) / 1000,
      samples,
      higherIsBetter,
      dataset: lazyDatasetInfo(this, total),
      ...(shard ? { shard: this.resultShard(shard, positions) } : {}),
      keepChunkText: options.keepChunkText === true,
      ...(options.provenance ? { provenance: options.provenance } : {}),
      ...(limiter ? { rateLimit: limiter.record() } : {}),
      ...(trials > 1 ? { trials } : {}),
    });
    if (journal?.failure !== undefined) {
      throw journalWriteError(journal, {
        path: checkpoint as string,
        result,
        samplesInRun: positions.length,
        withTrials: trials > 1,
        unjournaledSamples: journal.unjournaledSamples(slots, trials > 1),
      });
    }
    if (signal?.aborted || (stop?.aborted && samples.length < positions.length)) {
      throw new RunAbortedError(
        `Benchmark.run("${name}") was ${signal?.aborted ? "aborted" : "stopped"} after ${samples.length} of ${positions.length} samples${checkpoint ? `; re-run with the same checkpoint to finish` : ""}`,
        result,
        { cause: signal?.aborted ? signal.reason : stop?.reason },
      );
    }
    return result;
  }
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
