import type { ComparedRuns } from "./compared-runs.js";
import { type PairedComparison, type ResolvedTestOptions, testPair } from "./significance.js";

// Which pairs of runs a comparison tests: each run against the baseline (p-values, effects), and
// every other pair (the table's ranx-style marks). One test is `testPair` in significance.ts.

/**
 * Paired tests of every run against the baseline, per metric, in run order then metric order.
 * Metrics must be known to the runs.
 */
export function testAgainstBaseline(
  runs: ComparedRuns,
  baselineIndex: number,
  metrics: readonly string[],
  resolved: ResolvedTestOptions,
): PairedComparison[] {
  const out: PairedComparison[] = [];
  for (let i = 0; i < runs.results.length; i++) {
    if (i === baselineIndex) continue;
    const pairing = runs.pairing(i, baselineIndex);
    for (const metric of metrics) {
      const higher = runs.direction.get(metric) as boolean;
      out.push(testPair(runs.results, i, baselineIndex, metric, higher, pairing, resolved));
    }
  }
  return out;
}

/**
 * Paired tests of every pair of runs neither of which is the baseline (the later run against
 * the earlier), per metric; the same seed for every test.
 */
export function testEveryPair(
  runs: ComparedRuns,
  baselineIndex: number,
  metrics: readonly string[],
  resolved: ResolvedTestOptions,
): PairedComparison[] {
  const out: PairedComparison[] = [];
  const n = runs.results.length;
  for (let i = 0; i < n; i++) {
    if (i === baselineIndex) continue;
    for (let k = i + 1; k < n; k++) {
      if (k === baselineIndex) continue;
      const pairing = runs.pairing(k, i);
      for (const metric of metrics) {
        const higher = runs.direction.get(metric) as boolean;
        out.push(testPair(runs.results, k, i, metric, higher, pairing, resolved));
      }
    }
  }
  return out;
}
