// A loaded config's settings and targets checked in the config's terms, before anything is made:
// the runner would refuse them only once a target starts, naming its own option
// (`Benchmark.run: …`), after the journal exists. Where core has the check (the timer bound, what
// a target is), it is core's that decides; only the words are the config's.
import { ConfigurationError, type Metric } from "@fastrag/bench-core";
import {
  describeValue,
  detectTarget,
  isTimeoutMs,
  MAX_TIMER_MS,
  type TargetKind,
} from "@fastrag/bench-core/internal";
import { UsageError } from "../internal/io.js";
import type { BenchConfig } from "./define-config.js";

/** The keys of {@link BenchConfig}. */
export const CONFIG_KEYS: readonly string[] = [
  "dataset",
  "metrics",
  "targets",
  "maxConcurrent",
  "outDir",
  "timeoutMs",
  "cache",
  "keepChunkText",
  "retries",
  "rateLimit",
  "trials",
  "warmup",
];

/**
 * Keys of a config that `run` does not read: a misspelled one (`maxConcurent`, `outdir`) leaves
 * its default in force, so each gets a warning. (Not an error: a config built by spreading a
 * shared object may carry keys of its own.)
 */
export function unknownConfigKeys(config: object): string[] {
  return Object.keys(config).filter((key) => !CONFIG_KEYS.includes(key));
}

/**
 * Checks the config's `warmup`: true, false or absent.
 *
 * @throws {UsageError} (option `warmup`) for anything else.
 */
export function expectWarmup(configPath: string, warmup: unknown): void {
  if (warmup !== undefined && typeof warmup !== "boolean") {
    throw new UsageError(
      `${configPath}: warmup must be true or false, found ${describeValue(warmup)}`,
      { option: "warmup", path: configPath },
    );
  }
}

/**
 * Checks the config's run settings, in this order: `keepChunkText`, `outDir`, `timeoutMs`,
 * `maxConcurrent`, `cache`, `retries`.
 *
 * @throws {UsageError} naming the config and (in `option`) the setting at fault.
 */
export function expectRunSettings(configPath: string, config: BenchConfig): void {
  if (config.keepChunkText !== undefined && typeof config.keepChunkText !== "boolean") {
    throw new UsageError(
      `${configPath}: keepChunkText must be true or false, found ${describeValue(config.keepChunkText)}`,
      { option: "keepChunkText", path: configPath },
    );
  }
  if (config.outDir !== undefined && typeof config.outDir !== "string") {
    throw new UsageError(
      `${configPath}: outDir must be a path (a string), found ${typeof config.outDir}`,
      { option: "outDir", path: configPath },
    );
  }
  const timeout: unknown = config.timeoutMs;
  if (timeout !== undefined && !isTimeoutMs(timeout)) {
    throw new UsageError(
      `${configPath}: timeoutMs must be a positive number of milliseconds (at most ${MAX_TIMER_MS}), found ${describeValue(timeout)}`,
      { option: "timeoutMs", path: configPath },
    );
  }
  const concurrent: unknown = config.maxConcurrent;
  if (
    concurrent !== undefined &&
    !(Number.isSafeInteger(concurrent) && (concurrent as number) >= 1)
  ) {
    throw new UsageError(
      `${configPath}: maxConcurrent must be a positive integer, found ${describeValue(concurrent)}`,
      { option: "maxConcurrent", path: configPath },
    );
  }
  const useCache: unknown = config.cache;
  if (useCache !== undefined && typeof useCache !== "boolean") {
    throw new UsageError(
      `${configPath}: cache must be true or false, found ${describeValue(useCache)}`,
      { option: "cache", path: configPath },
    );
  }
  expectRetries(configPath, config.retries);
}

/**
 * Checks a config's `retries` as `Benchmark.run` would, but naming the config, before anything is
 * made: `{ attempts, backoffMs?, maxBackoffMs?, retryOn }`.
 *
 * @throws {UsageError} naming the field at fault (`retries.attempts`) in `option`.
 */
export function expectRetries(configPath: string, retries: unknown): void {
  if (retries === undefined) return;
  const expected = "{ attempts, backoffMs?, maxBackoffMs?, retryOn }";
  if (typeof retries !== "object" || retries === null || Array.isArray(retries)) {
    throw new UsageError(
      `${configPath}: retries must be ${expected}, found ${describeValue(retries)}`,
      { option: "retries", path: configPath },
    );
  }
  const r = retries as Record<string, unknown>;
  for (const key of Object.keys(r)) {
    if (!["attempts", "backoffMs", "maxBackoffMs", "retryOn"].includes(key)) {
      throw new UsageError(
        `${configPath}: retries has an unknown field ${JSON.stringify(key)}; expected ${expected}`,
        { option: "retries", field: key, path: configPath },
      );
    }
  }
  if (!(Number.isSafeInteger(r.attempts) && (r.attempts as number) >= 1)) {
    throw new UsageError(
      `${configPath}: retries.attempts must be a positive integer (attempts per sample, the first included), found ${r.attempts === undefined ? "none" : describeValue(r.attempts)}`,
      { option: "retries.attempts", path: configPath },
    );
  }
  if (typeof r.retryOn !== "function") {
    throw new UsageError(
      `${configPath}: retries.retryOn must be a function (error) => boolean that marks transient errors, found ${r.retryOn === undefined ? "none" : describeValue(r.retryOn)}`,
      { option: "retries.retryOn", path: configPath },
    );
  }
  for (const key of ["backoffMs", "maxBackoffMs"]) {
    const v = r[key];
    if (v !== undefined && !(typeof v === "number" && Number.isFinite(v) && v >= 0)) {
      throw new UsageError(
        `${configPath}: retries.${key} must be a non-negative number of milliseconds, found ${describeValue(v)}`,
        { option: `retries.${key}`, path: configPath },
      );
    }
  }
}

/**
 * What a config's target is, as the runner decides it (core's `detectTarget`): `engine`,
 * `retriever`, or `undefined` for neither (the runner would refuse it).
 */
export function targetKindOf(target: unknown): TargetKind | undefined {
  try {
    return detectTarget(target);
  } catch (error) {
    if (ConfigurationError.isInstance(error) && error.kind === "unsupported-target")
      return undefined;
    throw error;
  }
}

/**
 * The checks `Benchmark.run` makes before any sample runs, made for every target of the config
 * up front and worded in its terms: a name, a usable `cacheKey`, a QueryEngine or a Retriever (as
 * core's `detectTarget` tells them), and no bare Retriever feeding a metric that needs an answer.
 *
 * @throws {ConfigurationError} naming the config and the target.
 */
export function expectTarget(
  path: string,
  name: string,
  target: unknown,
  metrics: readonly Pick<Metric, "name" | "needsAnswer">[],
): void {
  if (name.trim() === "") {
    throw new ConfigurationError(
      `${path}: a target has an empty name (${JSON.stringify(name)}); its result would have no name to compare by`,
      { kind: "invalid-option", option: "targets", path },
    );
  }
  const t =
    typeof target === "object" && target !== null ? (target as Record<string, unknown>) : {};
  if (t.cacheKey !== undefined && (typeof t.cacheKey !== "string" || t.cacheKey === "")) {
    throw new ConfigurationError(
      `${path}: target "${name}": cacheKey must be a non-empty string that names the pipeline's version in the response cache, found ${describeValue(t.cacheKey)}`,
      { kind: "invalid-option", option: `targets.${name}.cacheKey`, path },
    );
  }
  const kind = targetKindOf(target);
  if (kind === "engine") return;
  if (kind === undefined) {
    throw new ConfigurationError(
      `${path}: target "${name}" is neither a QueryEngine (an object with query(question, { signal, sample })) nor a Retriever (an object with retrieve(query, { signal, sample }))`,
      { kind: "unsupported-target", option: `targets.${name}`, path },
    );
  }
  const needy = metrics.filter((m) => m.needsAnswer).map((m) => m.name);
  if (needy.length > 0) {
    throw new ConfigurationError(
      `${path}: target "${name}" is a Retriever (it has retrieve() but no query()), and ${needy.join(", ")} ${needy.length === 1 ? "needs" : "need"} an answer. Make it a QueryEngine or drop ${needy.length === 1 ? "that metric" : "those metrics"}`,
      { kind: "unsupported-target", option: `targets.${name}`, path },
    );
  }
}
