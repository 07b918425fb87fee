import {
  type BenchmarkResult,
  ConfigurationError,
  SUMMARY_STATS,
  type SummaryStat,
} from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";

const STATS: ReadonlySet<string> = new Set(SUMMARY_STATS);

/** Validates a DistributionSummary field name. */
export function expectStat(stat: unknown, where: string, option?: string): SummaryStat {
  if (typeof stat !== "string" || !STATS.has(stat)) {
    throw new ConfigurationError(
      `${where}: expected a statistic (one of ${SUMMARY_STATS.join(", ")}), found ${describeValue(stat)}`,
      { kind: "invalid-option", ...(option === undefined ? {} : { option }) },
    );
  }
  return stat as SummaryStat;
}

/** Validates an integer option within [min, max]. */
export function expectInteger(
  value: unknown,
  where: string,
  min: number,
  max: number = Number.MAX_SAFE_INTEGER,
  option?: string,
): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigurationError(
      `${where}: expected an integer${max === Number.MAX_SAFE_INTEGER ? ` ≥ ${min}` : ` in [${min}, ${max}]`}, found ${describeValue(value)}`,
      { kind: "invalid-option", ...(option === undefined ? {} : { option }) },
    );
  }
  return value;
}

/** Validates a seed: any safe integer; only its low 32 bits are used. */
export function expectSeed(value: unknown, where: string, option?: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    throw new ConfigurationError(
      `${where}: expected an integer seed, found ${describeValue(value)}`,
      { kind: "invalid-option", ...(option === undefined ? {} : { option }) },
    );
  }
  return value >>> 0;
}

/** Validates a probability strictly between 0 and 1 (alpha, confidence level). */
export function expectOpenUnit(value: unknown, where: string, option?: string): number {
  if (typeof value !== "number" || !(value > 0 && value < 1)) {
    throw new ConfigurationError(
      `${where}: expected a number strictly between 0 and 1, found ${describeValue(value)}`,
      { kind: "invalid-option", ...(option === undefined ? {} : { option }) },
    );
  }
  return value;
}

/**
 * A sample of numbers as a Float64Array (copied unless it already is one), refusing non-finite entries (a NaN would make
 * every comparison false and a test silently "not significant").
 */
export function finiteArray(values: ArrayLike<number>, where: string): Float64Array {
  if (values === null || typeof values !== "object" || typeof values.length !== "number") {
    throw new ConfigurationError(
      `${where}: expected an array of numbers, found ${describeValue(values)}`,
      { kind: "invalid-input" },
    );
  }
  // A Float64Array is checked in place, not copied: callers only read it.
  const out = values instanceof Float64Array ? values : new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== "number" || !Number.isFinite(v)) {
      throw new ConfigurationError(
        `${where}[${i}]: expected a finite number, found ${describeValue(v)}`,
        { kind: "invalid-input" },
      );
    }
    out[i] = v;
  }
  return out;
}

/**
 * Validates an options argument: `undefined` is no options; anything but a plain object (`null`,
 * a number, an array) is refused, rather than read as no options or failing with a TypeError.
 */
export function expectOptions<T extends object>(value: T | undefined, where: string): T {
  if (value === undefined) return {} as T;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigurationError(
      `${where}: expected an options object, found ${describeValue(value)}`,
      { kind: "invalid-option" },
    );
  }
  return value;
}

/** Validates a list of metric names given as an option. */
export function expectNames(value: unknown, where: string, option?: string): readonly string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw new ConfigurationError(
      `${where}: expected an array of metric names, found ${describeValue(value)}`,
      { kind: "invalid-option", ...(option === undefined ? {} : { option }) },
    );
  }
  return value;
}

/** Whether a value looks like a `BenchmarkResult` (a name, samples, directions and summaries). */
export function isResult(value: unknown): value is BenchmarkResult {
  if (value === null || typeof value !== "object") return false;
  const r = value as Partial<BenchmarkResult>;
  return (
    typeof r.name === "string" &&
    (typeof r.sampleCount === "number" || Array.isArray(r.samples)) &&
    typeof r.higherIsBetter === "object" &&
    r.higherIsBetter !== null &&
    typeof r.summary === "object" &&
    r.summary !== null
  );
}

/** Validates a `BenchmarkResult` argument. */
export function expectResult(value: unknown, where: string): BenchmarkResult {
  if (!isResult(value)) {
    throw new ConfigurationError(
      `${where}: expected a BenchmarkResult, found ${describeValue(value)}`,
      { kind: "invalid-option" },
    );
  }
  return value;
}
