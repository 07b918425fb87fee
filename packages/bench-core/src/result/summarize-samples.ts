// Status counts and per-metric summaries computed from sample records.
import { setOwn } from "../internal/validate.js";
import { summarizeValues } from "../summary.js";
import type { DistributionSummary, SampleResult, StatusCounts } from "../types.js";

/** Counts samples per status. */
export function countStatuses(samples: readonly SampleResult[]): StatusCounts {
  let successful = 0;
  let errored = 0;
  let incomplete = 0;
  for (const s of samples) {
    if (s.status === "successful") successful++;
    else if (s.status === "errored") errored++;
    else incomplete++;
  }
  return { successful, errored, incomplete };
}

/** Summarizes every metric over the samples' non-null scores. */
export function summarizeSamples(
  metrics: readonly string[],
  samples: readonly SampleResult[],
): Record<string, DistributionSummary> {
  const summary: Record<string, DistributionSummary> = {};
  for (const m of metrics) {
    const column = new Float64Array(samples.length);
    let n = 0;
    for (let i = 0; i < samples.length; i++) {
      const scores = (samples[i] as SampleResult).scores;
      if (!Object.hasOwn(scores, m)) continue;
      const v = scores[m];
      if (v !== null && v !== undefined) column[n++] = v;
    }
    setOwn(summary, m, summarizeValues(column.subarray(0, n)));
  }
  return summary;
}
