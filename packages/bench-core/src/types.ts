import type { ResponseCache } from "./cache.js";

/** Free-form data attached to a sample (source, category, difficulty…). */
export type Metadata = Record<string, unknown>;

/**
 * One question of an evaluation set.
 *
 * On disk (the native dataset format) the fields are snake_case: `expected_answers`,
 * `relevant_ids`; in TypeScript they are camelCase.
 */
export interface EvalSample<M extends Metadata = Metadata> {
  /** A stable id. Comparisons pair samples across runs by it (else by question). */
  readonly id?: string;
  readonly question: string;
  /** Gold answers. `""` means "no answer" (SQuAD v2). May be empty for retrieval-only sets. */
  readonly expectedAnswers: readonly string[];
  /** Ids of the relevant chunks or documents. May be empty for generation-only sets. */
  readonly relevantIds: readonly string[];
  /**
   * Graded judgments: id → grade. When absent every relevant id has grade 1. Grades ≤ 0 mean
   * judged but not relevant.
   */
  readonly relevance?: Readonly<Record<string, number>>;
  readonly metadata?: M;
}

/** A dataset the runner accepts: an array of samples, or an object holding one (a `QADataset`). */
export type DatasetLike<M extends Metadata = Metadata> =
  | readonly EvalSample<M>[]
  | { readonly samples: readonly EvalSample<M>[] };

/** One retrieved chunk, in the order the target ranked it. */
export interface RetrievedChunk {
  /** Chunk id, matched against `relevantIds` at chunk level. */
  readonly id: string;
  /** The document the chunk belongs to, matched at document level. */
  readonly documentId?: string;
  readonly uri?: string;
  readonly text?: string;
  readonly score?: number;
}

/** Token usage and cost that a query engine may report for one call. */
export interface Usage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly totalTokens?: number;
  /** Cost of the call, in the caller's currency unit (e.g. USD). */
  readonly cost?: number;
}

/** The second argument of every target call. */
export interface TargetCallOptions<M extends Metadata = Metadata> {
  /** Aborts when the run is aborted or the sample's timeout expires. */
  readonly signal: AbortSignal;
  /** The sample being run: replay targets answer by `sample.id`; pipelines may read metadata. */
  readonly sample: EvalSample<M>;
}

/** A bare retriever: question in, ranked chunks out. */
export interface Retriever<M extends Metadata = Metadata> {
  /**
   * Which version of the target contract this implements. Omitted means `"v1"`: one call per
   * sample, the question and `{ signal, sample }` in, the ranked chunks out. A later version (a batch of
   * samples per call, chunks streamed as they come) will get a new value; the runner goes on
   * calling a `"v1"` or unversioned target exactly as it does today, and refuses, before any
   * sample runs, a version it does not know.
   */
  readonly specificationVersion?: TargetSpecificationVersion;
  /**
   * With a run's `cache`: names this pipeline's version in the cache key (else the run name is
   * used). Change it when the pipeline changes (a new prompt, model or index), so that outputs
   * stored for the old one are not reused.
   */
  readonly cacheKey?: string;
  retrieve(query: string, options: TargetCallOptions<M>): Promise<readonly RetrievedChunk[]>;
}

/** What a {@link QueryEngine} returns for one question. */
export interface QueryResponse {
  readonly answer: string;
  readonly chunks?: readonly RetrievedChunk[];
  readonly usage?: Usage;
}

/** A full pipeline that retrieves and answers. */
export interface QueryEngine<M extends Metadata = Metadata> {
  /**
   * Which version of the target contract this implements. Omitted means `"v1"`: one call per
   * sample, the question and `{ signal, sample }` in, the answer (with its chunks and usage) out. A later version (a batch of
   * samples per call, chunks streamed as they come) will get a new value; the runner goes on
   * calling a `"v1"` or unversioned target exactly as it does today, and refuses, before any
   * sample runs, a version it does not know.
   */
  readonly specificationVersion?: TargetSpecificationVersion;
  /**
   * With a run's `cache`: names this pipeline's version in the cache key (else the run name is
   * used). Change it when the pipeline changes (a new prompt, model or index), so that outputs
   * stored for the old one are not reused.
   */
  readonly cacheKey?: string;
  query(question: string, options: TargetCallOptions<M>): Promise<QueryResponse>;
}

/** The versions of the target contract ({@link Retriever}, {@link QueryEngine}); today only `"v1"`. */
export type TargetSpecificationVersion = "v1";

/** Anything `Benchmark.run` accepts: an object with `query` is an engine, with `retrieve` a retriever. */
export type Target<M extends Metadata = Metadata> = Retriever<M> | QueryEngine<M>;

/** What a metric sees for one sample. */
export interface MetricInput<M extends Metadata = Metadata> {
  readonly sample: EvalSample<M>;
  /** The engine's answer; `null` for a bare retriever. */
  readonly answer: string | null;
  readonly retrieved: readonly RetrievedChunk[];
  readonly latencyMs: number;
  readonly usage?: Usage;
  /**
   * The sample's signal, for metrics that call out (judges, embedders): it aborts when the run is
   * aborted, and is the sample's own (the one its target call got), so listeners a model client
   * leaves on it go with the sample. Absent when the run has no signal.
   */
  readonly signal?: AbortSignal;
  /**
   * Reports the usage of one model call made inside the metric (a judge or an embedder): call it
   * once per call. The runner sums what is reported per sample into the result's `judge_usage`
   * (input/output/total tokens, cost, calls). Absent when the runner does not record it.
   */
  readonly reportUsage?: (usage: Usage) => void;
  /** The run's shared rate limiter, for model calls made inside the metric. Absent without one. */
  readonly limiter?: CallLimiter;
  /**
   * The sample's judging context: shared steps, the run's cache, kept judgments. Absent outside
   * a runner (a metric called by hand then asks its judge directly).
   */
  readonly judging?: JudgingContext;
}

/**
 * A JSON Schema (draft 2020-12 subset: `type`, `properties`, `required`, `items`, `enum`,
 * `minimum`, `maximum`, `additionalProperties`, `description`) describing a judge step's reply
 * object. Sent to models that support structured output; every reply is checked against it.
 */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * The second argument of a {@link JudgeFunction}: the run's signal, usage sink and limiter, and
 * what is being asked. A judge may answer from `step` and `input` alone, without reading the
 * prompt (a scripted judge in tests does), or send `schema` as a model's structured output.
 */
export interface JudgeCallOptions {
  /**
   * Abort the model call when it fires: the sample's signal (it aborts with the run), which also
   * aborts when the metric's `timeoutMs` has passed.
   */
  readonly signal: AbortSignal;
  /**
   * Call it once per model call with that call's tokens (and cost), so the result's
   * `judge_usage` counts them. Absent when the runner does not record usage.
   */
  readonly reportUsage?: (usage: Usage) => void;
  /** The run's shared rate limiter: run the model call through it. Absent when the run has none. */
  readonly limiter?: CallLimiter;
  /** The step being asked (`"statements"`, `"verdicts"`, …; DESIGN §11). */
  readonly step?: string;
  /** The name of the metric asking (the first one, when metrics share the step). */
  readonly metric?: string;
  /** The step's structured input: the values the prompt was rendered from. */
  readonly input?: Readonly<Record<string, unknown>>;
  /** The JSON Schema the reply object must match. */
  readonly schema?: JsonSchema;
  /** 0, 1, … when the step is asked several times on purpose (each attempt is cached apart). */
  readonly attempt?: number;
}

/**
 * A judge reply: a JSON object as text (optionally inside one ```json fence) or an object already
 * parsed (as a model with structured output gives it).
 */
export type JudgeReply = string | Readonly<Record<string, unknown>>;

/**
 * A caller-supplied language model: a prompt in, a reply out. No client ships with core; wrap
 * whichever SDK you use (or use `aiJudge` of `@fastrag/bench-ai`), and pass `signal` on to it.
 * A string `cacheKey` property names the model for the response cache (the run's cache stores a
 * judge's replies only when it has one).
 *
 * @example
 * ```ts
 * const judge: JudgeFunction = async (prompt, { signal }) => {
 *   const r = await openai.chat.completions.create(
 *     { model: "gpt-4o-mini", temperature: 0, messages: [{ role: "user", content: prompt }],
 *       response_format: { type: "json_object" } },
 *     { signal },
 *   );
 *   return r.choices[0]?.message.content ?? "";
 * };
 * ```
 */
export type JudgeFunction = {
  (prompt: string, options: JudgeCallOptions): Promise<JudgeReply> | JudgeReply;
  /**
   * Which version of the judge protocol the function speaks. Omitted means `"v1"`: a prompt and
   * {@link JudgeCallOptions} (step, input, schema, attempt) in, one reply (JSON text or an object)
   * out. A later version (several steps asked in one call, replies with log-probabilities) will
   * get a new value; the judge metrics go on calling a `"v1"` or unversioned judge exactly as they
   * do today, and refuse, when built, a version they do not know.
   */
  readonly specificationVersion?: JudgeSpecificationVersion;
};

/** The versions of the {@link JudgeFunction} protocol; today only `"v1"`. */
export type JudgeSpecificationVersion = "v1";

/** The second argument of an {@link EmbedFunction}. */
export interface EmbedCallOptions {
  readonly signal: AbortSignal;
  readonly reportUsage?: (usage: Usage) => void;
  readonly limiter?: CallLimiter;
}

/**
 * A caller-supplied embedding model: texts in, one vector per text out, in order. A string
 * `cacheKey` property names the model for the response cache.
 */
export type EmbedFunction = {
  // Method syntax on purpose: its parameter is checked bivariantly, so a function written with a
  // mutable `(texts: string[]) => …` (most embedding clients type their input so) is accepted as
  // well as one taking `readonly string[]`. Metrics hand each call a fresh array.
  bivariant(
    texts: readonly string[],
    options: EmbedCallOptions,
  ): Promise<readonly ArrayLike<number>[]> | readonly ArrayLike<number>[];
}["bivariant"];

/**
 * One step a judge metric asked, as the sample's record keeps it (`judgments` in format 2): its
 * name, its attempt, what it was about (for a person: `"chunk 2"`, `"the reference"`), the key
 * that identifies the question asked (judge, step, input, attempt), and the reply, parsed and
 * checked against the step's schema.
 */
export interface JudgmentStep {
  readonly step: string;
  readonly attempt: number;
  readonly about?: string;
  readonly key: string;
  readonly reply: Readonly<Record<string, unknown>>;
}

/** metric name → the steps it asked, in the order it used them. */
export type Judgments = Readonly<Record<string, readonly JudgmentStep[]>>;

/**
 * What the runner gives metrics that ask models, for one sample (`MetricInput.judging`): one
 * memo shared by the sample's metrics, the run's response cache, and where a metric keeps its
 * judgments. Judge metrics of `@fastrag/bench-metrics` use it; a third-party metric may too.
 */
export interface JudgingContext {
  /**
   * Answers `key` once per sample: the first call runs `ask`, later calls with the same key (from
   * any metric of the sample, at once or later) share its promise.
   */
  share<T>(key: string, ask: () => Promise<T>): Promise<T>;
  /** The run's response cache, when it has one (`RunOptions.cache`, `--cache`). */
  readonly cache?: Pick<ResponseCache, "get" | "set">;
  /** With the cache: ask again and overwrite what is stored (`RunOptions.refresh`). */
  readonly refresh?: boolean;
  /**
   * Reserves the next place in `metric`'s judgments (the sample's record, `judgments`) and returns
   * what fills it: call it when the step is asked, and the setter once its reply is in, so the
   * steps are kept in the order the metric asked them whatever order the replies come in. A
   * place never filled (the step failed) is left out.
   */
  keep(metric: string): (step: JudgmentStep) => void;
  /**
   * Replies kept by an earlier scoring of this same output (a rescore of a result with
   * `judgments`), by step key: a step found here is answered with no model call.
   */
  readonly kept?: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
}

/** A run's shared rate limiter, for model calls made inside metrics (judges, embedders). */
export interface CallLimiter {
  /** Runs `call` when the run's budget allows; a rate-limited call (HTTP 429 or a `retryAfterMs`) waits and runs again. */
  run<T>(
    call: () => Promise<T>,
    options?: {
      readonly signal?: AbortSignal;
      readonly estimatedTokens?: number;
      readonly usage?: (value: T) => Usage | undefined;
    },
  ): Promise<T>;
}

/**
 * The extension point. A metric scores one sample.
 *
 * Return `null` when the metric does not apply to the sample (no relevant ids, no gold answer, no
 * answer from a Retriever, no usage reported): never 0, and not a failure, so the sample can still
 * be `successful`. When it should apply but cannot be computed (an unparsable judge reply, a
 * timeout), throw, ideally a `MetricUnavailableError` with the reason: the runner records `null`,
 * the message, and marks the sample `incomplete`. Non-finite numbers are recorded the same way,
 * never as NaN.
 *
 * @example
 * ```ts
 * const answerLength: Metric = {
 *   name: "answer_chars",
 *   higherIsBetter: false,
 *   needsRelevantIds: false,
 *   needsAnswer: true,
 *   score: ({ answer }) => (answer === null ? null : answer.length),
 * };
 * ```
 */
export interface Metric<M extends Metadata = Metadata> {
  /** Unique within a Benchmark, e.g. `"recall@5"`. It is the key in result files. */
  readonly name: string;
  readonly higherIsBetter: boolean;
  /** True when the metric can only score samples that have relevant ids. */
  readonly needsRelevantIds: boolean;
  /** True when the metric needs an answer: a bare Retriever target is then a ConfigurationError. */
  readonly needsAnswer: boolean;
  /**
   * True when the metric reads the retrieved chunks' `text` (a faithfulness judge, say). A saved
   * result keeps chunk text only when its run was asked to (`keepChunkText`), so
   * `BenchmarkResult.rescore` refuses such a metric on a result without it, before any work.
   */
  readonly needsChunkText?: boolean;
  /**
   * Which version of this contract the metric implements. Omitted means `"v1"`, the contract
   * above: one sample in, one number (or `null`) out. Later versions (batch scoring, scores with
   * details) will get a new value, and the runner will go on calling a `"v1"` or unversioned
   * metric exactly as it does today, so a third-party metric never breaks when the contract grows.
   */
  readonly specificationVersion?: MetricSpecificationVersion;
  score(input: MetricInput<M>): number | null | Promise<number | null>;
}

/** The versions of the {@link Metric} contract; today only `"v1"`. */
export type MetricSpecificationVersion = "v1";

/** Outcome of one sample. See the README for the exact semantics. */
export type SampleStatus = "successful" | "incomplete" | "errored";

/**
 * Usage summed over the model calls made by a sample's metrics (judges, embedders), as they
 * reported it through `MetricInput.reportUsage`. A field is absent when no call reported it.
 */
export interface JudgeUsage extends Usage {
  /** Number of reports, i.e. of model calls. */
  readonly calls: number;
}

/** One sample's record in a result. */
export interface SampleResult {
  readonly sampleId?: string;
  readonly question: string;
  readonly status: SampleStatus;
  /** metric name → score; `null` when not scorable, and for every metric of an errored sample. */
  readonly scores: Readonly<Record<string, number | null>>;
  readonly answer: string | null;
  readonly retrievedIds: readonly string[];
  /** The uri of each retrieved chunk, `null` where the chunk had none (aligned with ids). */
  readonly retrievedUris: readonly (string | null)[];
  /** Time of the pipeline call (the last attempt); `null` when it never completed. */
  readonly latencyMs: number | null;
  /** The pipeline's error (errored) or the metrics' reasons (incomplete); else `null`. */
  readonly error: string | null;
  /** Pipeline attempts made (more than 1 only with retries). */
  readonly attempts?: number;
  /**
   * The retrieved chunks as the target ranked them: `id`, `documentId`, `uri`, `score`, and
   * `text` only when the run kept chunk text (`keepChunkText`). `null` when a query engine returned
   * no `chunks` at all (its retrieval cannot be scored); absent in records read from format 1
   * (whose `retrievedIds`/`retrievedUris` are all they kept) and in errored samples.
   */
  readonly retrieved?: readonly RetrievedChunk[] | null;
  /** The target's usage for this sample, as it reported it (absent when it reported none). */
  readonly usage?: Usage;
  /** True when the target's output came from a response cache rather than a call. */
  readonly cached?: boolean;
  /** What the sample's metrics reported of their own model calls (absent when none did). */
  readonly judgeUsage?: JudgeUsage;
  /** What the sample's judge metrics asked and were told, by metric (absent when none kept any). */
  readonly judgments?: Judgments;
  /** The dataset sample's gold answers, kept so that a result alone shows why a sample failed. */
  readonly expectedAnswers?: readonly string[];
  /** The dataset sample's relevant ids. */
  readonly relevantIds?: readonly string[];
  /** The dataset sample's graded relevance, when it has one. */
  readonly relevance?: Readonly<Record<string, number>>;
  /** The dataset sample's metadata, when it has some: results can be sliced by a field of it. */
  readonly metadata?: Metadata;
  /** The stack of the pipeline's error (errored samples whose error had one). */
  readonly errorStack?: string;
  /**
   * With `trials: n` (n > 1): each trial's own record, in trial order. The sample's `scores` are
   * then each metric's mean over the trials where it was not `null`; see {@link SampleTrial}.
   */
  readonly trials?: readonly SampleTrial[];
}

/**
 * One trial of a sample run with `trials: n` (n > 1): an independent call of the target, with its
 * own attempts (retries stay inside a trial), status, scores and output. The dataset sample's
 * fields (question, id, gold answers, metadata) are its sample's.
 */
export type SampleTrial = Pick<
  SampleResult,
  | "status"
  | "scores"
  | "answer"
  | "retrievedIds"
  | "retrievedUris"
  | "latencyMs"
  | "error"
  | "attempts"
  | "retrieved"
  | "usage"
  | "cached"
  | "judgeUsage"
  | "judgments"
  | "errorStack"
>;

/** How many samples ended in each status. Never collapsed. */
export interface StatusCounts {
  readonly successful: number;
  readonly errored: number;
  readonly incomplete: number;
}

/**
 * Summary of one metric's non-null scores. With no scores, `count` is 0 and every statistic is
 * `null` (never 0). `std` is the population standard deviation (ddof = 0, numpy's default);
 * percentiles interpolate linearly between closest ranks (numpy's default).
 */
export interface DistributionSummary {
  readonly count: number;
  readonly mean: number | null;
  readonly std: number | null;
  readonly min: number | null;
  readonly p50: number | null;
  readonly p90: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
  readonly max: number | null;
  /**
   * Only in results run with `trials: n` (n > 1): the metric's nondeterminism, the mean over
   * samples of the standard deviation of its scores across a sample's trials (sample standard
   * deviation, ddof = 1, over the trials where it was not `null`; samples with fewer than two such
   * trials are left out). `null` when no sample has two. Absent from results without trials.
   */
  readonly trial_std?: number | null;
}

/** The statistics of a {@link DistributionSummary} that can be tabulated or checked. */
export type SummaryStat = keyof DistributionSummary;

/** Every {@link SummaryStat}, in table order. */
export const SUMMARY_STATS: readonly SummaryStat[] = [
  "count",
  "mean",
  "std",
  "min",
  "p50",
  "p90",
  "p95",
  "p99",
  "max",
  "trial_std",
];

/** Progress of a run, reported after every finished sample. */
export interface Progress {
  readonly done: number;
  readonly total: number;
  readonly errored: number;
  readonly incomplete: number;
  /**
   * With `rateLimit`: the concurrency in force (it moves with `adaptive`), and how many calls
   * were rate-limited so far (each waited and ran again). Absent without `rateLimit`.
   */
  readonly concurrency?: number;
  readonly rateLimited?: number;
  /**
   * With `trials: n` (n > 1): trials finished so far, and in all (samples × n). `done`, `errored`
   * and `incomplete` count samples, a sample being done once all its trials are. Absent otherwise.
   */
  readonly trialsDone?: number;
  readonly trialsTotal?: number;
}
