import type {
  DatasetLike,
  Metadata,
  Metric,
  RateLimitOptions,
  RetryOptions,
  Target,
} from "@fastrag/bench-core";

/**
 * A dataset as a config gives it: a `QADataset` or an array of samples, a promise of either, or a
 * path that `QADataset.load` reads (relative to the config file).
 */
export type ConfigDataset<M extends Metadata = Metadata> =
  | DatasetLike<M>
  | PromiseLike<DatasetLike<M>>
  | string;

/** A value JSON holds as is: what a target's `params` may contain. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/**
 * A config's target: a `Retriever` or `QueryEngine`, which may declare `params`, the settings
 * that make it what it is (chunk size, model, top-k…). `run` records them in the target's result
 * (`params` in the file), so a result says which pipeline made it; they are not passed to the
 * target.
 *
 * @example
 * ```ts
 * targets: { "bm25-k5": { ...bm25, params: { k1: 1.2, b: 0.75, topK: 5 } } }
 * ```
 */
export type ConfigTarget<M extends Metadata = Metadata> = Target<M> & {
  readonly params?: { readonly [key: string]: JsonValue };
};

/** What a `fastrag-bench run` config file exports (as default export or as `config`). */
export interface BenchConfig<M extends Metadata = Metadata> {
  /** The dataset: a `QADataset`, a promise of one, or a path that `QADataset.load` reads. */
  readonly dataset: ConfigDataset<M>;
  readonly metrics: readonly Metric<M>[];
  /**
   * Run name → target. Every target runs, in this order (`run --only` picks some); the first is
   * the comparison's baseline. A target may declare `params` (see {@link ConfigTarget}).
   */
  readonly targets: Readonly<Record<string, ConfigTarget<M>>>;
  /** Default 4. */
  readonly maxConcurrent?: number;
  /** Where results go, relative to the config file. Default `"results"`. */
  readonly outDir?: string;
  /** Per-sample timeout of the pipeline call. */
  readonly timeoutMs?: number;
  /**
   * Keep the targets' outputs in the response cache at `<outDir>/.cache/` and answer from it
   * (as `run --cache`): a re-run calls a target only for samples it has not answered before.
   * Keys: the target's `cacheKey` (else its name) and the sample's id, question and metadata.
   */
  readonly cache?: boolean;
  /**
   * Keep each retrieved chunk's text in the results (`run --keep-chunk-text` does the same), so
   * that `fastrag-bench rescore` can later score them with a metric that reads it (Faithfulness).
   * Default `false`: chunk text can be most of a result's size.
   */
  readonly keepChunkText?: boolean;
  /**
   * Retries of errors `retryOn` marks transient, as `Benchmark.run`'s `retries`:
   * `{ attempts, backoffMs?, maxBackoffMs?, retryOn }`. Default: none.
   */
  readonly retries?: RetryOptions;
  /**
   * The run's rate limit, as `Benchmark`'s `rateLimit`: `{ requestsPerMinute?, tokensPerMinute?,
   * adaptive?, isRateLimit?, maxWaits? }`. `--rpm`, `--tpm` and `--adaptive` set or override its
   * fields.
   */
  readonly rateLimit?: RateLimitOptions;
  /**
   * Runs of every sample (`run --trials n` overrides it), each an independent call of the target:
   * a sample's scores are then its trials' means, and the summary adds `trial_std` per metric
   * (how much the pipeline's own noise moves each metric). Default 1.
   */
  readonly trials?: number;
  /**
   * Call each target once before its samples are timed (as `run --warmup`), so that the first
   * target does not pay alone for cold starts (connections, JIT, a model loading) and its latency
   * is not biased against the others. The warm-up call is neither recorded nor counted, and is
   * skipped when the response cache holds its answer. Under `rateLimit` it counts against the
   * budget: the samples start once what it used has come back. Default `false`: it
   * is one more model call per target, paid for, on every run.
   */
  readonly warmup?: boolean;
}

/**
 * Declares a benchmark config with full type inference. Identity at run time.
 *
 * Only `fastrag-bench run <config>` executes a config: it is code, and loading it runs it.
 * Loading datasets or results never evaluates code.
 *
 * @example
 * ```ts
 * // bench.config.ts
 * import { defineConfig } from "@fastrag/bench-cli";
 * import { Recall } from "@fastrag/bench-metrics/retrieval";
 *
 * export default defineConfig({
 *   dataset: "eval.jsonl", // relative to this file
 *   metrics: [new Recall({ k: 5 })],
 *   targets: { bm25: myBm25Retriever, hybrid: myHybridRetriever },
 * });
 * ```
 */
export function defineConfig<M extends Metadata = Metadata>(
  config: BenchConfig<M>,
): BenchConfig<M> {
  return config;
}
