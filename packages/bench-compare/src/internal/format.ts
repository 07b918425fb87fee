import { ConfigurationError, type SummaryStat } from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";

/**
 * Decimals for one table column: 4 for scores in [0, 1] (the resolution at which retrieval
 * papers and trec_eval report), an integer for `count`, and for other magnitudes (latency in ms,
 * tokens, cost) fewer decimals as values grow: ≥ 1000 → 0, ≥ 100 → 1, ≥ 1 → 2, else 4.
 */
export function decimalsFor(
  values: readonly (number | null | undefined)[],
  stat: SummaryStat,
): number {
  if (stat === "count") return 0;
  let max = 0;
  let unit = true;
  for (const v of values) {
    if (typeof v !== "number") continue;
    if (v < 0 || v > 1) unit = false;
    const a = Math.abs(v);
    if (a > max) max = a;
  }
  if (unit) return 4;
  if (max >= 1000) return 0;
  if (max >= 100) return 1;
  if (max >= 1) return 2;
  return 4;
}

/** Most decimals a number prints with; smaller non-zero values print in exponent form. */
const MAX_FIXED_DECIMALS = 20;

/**
 * Fixed-decimal text without a "-0.0000". A non-zero value never prints as zero: where the
 * column's decimals (chosen for its largest values) would round it to 0, it gets two significant
 * digits. A mean of 0.4 ms beside 1500 ms reads "0.40", not "0"; a cost of $0.00002 reads
 * "0.000020", not "0.0000". In a column of fewer than 4 decimals every value below 1 gets two
 * significant digits. A value that would need more than 20 decimals for them prints in exponent
 * form: 2.5e-31 reads "2.5e-31".
 *
 * @example
 * ```ts
 * formatNumber(0.25, 4); // "0.2500"
 * formatNumber(0.00002, 4); // "0.000020"
 * formatNumber(0.4, 0); // "0.40"
 * formatNumber(2.5e-31, 4); // "2.5e-31"
 * ```
 */
export function formatNumber(value: number, decimals: number): string {
  if (typeof value !== "number") {
    throw new ConfigurationError(`formatNumber: expected a number, found ${describeValue(value)}`, {
      kind: "invalid-option",
      option: "value",
    });
  }
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > MAX_FIXED_DECIMALS) {
    throw new ConfigurationError(
      `formatNumber: decimals: expected an integer in [0, ${MAX_FIXED_DECIMALS}], found ${describeValue(decimals)}`,
      { kind: "invalid-option", option: "decimals" },
    );
  }
  let text = value.toFixed(decimals);
  // Below 1, in a column of fewer decimals than scores get, two significant digits too: 0.13 and
  // 0.05 ms beside 700 ms read "0.13" and "0.050", not both "0.1".
  const small = decimals < 4 && Math.abs(value) < 1;
  if (value !== 0 && Number.isFinite(value) && (small || Number(text) === 0)) {
    const needed = 1 - Math.floor(Math.log10(Math.abs(value)));
    // Past 20 decimals, a row of zeros hides the number (and toFixed stops at 100, where 1e-120
    // printed as 100 zeros): two significant digits in exponent form, "2.5e-31".
    if (needed > MAX_FIXED_DECIMALS) return value.toExponential(1);
    let precise = value.toFixed(Math.max(decimals, needed));
    // Rounding can carry into the digit above (0.0996 → "0.100", 0.996 → "1.00"): then one
    // decimal fewer keeps two significant digits ("0.10", "1.0").
    if (Math.abs(Number(precise)) >= 10 ** (2 - needed)) {
      precise = value.toFixed(Math.max(decimals, needed - 1));
    }
    // A value that rounds to 1 or more prints as the column's other such values do ("1", not
    // "1.0" beside a "1" that is larger).
    if (Math.abs(Number(precise)) < 1) text = precise;
  }
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
}

/** The tests per metric when every pair of `runs` runs is tested, n(n−1)/2: "3 tests". */
export function pairCount(runs: number): string {
  const n = (runs * (runs - 1)) / 2;
  return `${n} test${n === 1 ? "" : "s"}`;
}
