/**
 * `@fastrag/bench-metrics/kit`: what the built-in metrics use to check their options and read a
 * ranking, for authors of their own metrics. Checks that throw start with `expect`: each returns
 * the value once it is as documented, and otherwise throws a `ConfigurationError` whose message
 * names the metric, the option, what was expected and what was found, as the built-ins' do.
 *
 * @example
 * ```ts
 * import { expectCutoff, expectOptions, rankMetric } from "@fastrag/bench-metrics/kit";
 *
 * // Success@k as a rank metric: 1 when a relevant id is in the first k ranks.
 * function successAt(options: { k: number }) {
 *   const o = expectOptions("SuccessAt", options, { required: true, known: ["k"] });
 *   const k = expectCutoff("SuccessAt", o.k);
 *   return rankMetric({
 *     metric: "SuccessAt",
 *     name: `success@${k}`,
 *     k,
 *     kernel: ({ relevant, length, k }) => {
 *       for (let i = 0; i < Math.min(length, k); i++) if (relevant[i] === 1) return 1;
 *       return 0;
 *     },
 *   });
 * }
 * ```
 *
 * @packageDocumentation
 */
import type { Metric, MetricInput } from "@fastrag/bench-core";
import { expectRetrievalInput } from "./internal/input.js";
import { type MatchLevel, rankedOf, rankingIds, relevantCountOf } from "./internal/judgments.js";
import {
  cutoff,
  functionOption,
  matchLevel,
  metricName,
  optionsObject,
  timeoutOption,
} from "./internal/options.js";

export type { MatchLevel } from "./internal/judgments.js";

/**
 * A metric's options argument: `{}` when it may be omitted and is, else the object itself.
 * With `known`, an option of another name is refused (a misspelled `levl` would otherwise leave
 * the default in force without a word).
 *
 * @throws {ConfigurationError} when the options are missing but required, not an object, or
 * hold an unknown option.
 */
export function expectOptions(
  metric: string,
  options: unknown,
  how: { readonly required?: boolean; readonly known?: readonly string[] } = {},
): Readonly<Record<string, unknown>> {
  return optionsObject(metric, options, how.required ?? false, how.known) as Readonly<
    Record<string, unknown>
  >;
}

/**
 * A cutoff `k`: a positive safe integer.
 *
 * @throws {ConfigurationError} otherwise.
 */
export function expectCutoff(metric: string, k: unknown): number {
  return cutoff(metric, k);
}

/**
 * The match level: `"chunk"` (also for `undefined`) or `"document"`.
 *
 * @throws {ConfigurationError} for anything else.
 */
export function expectMatchLevel(metric: string, level: unknown): MatchLevel {
  return matchLevel(metric, level);
}

/**
 * The caller's name for the metric (a non-empty string), or `fallback` when none is given.
 *
 * @throws {ConfigurationError} for a name that is not a non-empty string.
 */
export function expectMetricName(metric: string, name: unknown, fallback: string): string {
  return metricName(metric, name, fallback);
}

/**
 * A required function option (a judge, an embedder).
 *
 * @throws {ConfigurationError} when `value` is not a function.
 */
export function expectFunctionOption<F>(metric: string, option: string, value: unknown): F {
  return functionOption<F>(metric, option, value);
}

/**
 * An optional `timeoutMs`: `undefined`, or a positive number of milliseconds no longer than the
 * longest `setTimeout` delay (2147483647).
 *
 * @throws {ConfigurationError} otherwise.
 */
export function expectTimeoutMs(metric: string, value: unknown): number | undefined {
  return timeoutOption(metric, value);
}

/**
 * The ids of a sample's ranking at one match level, in the order returned, each once at its first
 * rank: chunk ids, or at `"document"` level the chunks' `documentId`s (a document ranks where its
 * first chunk does). A new array.
 *
 * @throws {MetricUnavailableError} at document level when a chunk has no `documentId`.
 * @throws {ConfigurationError} when a chunk is malformed (not an object, or an id not a string).
 */
export function idsAtLevel(
  input: MetricInput,
  level: MatchLevel,
  metric: string,
): readonly string[] {
  expectRetrievalInput(metric, input);
  return rankingIds(input, level, metric);
}

/**
 * What a rank kernel sees of one sample. `relevant` is a buffer reused from sample to sample:
 * read its first `length` entries during the call and never keep it.
 */
export interface RankKernelInput {
  /** 1 where the id at that rank (0-based) is relevant, else 0; first `length` entries only. */
  readonly relevant: Uint8Array;
  /** The number of distinct ranked ids. */
  readonly length: number;
  /** R, the number of distinct relevant ids (at least 1: a sample with none scores `null`). */
  readonly relevantCount: number;
  /** The cutoff; `Infinity` when the metric has none. */
  readonly k: number;
}

/** What {@link rankMetric} builds a metric from. */
export interface RankMetricSpec {
  /** The metric's class-like name, for messages (`"SuccessAt"`). */
  readonly metric: string;
  /** The metric's name in results (`"success@5"`). */
  readonly name: string;
  /** The cutoff, if any. */
  readonly k?: number;
  /** The match level; `"chunk"` by default. */
  readonly level?: MatchLevel;
  /** Whether higher scores are better; `true` by default. */
  readonly higherIsBetter?: boolean;
  /** The score of one sample's ranking. A pure function of its input. */
  readonly kernel: (input: RankKernelInput) => number;
}

/**
 * A retrieval metric from a kernel over relevant flags, as the built-in `Recall`, `Precision`,
 * `HitRate`, `MRR`, `MAP` and `RPrecision` are: the input is checked, a sample without relevant
 * ids scores `null`, the ranking is de-duplicated (each id at its first rank) at the chosen level,
 * and the kernel scores the flags.
 *
 * @throws {ConfigurationError} when `spec.k` is given but not a positive integer, `spec.level`
 * is unknown, `spec.name` is not a non-empty string, or `spec.kernel` is not a function.
 */
export function rankMetric(spec: RankMetricSpec): Metric {
  const metric = spec.metric;
  const k = spec.k === undefined ? Number.POSITIVE_INFINITY : cutoff(metric, spec.k);
  const level = matchLevel(metric, spec.level);
  const name = metricName(metric, spec.name, "");
  const kernel = functionOption<RankMetricSpec["kernel"]>(metric, "kernel", spec.kernel);
  return {
    name,
    higherIsBetter: spec.higherIsBetter ?? true,
    needsRelevantIds: true,
    needsAnswer: false,
    specificationVersion: "v1",
    score(input: MetricInput): number | null {
      expectRetrievalInput(metric, input);
      const r = relevantCountOf(input, metric);
      if (r === 0) return null;
      const ranked = rankedOf(input, level, metric);
      return kernel({ relevant: ranked.relevant, length: ranked.length, relevantCount: r, k });
    },
  };
}
