// The `Benchmark`s a run uses: one with the config's metrics, and, in a config with a QueryEngine,
// one without the metrics that need an answer for its Retrievers.
import {
  Benchmark,
  ConfigurationError,
  type DatasetLike,
  type Metric,
  type RateLimitOptions,
} from "@fastrag/bench-core";
import { expectRateLimit } from "@fastrag/bench-core/internal";
import { expectTarget, targetKindOf } from "../../config/check.js";
import type { BenchConfig } from "../../config/define-config.js";
import { UsageError } from "../../internal/io.js";
import type { RunCommandOptions } from "./options.js";

/** What every `Benchmark` of a run shares besides its metrics. */
export interface RunSettings {
  readonly dataset: DatasetLike;
  readonly maxConcurrent: number | undefined;
  readonly rateLimit: RateLimitOptions | undefined;
  readonly trials: number;
}

/**
 * The run's `Benchmark` with the config's metrics. A `rateLimit` field it refuses is reported in
 * the terms of whoever set it: the flag (`--rpm`, `--tpm`, `--adaptive`) or the config.
 *
 * @throws {UsageError} for a bad `rateLimit` field, with the flag or field in `option`.
 */
export function createRunBenchmark(
  configPath: string,
  metrics: BenchConfig["metrics"],
  settings: RunSettings,
  options: RunCommandOptions,
): Benchmark {
  // A field a flag set is the flag's: the error names the flag (in `option` too).
  const flags: Record<string, string | undefined> = {
    requestsPerMinute: options.rpm !== undefined ? "--rpm" : undefined,
    tokensPerMinute: options.tpm !== undefined ? "--tpm" : undefined,
    adaptive: options.adaptive ? "--adaptive" : undefined,
  };
  const flagOf = (field?: string) => (field === undefined ? undefined : flags[field]);
  try {
    expectRateLimit(settings.rateLimit, {
      where: (field) => flagOf(field) ?? configPath,
      label: (field) => flagOf(field) ?? (field === undefined ? "rateLimit" : `rateLimit.${field}`),
    });
  } catch (error) {
    if (!ConfigurationError.isInstance(error)) throw error;
    const field = error.option?.startsWith("rateLimit.") ? error.option.slice(10) : undefined;
    throw new UsageError(error.message, { option: flagOf(field) ?? (error.option as string) });
  }
  return createBenchmark(metrics, settings);
}

function createBenchmark(metrics: BenchConfig["metrics"], settings: RunSettings): Benchmark {
  return new Benchmark({
    dataset: settings.dataset,
    metrics,
    ...(settings.maxConcurrent !== undefined ? { maxConcurrent: settings.maxConcurrent } : {}),
    ...(settings.rateLimit !== undefined ? { rateLimit: settings.rateLimit } : {}),
    ...(settings.trials > 1 ? { trials: settings.trials } : {}),
  });
}

/** Each selected target's `Benchmark`, and the Retrievers scored without the answer metrics. */
export interface TargetBenchmarks {
  /** One per selected target, in their order. */
  readonly benchmarks: readonly Benchmark[];
  /** The metrics that need an answer, left out for `retrievers`. */
  readonly answerMetrics: readonly Metric[];
  /** The selected Retrievers scored without `answerMetrics` (empty when none is). */
  readonly retrievers: readonly string[];
}

/**
 * Every selected target's `Benchmark`, each target checked (see `expectTarget`) before the first
 * one runs: a bad last target must not cost the minutes (and API calls) of the ones before it
 * only to fail at the end.
 *
 * In a config with a QueryEngine, a Retriever target is scored without the metrics that need an
 * answer: they do not apply to it (its table cells read `—`), they are no failure of it. A config
 * of Retrievers alone with such a metric is still refused (nothing could score it). Decided over
 * every target, so that a target run alone (`--only`) is scored as in a run of them all.
 *
 * @throws {ConfigurationError} for a target `expectTarget` refuses.
 */
export function targetBenchmarks(
  path: string,
  config: BenchConfig,
  selected: readonly string[],
  benchmark: Benchmark,
  settings: RunSettings,
): TargetBenchmarks {
  const names = Object.keys(config.targets);
  const isEngine = (name: string) => targetKindOf(config.targets[name]) === "engine";
  const hasEngine = names.some(isEngine);
  const answerMetrics = benchmark.metrics.filter((m) => m.needsAnswer);
  let retrieverBenchmark: Benchmark | undefined;
  if (hasEngine && answerMetrics.length > 0) {
    const rest = config.metrics.filter((m) => !m.needsAnswer);
    if (rest.length > 0) retrieverBenchmark = createBenchmark(rest, settings);
  }
  const benchmarks = selected.map((name) =>
    retrieverBenchmark !== undefined && !isEngine(name) ? retrieverBenchmark : benchmark,
  );
  for (const [t, name] of selected.entries()) {
    expectTarget(path, name, config.targets[name], (benchmarks[t] as Benchmark).metrics);
  }
  const retrievers =
    retrieverBenchmark === undefined
      ? []
      : selected.filter((_, t) => benchmarks[t] === retrieverBenchmark);
  return { benchmarks, answerMetrics, retrievers };
}
