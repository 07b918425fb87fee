import { type BenchmarkResult, ConfigurationError } from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";
import { runLabel } from "./internal/labels.js";
import { hasOwn } from "./internal/own.js";
import { equalUpToRounding } from "./internal/rounding.js";
import { expectInteger, expectOpenUnit, expectSeed } from "./internal/validate.js";
import { pairedTTest } from "./paired-t-test.js";
import { type PairingKey, pairedScores, type SamplePairing } from "./pairing.js";
import { DEFAULT_PERMUTATIONS, MAX_PERMUTATIONS, randomizationTest } from "./randomization-test.js";

/** The paired tests a comparison can run. */
export type SignificanceTest = "randomization" | "t-test";

/** Options of a paired test between runs. */
export interface TestOptions {
  /** Default `"randomization"`. */
  readonly test?: SignificanceTest;
  /** Significance level: a difference counts when p < alpha. Default 0.05. */
  readonly alpha?: number;
  /** Randomization test only: an integer in [1, 10⁸]. Default 10,000. */
  readonly permutations?: number;
  /** Randomization test only; every test reuses it, so each p is reproducible alone. Default 0. */
  readonly seed?: number;
}

/** One paired test of a run against another on one metric. */
export interface PairedComparison {
  /** The run tested, its index in the comparison and its label (a, b, c…). */
  readonly run: string;
  readonly index: number;
  readonly label: string;
  /** The run it is tested against. */
  readonly baseline: string;
  readonly baselineIndex: number;
  readonly baselineLabel: string;
  readonly metric: string;
  readonly higherIsBetter: boolean;
  readonly test: SignificanceTest;
  /** Two-sided p-value; `null` when the test could not run (see `reason`). */
  readonly p: number | null;
  /**
   * Effect: mean over the pairs of `run − baseline` (exactly 0 for the same scores however
   * paired, see `pairedTTest`); `null` when there are no pairs.
   */
  readonly meanDiff: number | null;
  /** t statistic and degrees of freedom (t-test only). */
  readonly t?: number;
  readonly df?: number;
  /** Pairs used. */
  readonly n: number;
  /** Pairs left out because either side errored or scored `null`. */
  readonly leftOut: number;
  readonly pairedBy: PairingKey | null;
  /** `p < alpha`. */
  readonly significant: boolean;
  /**
   * Which side is significantly better in the metric's own direction: `"run"`, `"baseline"`, or
   * `null` when the difference is not significant.
   */
  readonly better: "run" | "baseline" | null;
  /** Why `p` is null: a metric missing from a run, or too few pairs. */
  readonly reason?: string;
}

/** Options after validation and defaults. @internal */
export interface ResolvedTestOptions {
  readonly test: SignificanceTest;
  readonly alpha: number;
  readonly permutations: number;
  readonly seed: number;
}

/**
 * The test options with their defaults, checked.
 *
 * @throws {ConfigurationError} for an unknown test, or an alpha, permutation count or seed out of
 * range; the message starts with `where`. @internal
 */
export function expectTestOptions(options: TestOptions, where: string): ResolvedTestOptions {
  const test = options.test ?? "randomization";
  if (test !== "randomization" && test !== "t-test") {
    throw new ConfigurationError(
      `${where}: test: expected "randomization" or "t-test", found ${describeValue(test)}`,
      { kind: "invalid-option", option: "test" },
    );
  }
  return {
    test,
    alpha: expectOpenUnit(options.alpha ?? 0.05, `${where}: alpha`, "alpha"),
    permutations: expectInteger(
      options.permutations ?? DEFAULT_PERMUTATIONS,
      `${where}: permutations`,
      1,
      MAX_PERMUTATIONS,
      "permutations",
    ),
    seed: expectSeed(options.seed ?? 0, `${where}: seed`, "seed"),
  };
}

/** Runs one paired test of `run` against `baseline` on `metric`. @internal */
export function testPair(
  results: readonly BenchmarkResult[],
  index: number,
  baselineIndex: number,
  metric: string,
  higherIsBetter: boolean,
  pairing: SamplePairing,
  options: ResolvedTestOptions,
): PairedComparison {
  const run = results[index] as BenchmarkResult;
  const base = results[baselineIndex] as BenchmarkResult;
  const head = {
    run: run.name,
    index,
    label: runLabel(index),
    baseline: base.name,
    baselineIndex,
    baselineLabel: runLabel(baselineIndex),
    metric,
    higherIsBetter,
    test: options.test,
  };
  const missing = !hasOwn(run.higherIsBetter, metric)
    ? run
    : !hasOwn(base.higherIsBetter, metric)
      ? base
      : undefined;
  if (missing !== undefined) {
    return {
      ...head,
      p: null,
      meanDiff: null,
      n: 0,
      leftOut: 0,
      pairedBy: pairing.key,
      significant: false,
      better: null,
      reason: `run "${missing.name}" has no metric "${metric}"`,
    };
  }
  const scores = pairedScores(run, base, metric, pairing);
  const n = scores.a.length;
  const needed = options.test === "t-test" ? 2 : 1;
  if (n < needed) {
    return {
      ...head,
      p: null,
      meanDiff: n === 0 ? null : pairDifference(scores.a[0] as number, scores.b[0] as number),
      n,
      leftOut: scores.leftOut,
      pairedBy: pairing.key,
      significant: false,
      better: null,
      reason: `${n} scored pair(s), the ${options.test} test needs at least ${needed}`,
    };
  }
  let p: number;
  let meanDiff: number;
  let extra: { t?: number; df?: number } = {};
  if (options.test === "t-test") {
    const r = pairedTTest(scores.a, scores.b);
    p = r.p;
    meanDiff = r.meanDiff;
    extra = { t: r.t, df: r.df };
  } else {
    const r = randomizationTest(scores.a, scores.b, {
      permutations: options.permutations,
      seed: options.seed,
    });
    p = r.p;
    meanDiff = r.meanDiff;
  }
  const significant = p < options.alpha && meanDiff !== 0;
  const runBetter = higherIsBetter ? meanDiff > 0 : meanDiff < 0;
  return {
    ...head,
    p,
    meanDiff,
    ...extra,
    n,
    leftOut: scores.leftOut,
    pairedBy: pairing.key,
    significant,
    better: significant ? (runBetter ? "run" : "baseline") : null,
  };
}

/** `a − b`, or 0 when that is only rounding noise, as the paired tests count it. */
function pairDifference(a: number, b: number): number {
  return equalUpToRounding(a, b) ? 0 : a - b;
}
