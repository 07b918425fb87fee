// Status counts and per-metric summaries computed from sample records.
import { setOwn } from "../internal/validate.js";
import { summarizeValues } from "../summary.js";
import type {
  DistributionSummary,
  JudgeUsage,
  SampleResult,
  StatusCounts,
  Usage,
} from "../types.js";
import { trialStd } from "./trials.js";

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

/**
 * Summarizes every metric over the samples' non-null scores (with trials, the per-sample means),
 * adding `trial_std` when `withTrials` (a run with `trials: n`, n > 1).
 */
export function summarizeSamples(
  metrics: readonly string[],
  samples: readonly SampleResult[],
  withTrials = false,
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
    const s = summarizeValues(column.subarray(0, n));
    setOwn(summary, m, withTrials ? { ...s, trial_std: trialStd(m, samples) } : s);
  }
  return summary;
}

type Sums = { inputTokens?: number; outputTokens?: number; totalTokens?: number; cost?: number };

function addUsage(into: Sums, u: Usage): void {
  if (u.inputTokens !== undefined) into.inputTokens = (into.inputTokens ?? 0) + u.inputTokens;
  if (u.outputTokens !== undefined) into.outputTokens = (into.outputTokens ?? 0) + u.outputTokens;
  if (u.totalTokens !== undefined) into.totalTokens = (into.totalTokens ?? 0) + u.totalTokens;
  if (u.cost !== undefined) into.cost = (into.cost ?? 0) + u.cost;
}

/** The target's usage summed over the samples that reported one; undefined when none did. */
export function sumUsage(samples: readonly SampleResult[]): Usage | undefined {
  let out: Sums | undefined;
  for (const s of samples) {
    if (s.usage === undefined) continue;
    out ??= {};
    addUsage(out, s.usage);
  }
  return out;
}

/** The metrics' model-call usage summed over the samples; undefined when none reported any. */
export function sumJudgeUsage(samples: readonly SampleResult[]): JudgeUsage | undefined {
  let out: (Sums & { calls: number }) | undefined;
  for (const s of samples) {
    const j = s.judgeUsage;
    if (j === undefined) continue;
    out ??= { calls: 0 };
    out.calls += j.calls;
    addUsage(out, j);
  }
  return out;
}
