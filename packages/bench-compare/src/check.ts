import { type BenchmarkResult, ConfigurationError, type SummaryStat } from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";
import { formatNumber } from "./internal/format.js";
import { own } from "./internal/own.js";
import { roundingSlack } from "./internal/rounding.js";
import { expectResult, expectStat } from "./internal/validate.js";

/** A bound on one statistic of one metric. At least one of `min` and `max`. */
export interface Threshold {
  /** Default `"mean"`. */
  readonly stat?: SummaryStat;
  /** Fails when the value is below it. */
  readonly min?: number;
  /** Fails when the value is above it. */
  readonly max?: number;
}

/** metric name → bound, e.g. `{ "recall@5": { min: 0.8 }, latency_ms: { stat: "p95", max: 1200 } }`. */
export type Thresholds = Readonly<Record<string, Threshold>>;

/** One failed bound. */
export interface CheckFailure {
  readonly metric: string;
  readonly stat: SummaryStat;
  /** The value found; `null` when the run lacks the metric or has no scores for it. */
  readonly value: number | null;
  /** The bound that failed (for `missing`, the min if any, else the max). */
  readonly bound: number;
  /** `min`: below the minimum; `max`: above the maximum; `missing`: no value to check. */
  readonly kind: "min" | "max" | "missing";
  /** A one-line explanation for logs and CI output. */
  readonly message: string;
}

/**
 * Checks a result against thresholds, for CI gates. Returns every failure (an empty list means
 * pass), never only the first. A metric the result lacks, or whose statistic is `null` (no
 * scores), is a failure: a gate that cannot be evaluated must not pass.
 *
 * A value within 1e-12 × |bound| of its bound (or 1e-12 of the largest |score|, when that is
 * larger) counts as equal to it, so a mean that is exactly the bound but for floating-point
 * rounding passes: the same "equal up to rounding" as the paired tests and `diff()`. Messages
 * give as many decimals as it takes to tell the value from the bound.
 *
 * Metrics are looked up as the result's own entries only: a threshold on `toString` or
 * `constructor` is a missing metric, never a member of `Object.prototype`.
 *
 * @throws {ConfigurationError} when a threshold is malformed: no `min` or `max`, a non-finite
 * bound, `min > max`, an unknown `stat`, or a key other than `min`, `max` and `stat`; or when `thresholds` is not a plain object.
 * @example
 * ```ts
 * const failures = check(result, {
 *   "recall@5": { min: 0.8 },
 *   latency_ms: { stat: "p95", max: 1200 },
 * });
 * if (failures.length > 0) process.exitCode = 1;
 * ```
 */
export function check(result: BenchmarkResult, thresholds: Thresholds): CheckFailure[] {
  expectResult(result, "check: result");
  if (thresholds === null || typeof thresholds !== "object" || Array.isArray(thresholds)) {
    throw new ConfigurationError(
      `check: expected thresholds as { metric: { min?, max?, stat? } }, found ${describeValue(thresholds)}`,
      { kind: "invalid-option", option: "thresholds" },
    );
  }
  const proto = Object.getPrototypeOf(thresholds);
  if (proto !== Object.prototype && proto !== null) {
    // `{ __proto__: { min: 0.5 } }` sets the prototype and leaves no threshold: refuse it.
    throw new ConfigurationError(
      'check: expected thresholds as a plain object, found one with a custom prototype (in an object literal, `__proto__: {…}` sets the prototype; write `["__proto__"]: {…}` for a metric of that name)',
      { kind: "invalid-option", option: "thresholds" },
    );
  }
  const failures: CheckFailure[] = [];
  for (const [metric, t] of Object.entries(thresholds)) {
    const where = `check: threshold "${metric}"`;
    if (t === null || typeof t !== "object") {
      throw new ConfigurationError(
        `${where}: expected { min?, max?, stat? }, found ${describeValue(t)}`,
        { kind: "invalid-option", option: "thresholds" },
      );
    }
    for (const key of Object.keys(t)) {
      // A misspelled `stat` would quietly gate the mean instead: refuse it.
      if (key !== "stat" && key !== "min" && key !== "max") {
        throw new ConfigurationError(`${where}: unknown key "${key}"; expected min, max and stat`, {
          kind: "invalid-option",
          option: "thresholds",
          field: key,
        });
      }
    }
    const stat = expectStat(t.stat ?? "mean", `${where}: stat`);
    const min = expectBound(t.min, `${where}: min`);
    const max = expectBound(t.max, `${where}: max`);
    if (min === undefined && max === undefined) {
      throw new ConfigurationError(`${where}: expected a min or a max, found neither`, {
        kind: "invalid-option",
        option: "thresholds",
      });
    }
    if (min !== undefined && max !== undefined && min > max) {
      throw new ConfigurationError(`${where}: min ${min} is above max ${max}; nothing could pass`, {
        kind: "invalid-option",
        option: "thresholds",
      });
    }
    // Own properties only: a metric named "toString" must not find Object.prototype.toString.
    const summary = own(result.summary, metric);
    // `trial_std` is undefined in a run without trials: no value, never a pass.
    const found = summary === undefined ? null : summary[stat];
    const value = found ?? null;
    // The stat is always named, the mean too: "recall@5 mean = …".
    const label = `${metric} ${stat}`;
    if (value === null) {
      const why =
        summary === undefined
          ? `run "${result.name}" has no metric "${metric}" (it has ${
              Object.keys(result.summary)
                .map((m) => JSON.stringify(m))
                .join(", ") || "none"
            })`
          : found === undefined
            ? `run "${result.name}" was run without trials, so it has no ${stat} (run it with trials: n > 1, e.g. \`run --trials 5\`)`
            : `run "${result.name}" has no scores for "${metric}"`;
      failures.push({
        metric,
        stat,
        value: null,
        bound: (min ?? max) as number,
        kind: "missing",
        message: `${label}: ${why}, so the threshold cannot pass`,
      });
      continue;
    }
    // The rounding a statistic can carry grows with the magnitude of the scores it comes from.
    const scale = Math.max(Math.abs(summary?.min ?? 0), Math.abs(summary?.max ?? 0));
    if (min !== undefined && value < min - equalitySlack(min, scale)) {
      const [v, b] = formatPair(value, min);
      failures.push({
        metric,
        stat,
        value,
        bound: min,
        kind: "min",
        message: `${label} = ${v} is below the minimum ${b}`,
      });
    }
    if (max !== undefined && value > max + equalitySlack(max, scale)) {
      const [v, b] = formatPair(value, max);
      failures.push({
        metric,
        stat,
        value,
        bound: max,
        kind: "max",
        message: `${label} = ${v} is above the maximum ${b}`,
      });
    }
  }
  return failures;
}

function expectBound(v: unknown, where: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v)) {
    throw new ConfigurationError(`${where}: expected a finite number, found ${describeValue(v)}`, {
      kind: "invalid-option",
      option: "thresholds",
    });
  }
  return v;
}

/**
 * How far a value may fall past a bound and still count as equal to it: 1e-12 of the bound, or of
 * the largest score when that is larger (the shared notion of "equal up to rounding", see
 * `internal/rounding.ts`). A mean that is mathematically the bound can come out an ulp or two
 * beside it (0, 0 and 0.3 average to 0.09999999999999999; -0.1, -0.2 and 0.3 to -1.85e-17); any
 * real difference between two scores is far larger.
 */
function equalitySlack(bound: number, scale: number): number {
  return roundingSlack(Math.max(Math.abs(bound), scale));
}

/**
 * The value and the bound as text, with as many decimals as it takes to tell them apart: never
 * "0.8000 is below the minimum 0.8000", nor "1.0000 is below the minimum 1". An integer prints
 * as one.
 */
function formatPair(value: number, bound: number): [string, string] {
  for (let decimals = 4; decimals <= 17; decimals++) {
    const v = formatNumber(value, decimals);
    const b = formatNumber(bound, decimals);
    if (v !== b) {
      return [
        Number.isInteger(value) ? String(value) : v,
        Number.isInteger(bound) ? String(bound) : b,
      ];
    }
  }
  return [String(value), String(bound)];
}
