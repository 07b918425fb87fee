// `run`'s flags: their types, parsed and checked, and where they override the config's settings.
import type { RateLimitOptions, ShardSpec } from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";
import { UsageError } from "../../internal/io.js";
import { printable } from "../../internal/printable.js";

/** `run`'s flags as commander hands them over (see `command.ts`). */
export interface RunCommandOptions {
  readonly shard?: string;
  readonly outDir?: string;
  readonly fresh?: boolean;
  readonly retryErrored?: boolean;
  /** Use the response cache at `<outDir>/.cache/` (also `cache: true` in the config). */
  readonly cache?: boolean;
  /** Call every target again and overwrite the cache (implies `cache`). */
  readonly refresh?: boolean;
  readonly continueWithoutJournal?: boolean;
  readonly keepChunkText?: boolean;
  /** `--rpm`: requests per minute (overrides the config's `rateLimit.requestsPerMinute`). */
  readonly rpm?: string;
  /** `--tpm`: tokens per minute (overrides the config's `rateLimit.tokensPerMinute`). */
  readonly tpm?: string;
  /** `--adaptive`: adaptive concurrency (sets the config's `rateLimit.adaptive`). */
  readonly adaptive?: boolean;
  /** `--max-errored`: exit 1 when a target errored on more samples than this. */
  readonly maxErrored?: string;
  /** `--verbose`: every sample error in full, with its stack when the result keeps one. */
  readonly verbose?: boolean;
  /** `--trials <n>`: runs of every sample (overrides the config's `trials`). */
  readonly trials?: string;
  /** `--only`: the targets to run (each a name of the config's), in the config's order. */
  readonly only?: readonly string[];
  /** `--limit`: run only the first n samples (a smoke test, saved apart). */
  readonly limit?: string;
  /** `--force`: resume a journal written under another version of the config. */
  readonly force?: boolean;
  /** `--warmup`: call each target once before timing it (also `warmup: true` in the config). */
  readonly warmup?: boolean;
}

/** Parses `--limit 20`: a positive whole number of samples. */
export function parseSampleLimit(value: string): number {
  const n = Number(value.trim());
  if (value.trim() === "" || !Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(
      `--limit "${value}": expected a positive whole number of samples, e.g. --limit 20`,
      { option: "--limit" },
    );
  }
  return n;
}

/**
 * `--only`: the named targets, in the config's order; `undefined` without the flag.
 *
 * @throws {UsageError} (option `--only`) for a name the config does not have, listing its names.
 */
export function selectTargets(
  names: readonly string[],
  only: readonly string[] | undefined,
): string[] | undefined {
  if (only === undefined || only.length === 0) return undefined;
  const unknown = only.filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    throw new UsageError(
      `--only ${unknown.map((n) => JSON.stringify(printable(n))).join(", ")}: the config has no such target; its targets are ${names.map((n) => JSON.stringify(printable(n))).join(", ")}`,
      { option: "--only" },
    );
  }
  return names.filter((name) => only.includes(name));
}

/** Parses `--shard 2/8` (1-based, as people count) into `{ index: 1, count: 8 }`. */
export function parseShard(spec: string): ShardSpec {
  const m = /^(\d+)\/(\d+)$/.exec(spec.trim());
  const n = m ? Number(m[1]) : Number.NaN;
  const count = m ? Number(m[2]) : Number.NaN;
  if (!m || count < 1 || n < 1 || n > count) {
    throw new UsageError(
      `--shard "${spec}": expected N/COUNT with 1 ≤ N ≤ COUNT, e.g. --shard 2/8`,
      { option: "--shard" },
    );
  }
  return { index: n - 1, count };
}

/**
 * Refuses flags that contradict each other: `--fresh` with `--force`.
 *
 * @throws {UsageError} (option `--force`).
 */
export function expectFlagConflicts(options: RunCommandOptions): void {
  if (options.fresh && options.force) {
    throw new UsageError(
      "--fresh and --force contradict each other: --fresh discards the journal, --force resumes from it; pass one",
      { option: "--force" },
    );
  }
}

/** The run's `rateLimit`: the config's, with `--rpm`, `--tpm` and `--adaptive` over it. */
export function resolveRateLimit(
  configPath: string,
  configured: unknown,
  options: RunCommandOptions,
): RateLimitOptions | undefined {
  const rpm = options.rpm === undefined ? undefined : parsePerMinute("--rpm", options.rpm);
  const tpm = options.tpm === undefined ? undefined : parsePerMinute("--tpm", options.tpm);
  if (configured !== undefined && (typeof configured !== "object" || configured === null)) {
    throw new UsageError(
      `${configPath}: rateLimit must be { requestsPerMinute?, tokensPerMinute?, adaptive?, isRateLimit?, maxWaits? }, found ${describeValue(configured)}`,
      { option: "rateLimit", path: configPath },
    );
  }
  if (configured === undefined && rpm === undefined && tpm === undefined && !options.adaptive) {
    return undefined;
  }
  return {
    ...(configured as RateLimitOptions | undefined),
    ...(rpm !== undefined ? { requestsPerMinute: rpm } : {}),
    ...(tpm !== undefined ? { tokensPerMinute: tpm } : {}),
    ...(options.adaptive ? { adaptive: true } : {}),
  };
}

/**
 * The run's trials per sample: `--trials`, else the config's `trials`, else 1; a positive
 * integer, refused in the flag's or the config's terms before anything runs.
 */
export function resolveTrials(
  configPath: string,
  configured: unknown,
  flag: string | undefined,
): number {
  if (flag !== undefined) {
    const n = /^\s*\d+\s*$/.test(flag) ? Number(flag) : Number.NaN;
    if (!(Number.isSafeInteger(n) && n >= 1)) {
      throw new UsageError(
        `--trials "${flag}": expected a positive integer (runs of every sample), e.g. --trials 5`,
        { option: "--trials" },
      );
    }
    return n;
  }
  if (configured === undefined) return 1;
  if (!(Number.isSafeInteger(configured) && (configured as number) >= 1)) {
    throw new UsageError(
      `${configPath}: trials must be a positive integer (runs of every sample), found ${describeValue(configured)}`,
      { option: "trials", path: configPath },
    );
  }
  return configured as number;
}

/** `--rpm 500`, `--tpm 90000`: a positive number per minute. */
export function parsePerMinute(flag: string, value: string): number {
  const n = Number(value.trim());
  if (value.trim() === "" || !Number.isFinite(n) || n <= 0) {
    throw new UsageError(
      `${flag} "${value}": expected a positive number per minute, e.g. ${flag} 500`,
      { option: flag },
    );
  }
  return n;
}
