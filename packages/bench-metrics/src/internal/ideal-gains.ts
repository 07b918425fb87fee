// The ideal ranking's gains of a sample (nDCG's denominator), prepared once per sample and shared
// by the metrics that score it, as judgments.ts prepares the relevant ids and the ranking.
import type { MetricInput } from "@fastrag/bench-core";
import { malformed } from "./input.js";
import { capacity, type IdealGains, relevantCountOf, relevantDistinct } from "./judgments.js";
import { isGraded } from "./kernels.js";

let idealInput: object | undefined;
let idealIds: object | undefined;
let idealRelevance: object | undefined;
const ideal: { gains: Float64Array; length: number } = {
  gains: new Float64Array(64),
  length: 0,
};

/**
 * The ideal ranking's gains of a sample, sorted descending: every positive grade in `relevance`
 * (graded ids count whether relevant or not) and 1 for each relevant id it does not grade; without
 * `relevance`, 1 per relevant id. The same numbers as `buildGains(...).idealGains`.
 *
 * @throws {ConfigurationError} when a grade of `relevance` is not a finite number.
 */
export function idealGainsOf(input: MetricInput, metric: string): IdealGains {
  const sample = input.sample;
  if (
    input !== idealInput ||
    sample.relevantIds !== idealIds ||
    sample.relevance !== idealRelevance
  ) {
    prepareIdeal(input, metric);
  }
  return ideal;
}

function prepareIdeal(input: MetricInput, metric: string): void {
  idealInput = undefined;
  const r = relevantCountOf(input, metric);
  const relevance = input.sample.relevance;
  let m = 0;
  if (relevance === undefined) {
    if (ideal.gains.length < r) ideal.gains = new Float64Array(capacity(r));
    ideal.gains.fill(1, 0, r);
    m = r;
  } else {
    // Object.keys and a look-up per key (docs/decisions/core-hot-paths.md).
    // Every grade is needed, not only the relevant ids': no cheaper way tells them all.
    const keys = Object.keys(relevance);
    if (ideal.gains.length < keys.length + r) {
      ideal.gains = new Float64Array(capacity(keys.length + r));
    }
    const out = ideal.gains;
    for (let i = 0; i < keys.length; i++) {
      const grade = relevance[keys[i] as string] as number;
      // Checked here, where every grade is read anyway: a string "2" would pass `> 0` and an
      // Infinity would make the score NaN. (prepareGains reads only own grades checked here.)
      if (!Number.isFinite(grade)) {
        throw malformed(
          metric,
          `sample.relevance[${JSON.stringify(keys[i])}]`,
          "a finite number",
          grade,
        );
      }
      if (grade > 0) out[m++] = grade;
    }
    const distinct = relevantDistinct;
    for (let j = 0; j < r; j++) if (!isGraded(relevance, distinct[j] as string)) out[m++] = 1;
    sortDescending(out, m);
  }
  ideal.length = m;
  idealInput = input;
  idealIds = input.sample.relevantIds;
  idealRelevance = relevance;
}

/** Sorts entries 0..m-1 descending: by insertion when few, as most samples' judgments are. */
function sortDescending(a: Float64Array, m: number): void {
  if (m <= 32) {
    for (let i = 1; i < m; i++) {
      const v = a[i] as number;
      let j = i - 1;
      while (j >= 0 && (a[j] as number) < v) {
        a[j + 1] = a[j] as number;
        j--;
      }
      a[j + 1] = v;
    }
  } else {
    const head = a.subarray(0, m);
    head.sort();
    head.reverse();
  }
}
