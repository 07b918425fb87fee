import { resolve as resolvePath } from "node:path";
import {
  ConfigurationError,
  FastragBenchError,
  MetricUnavailableError,
  RunAbortedError,
} from "./errors.js";
import { fingerprintSamples } from "./internal/fingerprint.js";
import { type JournalHeader, JournalWriter, readJournal } from "./internal/journal.js";
import { shortText } from "./internal/text.js";
import { setOwn } from "./internal/validate.js";
import { BenchmarkResult, type DatasetInfo, type ShardSpec } from "./results.js";
import type {
  EvalSample,
  Metadata,
  Metric,
  MetricInput,
  Progress,
  QueryEngine,
  RetrievedChunk,
  Retriever,
  SampleResult,
  SampleStatus,
  Target,
  Usage,
} from "./types.js";

/** A dataset the runner accepts: an array of samples, or an object holding one (a `QADataset`). */
export type DatasetLike<M extends Metadata = Metadata> =
  | readonly EvalSample<M>[]
  | { readonly samples: readonly EvalSample<M>[] };

/** Options of `new Benchmark(...)`. */
export interface BenchmarkOptions<M extends Metadata = Metadata> {
  readonly dataset: DatasetLike<M>;
  readonly metrics: readonly Metric<M>[];
  /** Samples in flight at once. A positive integer; default 4. */
  readonly maxConcurrent?: number;
}

/** Retry policy for errors the caller marks transient (rate limits, 5xx). Default: no retries. */
export interface RetryOptions {
  /** Total attempts per sample, including the first. A positive integer. */
  readonly attempts: number;
  /** Base of the exponential backoff; attempt n waits about `backoffMs · 2^(n−1)`, jittered. Default 500. */
  readonly backoffMs?: number;
  /** Cap of a single wait. Default 60,000. */
  readonly maxBackoffMs?: number;
  /**
   * Decides whether an error is transient. Only those are retried. An error carrying a numeric
   * `retryAfterMs` waits at least that long.
   */
  readonly retryOn: (error: unknown) => boolean;
}

/** Options of `Benchmark.run`. */
export interface RunOptions {
  /** The run's name: the row label in comparisons and the result file's `name`. */
  readonly name: string;
  /**
   * Aborting stops scheduling samples; in-flight ones settle and `run` rejects with a
   * `RunAbortedError`. A metric still pending is waited for up to 10 s after the abort; a sample
   * whose metric is pending after that (a hung judge) is left for a resume.
   */
  readonly signal?: AbortSignal;
  /**
   * Per-sample limit on the pipeline call, not on metrics. On expiry the target's signal aborts
   * and the sample is errored.
   */
  readonly timeoutMs?: number;
  readonly retries?: RetryOptions;
  /** Called after every finished sample. An error it throws is ignored (a progress bar must not kill a run). */
  readonly onProgress?: (progress: Progress) => void;
  /**
   * Path of a JSONL checkpoint journal. Finished samples are appended as they finish; re-running
   * with the same path skips them. The journal is kept after the run; delete it to start over.
   */
  readonly checkpoint?: string;
  /** With `checkpoint`: also re-run samples that errored in the journal. */
  readonly retryErrored?: boolean;
  /** Run only a deterministic slice: the samples at positions `i` with `i % count === index`. */
  readonly shard?: ShardSpec;
}

type TargetKind = "engine" | "retriever";

interface PipelineOutput {
  readonly answer: string | null;
  readonly chunks: readonly RetrievedChunk[];
  /**
   * The chunks' ids and uris as validated, read once: the record keeps what the target returned
   * even if a getter answers differently later or a metric edits the array it is handed.
   */
  readonly ids: string[];
  readonly uris: (string | null)[];
  /** False when a query engine returned no `chunks` at all (as opposed to an empty list). */
  readonly chunksReported: boolean;
  readonly usage: Usage | undefined;
}

class TimeoutError extends Error {
  constructor(ms: number) {
    super(`timed out after ${ms} ms`);
    this.name = "TimeoutError";
  }
}

class MalformedOutputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MalformedOutputError";
  }
}

const CANCELLED: unique symbol = Symbol("cancelled");

/** The checkpoint journals runs of this process are using, by absolute path. */
const ACTIVE_JOURNALS = new Set<string>();

/**
 * Marks `options.checkpoint` as in use by a run of this process, or throws when another run of
 * this process is using it. Returns the key to release.
 */
function claimJournal(options: RunOptions): string {
  const path = options.checkpoint as string;
  const key = resolvePath(path);
  if (ACTIVE_JOURNALS.has(key)) {
    throw new ConfigurationError(
      `${path}: another run of this process is using this checkpoint journal; two runs on one journal would both run the samples it lacks (give each run its own checkpoint path, or resume once the other has finished)`,
    );
  }
  ACTIVE_JOURNALS.add(key);
  return key;
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
  private fingerprintCache: string | undefined;
  // Each sample's question and id as validated here: what records and journals keep, and what a
  // resume checks a journal against, even after a target edited the sample objects in place.
  private readonly questions: readonly string[];
  private readonly ids: readonly (string | undefined)[];

  /**
   * @throws {ConfigurationError} for an empty or malformed dataset, an empty metric list, two
   * metrics with one name, a `maxConcurrent` that is not a positive integer, or when no metric
   * can score this dataset (every metric needs relevant ids and no sample has any).
   */
  constructor(options: BenchmarkOptions<M>) {
    if (typeof options !== "object" || options === null) {
      throw new ConfigurationError(
        "Benchmark: expected options { dataset, metrics, maxConcurrent? }",
      );
    }
    const { dataset, metrics, maxConcurrent = 4 } = options;
    const samples = Array.isArray(dataset)
      ? (dataset as readonly EvalSample<M>[])
      : (dataset as { samples?: readonly EvalSample<M>[] } | undefined)?.samples;
    if (!Array.isArray(samples)) {
      throw new ConfigurationError(
        "Benchmark: dataset must be an array of samples or an object with `samples` (e.g. a QADataset)",
      );
    }
    if (samples.length === 0) throw new ConfigurationError("Benchmark: the dataset has no samples");
    const ids = new Map<string, number>();
    const questions: string[] = new Array(samples.length);
    const sampleIds: (string | undefined)[] = new Array(samples.length);
    for (let i = 0; i < samples.length; i++) {
      validateSample(samples[i], i);
      const id = (samples[i] as EvalSample<M>).id;
      questions[i] = (samples[i] as EvalSample<M>).question;
      sampleIds[i] = id;
      if (id === undefined) continue;
      const first = ids.get(id);
      if (first !== undefined) {
        throw new ConfigurationError(
          `Benchmark: dataset samples ${first} and ${i} share the id "${id}"; ids must be unique (results pair samples by id)`,
        );
      }
      ids.set(id, i);
    }
    if (!Array.isArray(metrics) || metrics.length === 0) {
      throw new ConfigurationError("Benchmark: expected at least one metric, found none");
    }
    const seen = new Set<string>();
    for (const [i, m] of metrics.entries()) {
      if (
        typeof m !== "object" ||
        m === null ||
        typeof m.name !== "string" ||
        typeof m.score !== "function"
      ) {
        throw new ConfigurationError(
          `Benchmark: metrics[${i}] is not a Metric (expected { name, score(), … })`,
        );
      }
      if (typeof m.higherIsBetter !== "boolean") {
        // Saved with the result as its direction: a file without one would not load back.
        throw new ConfigurationError(
          `Benchmark: metric "${m.name}" has higherIsBetter ${describeValue(m.higherIsBetter)}; expected true or false (the direction is saved with every result)`,
        );
      }
      if (seen.has(m.name)) {
        throw new ConfigurationError(
          `Benchmark: two metrics are named "${m.name}"; each summary entry would overwrite the other. Give them distinct names (e.g. different k)`,
        );
      }
      seen.add(m.name);
    }
    if (!Number.isSafeInteger(maxConcurrent) || maxConcurrent < 1) {
      throw new ConfigurationError(
        `Benchmark: maxConcurrent must be a positive integer, found ${describeValue(maxConcurrent)}`,
      );
    }
    if (metrics.every((m) => m.needsRelevantIds) && !samples.some(isJudged)) {
      throw new ConfigurationError(
        `Benchmark: no metric can score this dataset: every metric (${metrics.map((m) => m.name).join(", ")}) needs relevant ids and no sample has any (nor a positive grade in \`relevance\`). Map a relevant-ids column or add a generation/operational metric`,
      );
    }
    this.samples = samples;
    this.questions = questions;
    this.ids = sampleIds;
    this.metrics = metrics;
    this.maxConcurrent = maxConcurrent;
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
   * @throws {RunAbortedError} when `signal` aborts; its `partial` holds the finished samples.
   */
  async run(target: Target<M>, options: RunOptions): Promise<BenchmarkResult> {
    const kind = detectTarget(target);
    validateRunOptions(options);
    if (kind === "retriever") {
      const needy = this.metrics.filter((m) => m.needsAnswer).map((m) => m.name);
      if (needy.length > 0) {
        throw new ConfigurationError(
          `Benchmark.run("${options.name}"): the target is a Retriever (it has retrieve() but no query()), and ${needy.join(", ")} ${needy.length === 1 ? "needs" : "need"} an answer. Pass a QueryEngine or drop ${needy.length === 1 ? "that metric" : "those metrics"}`,
        );
      }
    }
    // Two runs of this process on one journal would both run the samples it lacks, each
    // appending its own lines: the second is refused before it reads the journal. (Across
    // processes, the CLI's lock does this; see the README.)
    const claimed = options.checkpoint === undefined ? undefined : claimJournal(options);
    try {
      return await this.runClaimed(target, kind, options);
    } finally {
      if (claimed !== undefined) ACTIVE_JOURNALS.delete(claimed);
    }
  }

  private async runClaimed(
    target: Target<M>,
    kind: TargetKind,
    options: RunOptions,
  ): Promise<BenchmarkResult> {
    const { name, signal, timeoutMs, retries, onProgress, checkpoint, shard } = options;
    const started = Date.now();
    const t0 = performance.now();
    const total = this.samples.length;

    const positions: number[] = [];
    if (shard) for (let i = shard.index; i < total; i += shard.count) positions.push(i);
    else for (let i = 0; i < total; i++) positions.push(i);

    const slots: (SampleResult | undefined)[] = new Array(total);
    let journal: JournalWriter | undefined;
    if (checkpoint !== undefined) {
      const header: JournalHeader = {
        name,
        fingerprint: this.fingerprint,
        size: total,
        metrics: this.metrics.map((m) => m.name),
        shard: shard ? { index: shard.index, count: shard.count } : null,
      };
      const { questions, ids } = this;
      const recovered = await readJournal(checkpoint, header, (i) => {
        const id = ids[i];
        return id === undefined
          ? { question: questions[i] as string }
          : { id, question: questions[i] as string };
      });
      for (const [index, sample] of recovered.finished) {
        if (options.retryErrored && sample.status === "errored") continue;
        slots[index] = sample;
      }
      journal = await JournalWriter.open(checkpoint, header, recovered);
    }

    const todo = positions.filter((i) => slots[i] === undefined);
    let done = positions.length - todo.length;
    let errored = 0;
    let incomplete = 0;
    for (const i of positions) {
      const s = slots[i];
      if (s?.status === "errored") errored++;
      else if (s?.status === "incomplete") incomplete++;
    }
    const report = () => {
      if (!onProgress) return;
      try {
        const pending: unknown = onProgress({ done, total: positions.length, errored, incomplete });
        // An async callback's rejection is ignored too: left unhandled, it would end the process.
        if (typeof (pending as PromiseLike<unknown> | null)?.then === "function") {
          (pending as PromiseLike<unknown>).then(undefined, () => {});
        }
      } catch {
        // A failing progress callback must not fail the run.
      }
    };

    const ctx: SampleContext<M> = {
      target,
      kind,
      metrics: this.metrics,
      timeoutMs,
      retries,
      signal,
      cutter: signal === undefined ? undefined : new MetricCutter(signal),
      direct: timeoutMs === undefined && signal === undefined && (retries?.attempts ?? 1) === 1,
    };
    const all = this.samples;
    const { questions, ids } = this;
    // A fixed pool of `maxConcurrent` workers pulling the next position from a shared cursor.
    // Scheduling 10^5 samples into p-limit's queue at once kept 10^5 closures and promises alive
    // and made the runner GC-bound (about 10× a bare loop); the pool holds only its workers.
    let cursor = 0;
    const direct = ctx.direct;
    const worker = async (): Promise<void> => {
      while (cursor < todo.length) {
        if (signal?.aborted) return;
        const i = todo[cursor++] as number;
        const sample = all[i] as EvalSample<M>;
        // As validated when the Benchmark was built: the record keeps what the dataset held even
        // if a target edits the sample it is handed (sets its question to a number, say).
        const question = questions[i] as string;
        const sampleId = ids[i];
        let outcome: Outcome | Promise<Outcome>;
        if (direct) {
          // Nothing can abort or repeat the call: await it here, in the worker's one frame. With
          // the general path's nested async calls (runSample, callPipeline, attemptCall) and
          // their records, a TREC replay allocated 3.3 kB per sample; now 1.8 kB, 1 kB the target's.
          const start = performance.now();
          let raw: unknown;
          let failed = false;
          try {
            raw = await callTarget(ctx, sample, question, NEVER_ABORTED);
          } catch (error) {
            raw = error;
            failed = true;
          }
          const latencyMs = performance.now() - start;
          outcome = settleDirect(ctx, sample, question, sampleId, raw, failed, latencyMs);
          if (outcome instanceof Promise) outcome = await outcome;
        } else {
          outcome = await runSample(ctx, sample, question, sampleId);
        }
        if (outcome === CANCELLED) continue;
        slots[i] = outcome;
        journal?.append(i, outcome);
        done++;
        if (outcome.status === "errored") errored++;
        else if (outcome.status === "incomplete") incomplete++;
        report();
      }
    };
    try {
      const workers: Promise<void>[] = [];
      const n = Math.min(this.maxConcurrent, todo.length);
      for (let w = 0; w < n; w++) workers.push(worker());
      await Promise.all(workers);
    } finally {
      ctx.cutter?.dispose();
      // A journal that could not be written must not cost the finished result held in memory:
      // warn, and return (or abort with) the result as usual.
      await journal?.close().catch((error: unknown) => {
        process.emitWarning(
          `${errorMessage(error)}; the run's result is complete, but a resume from this journal would re-run samples`,
          { code: "FASTRAG_BENCH_JOURNAL" },
        );
      });
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
      ...(shard ? { shard: { index: shard.index, count: shard.count } } : {}),
    });
    if (signal?.aborted) {
      throw new RunAbortedError(
        `Benchmark.run("${name}") was aborted after ${samples.length} of ${positions.length} samples${checkpoint ? `; re-run with the same checkpoint to finish` : ""}`,
        result,
        { cause: signal.reason },
      );
    }
    return result;
  }
}

interface SampleContext<M extends Metadata> {
  readonly target: Target<M>;
  readonly kind: TargetKind;
  readonly metrics: readonly Metric<M>[];
  readonly timeoutMs: number | undefined;
  readonly retries: RetryOptions | undefined;
  readonly signal: AbortSignal | undefined;
  /** With a signal: what cuts a metric still pending long after the abort. */
  readonly cutter: MetricCutter | undefined;
  /** No timeout, no signal, one attempt: nothing can abort or repeat a call. */
  readonly direct: boolean;
}

type Outcome = SampleResult | typeof CANCELLED;

/**
 * One sample through the pipeline (with timeout, signal and retries) and the metrics. `question`
 * and `sampleId` are the sample's, read before its first call: every attempt asks that question,
 * and the record keeps both whatever the target does to the sample.
 */
async function runSample<M extends Metadata>(
  ctx: SampleContext<M>,
  sample: EvalSample<M>,
  question: string,
  sampleId: string | undefined,
): Promise<Outcome> {
  const maxAttempts = ctx.retries?.attempts ?? 1;
  let attempts = 0;
  let lastError: unknown;
  let output: PipelineOutput | undefined;
  let latencyMs = 0;
  while (attempts < maxAttempts) {
    attempts++;
    const attempt = await callPipeline(ctx, sample, question);
    latencyMs = attempt.latencyMs;
    if (attempt.ok) {
      output = attempt.output;
      break;
    }
    lastError = attempt.error;
    // A sample cut short by the run's abort is not finished: leave it for a resume.
    if (ctx.signal?.aborted) return CANCELLED;
    if (attempts >= maxAttempts || !isRetryable(ctx.retries, lastError)) break;
    const waited = await sleep(
      backoffDelay(ctx.retries as RetryOptions, attempts, lastError),
      ctx.signal,
    );
    if (!waited) return CANCELLED;
  }
  const tried = maxAttempts > 1 ? attempts : undefined;
  if (output === undefined) return erroredRecord(ctx, question, sampleId, lastError, tried);
  return scoreSample(ctx, sample, question, sampleId, output, latencyMs, tried);
}

/**
 * The rest of a sample after a direct call (see `SampleContext.direct`): what `attemptCall` and
 * `runSample` do after the target settles. `raw` is the target's output, or what it threw.
 */
function settleDirect<M extends Metadata>(
  ctx: SampleContext<M>,
  sample: EvalSample<M>,
  question: string,
  sampleId: string | undefined,
  raw: unknown,
  failed: boolean,
  latencyMs: number,
): Outcome | Promise<Outcome> {
  if (failed) return erroredRecord(ctx, question, sampleId, raw, undefined);
  let output: PipelineOutput;
  try {
    output = validateOutput(ctx.kind, raw);
  } catch (error) {
    return erroredRecord(ctx, question, sampleId, error, undefined);
  }
  return scoreSample(ctx, sample, question, sampleId, output, latencyMs, undefined);
}

function erroredRecord<M extends Metadata>(
  ctx: SampleContext<M>,
  question: string,
  sampleId: string | undefined,
  error: unknown,
  attempts: number | undefined,
): SampleResult {
  const metrics = ctx.metrics;
  const scores: Record<string, number | null> = {};
  for (let m = 0; m < metrics.length; m++) setOwn(scores, (metrics[m] as Metric<M>).name, null);
  const message = errorMessage(error);
  return sampleRecord(question, sampleId, "errored", scores, null, [], [], null, message, attempts);
}

/**
 * Scores a sample's output with every metric. Synchronous while the metrics are: the first metric
 * that returns a promise hands the rest to {@link scoreAsync}.
 */
function scoreSample<M extends Metadata>(
  ctx: SampleContext<M>,
  sample: EvalSample<M>,
  question: string,
  sampleId: string | undefined,
  output: PipelineOutput,
  rawLatencyMs: number,
  attempts: number | undefined,
): Outcome | Promise<Outcome> {
  // Rounded to the microsecond once, so the latency metric and the recorded latency agree.
  const latencyMs = Math.round(rawLatencyMs * 1000) / 1000;
  const input: MetricInput<M> = {
    sample,
    answer: output.answer,
    retrieved: output.chunks,
    latencyMs,
    usage: output.usage,
    signal: ctx.signal,
  };
  const metrics = ctx.metrics;
  const scores: Record<string, number | null> = {};
  let errors: string | null = null;
  let incomplete = false;
  for (let m = 0; m < metrics.length; m++) {
    const metric = metrics[m] as Metric<M>;
    let v: number | null | string;
    try {
      const value = startScore(metric, output, input);
      if (typeof (value as PromiseLike<unknown> | null)?.then === "function") {
        const state: Scoring<M> = {
          question,
          sampleId,
          output,
          input,
          scores,
          errors,
          incomplete,
          attempts,
        };
        return scoreAsync(ctx, state, m, value as PromiseLike<unknown>);
      }
      v = recordable(value);
    } catch (error) {
      v = errorMessage(error);
    }
    setOwn(scores, metric.name, typeof v === "string" ? null : v);
    if (v === null || typeof v === "string") incomplete = true;
    if (typeof v === "string")
      errors = `${errors === null ? "" : `${errors}; `}${metric.name}: ${v}`;
  }
  return scoredRecord(
    ctx,
    question,
    sampleId,
    output,
    scores,
    errors,
    incomplete,
    latencyMs,
    attempts,
  );
}

/** Where {@link scoreSample} stood when a metric returned a promise. */
interface Scoring<M extends Metadata> {
  readonly question: string;
  readonly sampleId: string | undefined;
  readonly output: PipelineOutput;
  readonly input: MetricInput<M>;
  readonly scores: Record<string, number | null>;
  errors: string | null;
  incomplete: boolean;
  readonly attempts: number | undefined;
}

/**
 * {@link scoreSample} from metric `from` on, whose score is `pending`. With a run signal, a metric
 * still pending {@link ABORT_GRACE} after the run's abort (a judge that hangs and ignores its
 * signal) does not hold the run: the sample is not finished and is left for a resume.
 */
async function scoreAsync<M extends Metadata>(
  ctx: SampleContext<M>,
  state: Scoring<M>,
  from: number,
  pending: PromiseLike<unknown>,
): Promise<Outcome> {
  const metrics = ctx.metrics;
  const cutter = ctx.cutter;
  const { output, input, scores } = state;
  for (let m = from; m < metrics.length; m++) {
    const metric = metrics[m] as Metric<M>;
    let v: number | null | string;
    try {
      const value: unknown = m === from ? pending : startScore(metric, output, input);
      let settled: unknown = value;
      if (m === from || typeof (value as PromiseLike<unknown> | null)?.then === "function") {
        const promise = value as PromiseLike<unknown>;
        settled = await (cutter === undefined ? promise : cutter.wait(promise));
        if (settled === CUT_SHORT) return CANCELLED;
      }
      v = recordable(settled);
    } catch (error) {
      v = errorMessage(error);
    }
    setOwn(scores, metric.name, typeof v === "string" ? null : v);
    if (v === null || typeof v === "string") state.incomplete = true;
    if (typeof v === "string") {
      state.errors = `${state.errors === null ? "" : `${state.errors}; `}${metric.name}: ${v}`;
    }
  }
  const { question, sampleId, errors, incomplete, attempts } = state;
  return scoredRecord(
    ctx,
    question,
    sampleId,
    output,
    scores,
    errors,
    incomplete,
    input.latencyMs,
    attempts,
  );
}

/** What {@link MetricCutter.wait} gives for a metric it cut. */
const CUT_SHORT: unique symbol = Symbol("cut short");

/**
 * How long a metric may still be pending after the run's abort before its sample is given up
 * (left for a resume). Long enough for a judge call in flight to finish, so that its sample and
 * the pipeline call it cost are kept; a judge that hangs and ignores its signal cannot hold the
 * run for longer. Tests lower it.
 */
export const ABORT_GRACE: { ms: number } = { ms: 10_000 };

interface Waiting {
  readonly cut: () => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * One per run with a signal: races each pending metric score against the abort plus
 * {@link ABORT_GRACE}. A single abort listener serves every pending score (one per score would
 * trip Node's MaxListenersExceededWarning past 10 in flight, and cost a listener per sample).
 */
class MetricCutter {
  private readonly pending = new Set<Waiting>();
  private aborted: boolean;
  private readonly onAbort = () => {
    this.aborted = true;
    for (const waiting of this.pending) this.arm(waiting);
  };

  constructor(private readonly signal: AbortSignal) {
    this.aborted = signal.aborted;
    if (!this.aborted) signal.addEventListener("abort", this.onAbort, { once: true });
  }

  /**
   * The score's value (or rejection) once it settles, or {@link CUT_SHORT} when it is still
   * pending {@link ABORT_GRACE} after the abort. A rejection after the cut is handled and ignored.
   */
  wait(pending: PromiseLike<unknown>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const waiting: Waiting = {
        cut: () => {
          this.pending.delete(waiting);
          resolve(CUT_SHORT);
        },
        timer: undefined,
      };
      const settle = () => {
        this.pending.delete(waiting);
        if (waiting.timer !== undefined) clearTimeout(waiting.timer);
      };
      this.pending.add(waiting);
      if (this.aborted) this.arm(waiting);
      try {
        pending.then(
          (value) => {
            settle();
            resolve(value);
          },
          (error: unknown) => {
            settle();
            reject(error);
          },
        );
      } catch (error) {
        // A thenable whose then() throws: that is the metric's error, as `await` would report it.
        settle();
        reject(error);
      }
    });
  }

  /** Ends the run's use of the signal: no listener or timer is left behind. */
  dispose(): void {
    this.signal.removeEventListener("abort", this.onAbort);
    for (const waiting of this.pending)
      if (waiting.timer !== undefined) clearTimeout(waiting.timer);
  }

  private arm(waiting: Waiting): void {
    waiting.timer ??= setTimeout(waiting.cut, ABORT_GRACE.ms);
  }
}

/** Calls one metric (it may throw, or return a promise). */
function startScore<M extends Metadata>(
  metric: Metric<M>,
  output: PipelineOutput,
  input: MetricInput<M>,
): unknown {
  // An engine that reports no chunks exposes no retrieval: not scorable, never a zero.
  if (!output.chunksReported && metric.needsRelevantIds) {
    throw new MetricUnavailableError(
      "the query engine returned no chunks, so its retrieval cannot be scored (return { answer, chunks })",
    );
  }
  return metric.score(input);
}

/**
 * A metric's settled value as recorded: a finite number or `null` (for `null` and `undefined`);
 * a string is the problem with any other value, which is recorded as `null`. `-0` (from
 * `Math.round(-0.4)`, say) is recorded as `0`, as JSON writes it: a run's result then equals
 * its saved file and its resumed journal.
 */
function recordable(value: unknown): number | null | string {
  if (value === undefined || value === null) return null;
  if (typeof value === "number" && Number.isFinite(value)) return value === 0 ? 0 : value;
  return `returned ${typeof value === "number" ? String(value) : describeValue(value)}, expected a finite number or null`;
}

function scoredRecord<M extends Metadata>(
  ctx: SampleContext<M>,
  question: string,
  sampleId: string | undefined,
  output: PipelineOutput,
  scores: Record<string, number | null>,
  errors: string | null,
  incomplete: boolean,
  latencyMs: number,
  attempts: number | undefined,
): Outcome {
  // Aborted while scoring (a judge cut short): not finished, leave it for a resume.
  if (incomplete && ctx.signal?.aborted) return CANCELLED;
  const status: SampleStatus = incomplete ? "incomplete" : "successful";
  return sampleRecord(
    question,
    sampleId,
    status,
    scores,
    output.answer,
    output.ids,
    output.uris,
    latencyMs,
    errors,
    attempts,
  );
}

/**
 * A sample's record, `sampleId` and `attempts` last where present. Built as one literal with its
 * `sampleId`: adding the id to a built record cost a map transition and a property store per
 * sample. `question` and `sampleId` are as read when the sample started, never re-read from a
 * sample the target may have edited.
 */
function sampleRecord(
  question: string,
  sampleId: string | undefined,
  status: SampleStatus,
  scores: Record<string, number | null>,
  answer: string | null,
  retrievedIds: string[],
  retrievedUris: (string | null)[],
  latencyMs: number | null,
  error: string | null,
  attempts: number | undefined,
): SampleResult {
  const record: { -readonly [K in keyof SampleResult]: SampleResult[K] } =
    sampleId === undefined
      ? { question, status, scores, answer, retrievedIds, retrievedUris, latencyMs, error }
      : {
          question,
          status,
          scores,
          answer,
          retrievedIds,
          retrievedUris,
          latencyMs,
          error,
          sampleId,
        };
  if (attempts !== undefined) record.attempts = attempts;
  return record;
}

type Attempt =
  | { ok: true; output: PipelineOutput; latencyMs: number }
  | { ok: false; error: unknown; latencyMs: number };

/** Handed to targets when nothing can abort a call: one signal for the whole process. */
const NEVER_ABORTED: AbortSignal = new AbortController().signal;

async function callPipeline<M extends Metadata>(
  ctx: SampleContext<M>,
  sample: EvalSample<M>,
  question: string,
): Promise<Attempt> {
  const external = ctx.signal;
  // A per-sample controller only when a timeout needs one: creating AbortControllers dominates
  // the cost of an instant target otherwise.
  // The run's abort reaches the target through its signal, but the call is not raced against it:
  // an in-flight sample settles, and one that still succeeds is kept (a paid call is not thrown
  // away). Only a timeout cuts a call short, since a target may ignore its signal and hang.
  if (ctx.timeoutMs === undefined)
    return attemptCall(ctx, sample, question, external ?? NEVER_ABORTED, undefined);
  const controller = new AbortController();
  const onExternal = () => controller.abort(external?.reason);
  if (external) {
    if (external.aborted) controller.abort(external.reason);
    else external.addEventListener("abort", onExternal, { once: true });
  }
  const ms = ctx.timeoutMs;
  const timeout = new AbortController();
  const timer = setTimeout(() => {
    const error = new TimeoutError(ms);
    timeout.abort(error);
    controller.abort(error);
  }, ms);
  try {
    const aborted = abortPromise(timeout.signal);
    return await attemptCall(ctx, sample, question, controller.signal, aborted);
  } finally {
    clearTimeout(timer);
    external?.removeEventListener("abort", onExternal);
  }
}

/**
 * A promise that rejects when `signal` aborts. Racing the target against a timeout's frees the
 * slot even when the target ignores its signal and hangs.
 */
function abortPromise(signal: AbortSignal): { promise: Promise<never>; dispose: () => void } {
  let dispose = () => {};
  const promise = new Promise<never>((_, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    dispose = () => signal.removeEventListener("abort", onAbort);
  });
  promise.catch(() => {});
  return { promise, dispose };
}

async function attemptCall<M extends Metadata>(
  ctx: SampleContext<M>,
  sample: EvalSample<M>,
  question: string,
  signal: AbortSignal,
  aborted: { promise: Promise<never>; dispose: () => void } | undefined,
): Promise<Attempt> {
  const start = performance.now();
  try {
    const call = callTarget(ctx, sample, question, signal);
    const raw: unknown = await (aborted ? Promise.race([call, aborted.promise]) : call);
    const latencyMs = performance.now() - start;
    return { ok: true, output: validateOutput(ctx.kind, raw), latencyMs };
  } catch (error) {
    return { ok: false, error, latencyMs: performance.now() - start };
  } finally {
    aborted?.dispose();
  }
}

/** Calls the target with the sample's `question` as read when it started (it may throw synchronously). */
function callTarget<M extends Metadata>(
  ctx: SampleContext<M>,
  sample: EvalSample<M>,
  question: string,
  signal: AbortSignal,
): Promise<unknown> {
  const options = { signal, sample };
  return ctx.kind === "engine"
    ? (ctx.target as QueryEngine<M>).query(question, options)
    : (ctx.target as Retriever<M>).retrieve(question, options);
}

/**
 * Checks a target's output and reads what the record keeps. Every property is read once: an
 * accessor that answers differently on a second read cannot slip a non-string into the record.
 */
function validateOutput(kind: TargetKind, raw: unknown): PipelineOutput {
  if (kind === "retriever") {
    const { chunks, ids, uris } = validateChunks(raw, "retrieve() result");
    return { answer: null, chunks, ids, uris, chunksReported: true, usage: undefined };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new MalformedOutputError(
      `query() returned ${describeValue(raw)}, expected { answer: string, chunks?, usage? }`,
    );
  }
  const r = raw as Record<string, unknown>;
  const answer = r.answer;
  if (typeof answer !== "string") {
    throw new MalformedOutputError(
      `query() returned answer ${describeValue(answer)}, expected a string`,
    );
  }
  const rawChunks = r.chunks;
  const reported = rawChunks !== undefined && rawChunks !== null;
  const { chunks, ids, uris } = reported
    ? validateChunks(rawChunks, "query() chunks")
    : { chunks: [], ids: [], uris: [] };
  const rawUsage = r.usage;
  let usage: Usage | undefined;
  if (rawUsage !== undefined && rawUsage !== null) {
    if (typeof rawUsage !== "object" || Array.isArray(rawUsage)) {
      throw new MalformedOutputError(
        `query() returned usage ${describeValue(rawUsage)}, expected an object`,
      );
    }
    usage = rawUsage as Usage;
  }
  return { answer, chunks, ids, uris, chunksReported: reported, usage };
}

/** Checks a list of chunks, reading each chunk's id and uri once for the record. */
function validateChunks(
  raw: unknown,
  where: string,
): { chunks: readonly RetrievedChunk[]; ids: string[]; uris: (string | null)[] } {
  if (!Array.isArray(raw))
    throw new MalformedOutputError(
      `${where} is ${describeValue(raw)}, expected an array of chunks`,
    );
  const n = raw.length;
  const ids: string[] = new Array(n);
  const uris: (string | null)[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const c = raw[i] as Record<string, unknown> | null;
    if (typeof c !== "object" || c === null) {
      throw new MalformedOutputError(
        `${where}[${i}] is ${describeValue(c)}, expected a chunk { id: string, … }`,
      );
    }
    const id = c.id;
    if (typeof id !== "string") {
      throw new MalformedOutputError(
        `${where}[${i}].id is ${describeValue(id)}, expected a string`,
      );
    }
    const documentId = c.documentId;
    if (documentId !== undefined && typeof documentId !== "string") {
      throw new MalformedOutputError(
        `${where}[${i}].documentId is ${describeValue(documentId)}, expected a string`,
      );
    }
    const uri = c.uri;
    if (uri !== undefined && uri !== null && typeof uri !== "string") {
      throw new MalformedOutputError(
        `${where}[${i}].uri is ${describeValue(uri)}, expected a string`,
      );
    }
    // Read by metrics (a judge quotes the text) and kept by targets: a score of "high" or a text
    // that is no string is a target's bug, reported here rather than inside a metric.
    const score = c.score;
    if (score !== undefined && score !== null && typeof score !== "number") {
      throw new MalformedOutputError(
        `${where}[${i}].score is ${describeValue(score)}, expected a number`,
      );
    }
    const text = c.text;
    if (text !== undefined && text !== null && typeof text !== "string") {
      throw new MalformedOutputError(
        `${where}[${i}].text is ${describeValue(text)}, expected a string`,
      );
    }
    ids[i] = id;
    uris[i] = (uri as string | null | undefined) ?? null;
  }
  return { chunks: raw as RetrievedChunk[], ids, uris };
}

/**
 * An object with `query` is a QueryEngine; with only `retrieve`, a Retriever. A `query` or
 * `retrieve` that is there but not a function (`{ query: "gpt-4o", retrieve }`) is refused, never
 * taken for the other kind. A property set to `undefined` or `null` (an optional one, or a class
 * field, left unset) counts as absent.
 */
function detectTarget(target: unknown): TargetKind {
  if (typeof target === "object" && target !== null) {
    const t = target as Record<string, unknown>;
    if (t.query !== undefined && t.query !== null) {
      if (typeof t.query === "function") return "engine";
      throw new ConfigurationError(
        `Benchmark.run: the target's query is ${describeValue(t.query)}; a QueryEngine's query must be a function, query(question, { signal, sample }) → Promise<{ answer, chunks? }>${typeof t.retrieve === "function" ? " (a target with query is an engine even when it has retrieve(): remove query to use it as a Retriever)" : ""}`,
      );
    }
    if (t.retrieve !== undefined && t.retrieve !== null) {
      if (typeof t.retrieve === "function") return "retriever";
      throw new ConfigurationError(
        `Benchmark.run: the target's retrieve is ${describeValue(t.retrieve)}; a Retriever's retrieve must be a function, retrieve(query, { signal, sample }) → Promise<RetrievedChunk[]>`,
      );
    }
  }
  throw new ConfigurationError(
    `Benchmark.run: the target is ${describeValue(target)}; expected a QueryEngine (an object with query(question, { signal, sample })) or a Retriever (an object with retrieve(query, { signal, sample }))`,
  );
}

function validateRunOptions(options: RunOptions): void {
  if (typeof options !== "object" || options === null) {
    throw new ConfigurationError(
      "Benchmark.run: expected options { name, … } as the second argument",
    );
  }
  if (typeof options.name !== "string" || options.name.trim() === "") {
    throw new ConfigurationError(
      `Benchmark.run: name must be a non-empty string, found ${describeValue(options.name)}`,
    );
  }
  const { timeoutMs, retries, shard, checkpoint, signal } = options;
  if (
    timeoutMs !== undefined &&
    !(typeof timeoutMs === "number" && timeoutMs > 0 && timeoutMs <= 2_147_483_647)
  ) {
    throw new ConfigurationError(
      `Benchmark.run: timeoutMs must be a positive number of milliseconds, found ${describeValue(timeoutMs)}`,
    );
  }
  if (retries !== undefined) {
    if (typeof retries !== "object" || retries === null) {
      throw new ConfigurationError(
        `Benchmark.run: retries must be { attempts, backoffMs?, retryOn }, found ${describeValue(retries)}`,
      );
    }
    if (!Number.isSafeInteger(retries.attempts) || retries.attempts < 1) {
      throw new ConfigurationError(
        `Benchmark.run: retries.attempts must be a positive integer, found ${describeValue(retries.attempts)}`,
      );
    }
    if (typeof retries.retryOn !== "function") {
      throw new ConfigurationError(
        "Benchmark.run: retries.retryOn must be a function (error) => boolean that marks transient errors",
      );
    }
    for (const key of ["backoffMs", "maxBackoffMs"] as const) {
      const v = retries[key];
      if (v !== undefined && !(typeof v === "number" && v >= 0 && Number.isFinite(v))) {
        throw new ConfigurationError(
          `Benchmark.run: retries.${key} must be a non-negative number, found ${describeValue(v)}`,
        );
      }
    }
  }
  if (shard !== undefined) {
    if (typeof shard !== "object" || shard === null) {
      throw new ConfigurationError(
        `Benchmark.run: shard must be { index, count }, found ${describeValue(shard)}`,
      );
    }
    const { index, count } = shard;
    if (
      !Number.isSafeInteger(count) ||
      count < 1 ||
      !Number.isSafeInteger(index) ||
      index < 0 ||
      index >= count
    ) {
      throw new ConfigurationError(
        `Benchmark.run: shard must be { index, count } with integers 0 ≤ index < count, found ${JSON.stringify(shard)}`,
      );
    }
  }
  if (checkpoint !== undefined && (typeof checkpoint !== "string" || checkpoint === "")) {
    throw new ConfigurationError("Benchmark.run: checkpoint must be a file path");
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new ConfigurationError("Benchmark.run: signal must be an AbortSignal");
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== "function") {
    throw new ConfigurationError("Benchmark.run: onProgress must be a function");
  }
}

/** Where a sample is, for messages; built only when one is thrown (10^5 samples, 10^5 strings). */
/**
 * Whether a sample judges some id relevant: a relevant id, or a positive grade in `relevance`. A
 * graded metric such as nDCG scores a sample graded above 0 whose `relevantIds` a threshold left
 * empty (trec_eval's `-l` narrows the binary measures only), so such a sample counts.
 */
function isJudged(sample: EvalSample<Metadata>): boolean {
  if (sample.relevantIds.length > 0) return true;
  const relevance = sample.relevance;
  if (relevance === undefined) return false;
  for (const id in relevance) {
    if (Object.hasOwn(relevance, id) && (relevance[id] as number) > 0) return true;
  }
  return false;
}

function where(s: Record<string, unknown> | null, i: number): string {
  return `Benchmark: dataset sample ${i}${typeof s?.id === "string" ? ` (id "${s.id}")` : ""}`;
}

function validateSample(sample: unknown, i: number): void {
  const s = sample as Record<string, unknown> | null;
  if (typeof s !== "object" || s === null)
    throw new ConfigurationError(`${where(s, i)}: expected an object`);
  if (s.id !== undefined && typeof s.id !== "string") {
    // A numeric id would pair with nothing once a saved result turns it into a string.
    throw new ConfigurationError(
      `${where(s, i)}: id must be a string, found ${describeValue(s.id)}`,
    );
  }
  if (typeof s.question !== "string") {
    throw new ConfigurationError(
      `${where(s, i)}: question must be a string, found ${describeValue(s.question)}`,
    );
  }
  checkStrings(s.expectedAnswers, "expectedAnswers", s, i);
  checkStrings(s.relevantIds, "relevantIds", s, i);
  const relevance = s.relevance;
  if (relevance !== undefined) {
    if (typeof relevance !== "object" || relevance === null || Array.isArray(relevance)) {
      throw new ConfigurationError(
        `${where(s, i)}: relevance must be an object of id → grade, found ${describeValue(relevance)}`,
      );
    }
    // Object.keys, not for…in: on the dictionary-mode records of a large qrels file it is about
    // twice as fast (for…in walks the prototype chain for every record).
    const ids = Object.keys(relevance);
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k] as string;
      const grade = (relevance as Record<string, unknown>)[id];
      if (typeof grade !== "number" || !Number.isFinite(grade)) {
        throw new ConfigurationError(
          `${where(s, i)}: relevance["${id}"] must be a finite number, found ${describeValue(grade)}`,
        );
      }
    }
  }
}

function checkStrings(v: unknown, key: string, s: Record<string, unknown>, i: number): void {
  if (!Array.isArray(v)) {
    throw new ConfigurationError(
      `${where(s, i)}: ${key} must be an array of strings, found ${describeValue(v)}`,
    );
  }
  const list = v as readonly unknown[];
  for (let k = 0; k < list.length; k++) {
    if (typeof list[k] !== "string") {
      // A hole in a sparse array reads as undefined: name it as the entry it is.
      const found = k in list ? describeValue(list[k]) : "an empty slot (a sparse array)";
      throw new ConfigurationError(`${where(s, i)}: ${key}[${k}] must be a string, found ${found}`);
    }
  }
}

function isRetryable(retries: RetryOptions | undefined, error: unknown): boolean {
  if (!retries) return false;
  try {
    return retries.retryOn(error) === true;
  } catch {
    return false;
  }
}

function backoffDelay(retries: RetryOptions, attempt: number, error: unknown): number {
  const base = retries.backoffMs ?? 500;
  const cap = retries.maxBackoffMs ?? 60_000;
  const exp = Math.min(cap, base * 2 ** (attempt - 1));
  // "Equal jitter": half fixed, half random, so retries of many samples spread out.
  const delay = exp / 2 + Math.random() * (exp / 2);
  let after: unknown;
  try {
    after = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  } catch {
    // A getter that throws (or a Proxy) gives no hint: use the computed delay.
  }
  return typeof after === "number" && Number.isFinite(after) && after > delay
    ? Math.min(after, cap)
    : delay;
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The message to keep for a thrown value, whatever was thrown. It never throws itself: a value
 * whose message, name or text cannot be read (a getter or `toString` that throws, a revoked
 * Proxy) is described as such, so that the sample it failed is recorded as errored instead of
 * failing the whole run.
 */
export function errorMessage(error: unknown): string {
  try {
    return describeThrown(error);
  } catch {
    return "an error was thrown whose message cannot be read (reading its message, name or text threw)";
  }
}

function describeThrown(error: unknown): string {
  if (error instanceof Error) {
    // A message or name set to a non-string (a number, an object) still becomes text: the record's
    // `error` is a string in every result file.
    const message: unknown = error.message;
    const name: unknown = error.name;
    const text = typeof message === "string" ? message : message == null ? "" : String(message);
    const label = typeof name === "string" ? name : "";
    const msg = text || label;
    // Our own errors carry a reason meant to be read as is; others keep their name (TypeError…).
    const ours: boolean = FastragBenchError.isInstance(error);
    if (ours) return msg;
    return label && label !== "Error" && !msg.startsWith(label) ? `${label}: ${msg}` : msg;
  }
  if (typeof error === "string") return error;
  try {
    const json = JSON.stringify(error);
    if (json !== undefined) return `non-Error thrown: ${json}`;
  } catch {
    // fall through
  }
  return `non-Error thrown: ${String(error)}`;
}

/** A short description of a value for messages: its type, and its text when that is short. */
function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return `the number ${value}`;
  if (typeof value === "string") {
    // "found 4" for the string "4" would read as the number it is not.
    return `a string (${JSON.stringify(shortText(value, 40))})`;
  }
  if (typeof value === "boolean") return `the boolean ${value}`;
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
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
