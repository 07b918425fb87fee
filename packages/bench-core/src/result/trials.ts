// Trials (`run(target, { trials: n })`, n > 1): a sample's record built from its trials' records,
// the nondeterminism figure `trial_std`, and the checks a loaded file's trials must pass.
//
// The rules, in one place (docs: the core README's "Trials"):
// - scores: each metric's mean over the trials where it was not null; null when none scored it.
// - status: `errored` only when every trial errored; `successful` when every trial was;
//   `incomplete` otherwise (some trial errored, or some metric was null or threw in some trial).
// - answer and retrieved chunks: those of the first trial that was not errored (a representative
//   output for reports); latency: the mean over the trials that completed; usage and judge usage:
//   summed over the trials (what the sample cost); `cached` only when every trial came from the
//   cache; error: each trial's error, prefixed with its trial number.
import { ConfigurationError } from "../errors.js";
import { setOwn } from "../internal/validate.js";
import type { JudgeUsage, SampleResult, SampleStatus, SampleTrial, Usage } from "../types.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A trial's own part of a sample record: everything but the dataset sample's fields. */
export function trialOf(record: SampleResult): SampleTrial {
  const t: Mutable<SampleTrial> = {
    status: record.status,
    scores: record.scores,
    answer: record.answer,
    retrievedIds: record.retrievedIds,
    retrievedUris: record.retrievedUris,
    latencyMs: record.latencyMs,
    error: record.error,
  };
  if (record.attempts !== undefined) t.attempts = record.attempts;
  if (record.retrieved !== undefined) t.retrieved = record.retrieved;
  if (record.usage !== undefined) t.usage = record.usage;
  if (record.cached === true) t.cached = true;
  if (record.judgeUsage !== undefined) t.judgeUsage = record.judgeUsage;
  if (record.judgments !== undefined) t.judgments = record.judgments;
  if (record.errorStack !== undefined) t.errorStack = record.errorStack;
  return t;
}

/** The status of a sample from its trials' statuses (see the rules above). */
export function trialsStatus(trials: readonly SampleTrial[]): SampleStatus {
  let errored = 0;
  let successful = 0;
  for (const t of trials) {
    if (t.status === "errored") errored++;
    else if (t.status === "successful") successful++;
  }
  if (errored === trials.length) return "errored";
  if (successful === trials.length) return "successful";
  return "incomplete";
}

/** Each metric's mean over the trials where it was not null; null where no trial scored it. */
export function trialMeans(
  metrics: readonly string[],
  trials: readonly SampleTrial[],
): Record<string, number | null> {
  const scores: Record<string, number | null> = {};
  for (const m of metrics) {
    let sum = 0;
    let n = 0;
    for (const t of trials) {
      const v = Object.hasOwn(t.scores, m) ? t.scores[m] : null;
      if (typeof v === "number") {
        sum += v;
        n++;
      }
    }
    setOwn(scores, m, n === 0 ? null : sum / n);
  }
  return scores;
}

/**
 * A sample's record from its trials (in trial order), the dataset sample's fields taken from
 * `reference` (any trial's record or the sample's former record).
 */
export function sampleOfTrials(
  metrics: readonly string[],
  reference: SampleResult,
  trials: readonly SampleTrial[],
): SampleResult {
  const status = trialsStatus(trials);
  const shown = trials.find((t) => t.status !== "errored");
  let latencySum = 0;
  let latencies = 0;
  let usage: Mutable<Usage> | undefined;
  let judge: Mutable<JudgeUsage> | undefined;
  let allCached = true;
  const errors: string[] = [];
  for (let k = 0; k < trials.length; k++) {
    const t = trials[k] as SampleTrial;
    if (t.latencyMs !== null) {
      latencySum += t.latencyMs;
      latencies++;
    }
    if (t.usage !== undefined) usage = addUsage(usage ?? {}, t.usage);
    if (t.judgeUsage !== undefined) {
      judge = addUsage(judge ?? { calls: 0 }, t.judgeUsage) as Mutable<JudgeUsage>;
      judge.calls += t.judgeUsage.calls;
    }
    if (t.cached !== true) allCached = false;
    if (t.error !== null) errors.push(`trial ${k + 1}: ${t.error}`);
  }
  const record: Mutable<SampleResult> = {
    question: reference.question,
    status,
    scores: trialMeans(metrics, trials),
    answer: shown?.answer ?? null,
    retrievedIds: shown?.retrievedIds ?? [],
    retrievedUris: shown?.retrievedUris ?? [],
    latencyMs: latencies === 0 ? null : latencySum / latencies,
    error: errors.length === 0 ? null : errors.join("; "),
  };
  if (reference.sampleId !== undefined) record.sampleId = reference.sampleId;
  if (shown?.retrieved !== undefined) record.retrieved = shown.retrieved;
  if (usage !== undefined) record.usage = usage;
  if (allCached && trials.length > 0) record.cached = true;
  if (judge !== undefined) record.judgeUsage = judge;
  if (reference.expectedAnswers !== undefined) record.expectedAnswers = reference.expectedAnswers;
  if (reference.relevantIds !== undefined) record.relevantIds = reference.relevantIds;
  if (reference.relevance !== undefined) record.relevance = reference.relevance;
  if (reference.metadata !== undefined) record.metadata = reference.metadata;
  record.trials = trials;
  return record;
}

function addUsage(into: Mutable<Usage>, u: Usage): Mutable<Usage> {
  if (u.inputTokens !== undefined) into.inputTokens = (into.inputTokens ?? 0) + u.inputTokens;
  if (u.outputTokens !== undefined) into.outputTokens = (into.outputTokens ?? 0) + u.outputTokens;
  if (u.totalTokens !== undefined) into.totalTokens = (into.totalTokens ?? 0) + u.totalTokens;
  if (u.cost !== undefined) into.cost = (into.cost ?? 0) + u.cost;
  return into;
}

/**
 * `trial_std` of one metric: the mean over samples of the standard deviation of its scores
 * across the sample's trials; `null` when no sample has two trials that scored it.
 *
 * Sample standard deviation (ddof = 1), not the population one the summary's `std` uses: here
 * every sample contributes a handful of draws (often 3 to 20), and the population formula
 * under-reads by a factor √((n−1)/n) before averaging (−2.5 % at 20 trials, −18 % at 3, on top
 * of the square root's own bias), so a pipeline would look steadier the fewer trials it ran.
 * ddof = 1 makes each sample's variance unbiased; the square root still reads about 1 % low at
 * 20 trials. Samples with fewer than two scored trials have no such estimate and are left out.
 */
export function trialStd(metric: string, samples: readonly SampleResult[]): number | null {
  let sum = 0;
  let n = 0;
  for (const s of samples) {
    const trials = s.trials;
    if (trials === undefined) continue;
    let count = 0;
    let mean = 0;
    let m2 = 0;
    for (const t of trials) {
      const v = Object.hasOwn(t.scores, metric) ? t.scores[metric] : null;
      if (typeof v !== "number") continue;
      // Welford: stable for scores of any size.
      count++;
      const d = v - mean;
      mean += d / count;
      m2 += d * (v - mean);
    }
    if (count < 2) continue;
    sum += Math.sqrt(Math.max(0, m2) / (count - 1));
    n++;
  }
  return n === 0 ? null : sum / n;
}

/** Whether a sample's trials disagree on a metric: their scores' max ≠ min (nulls left out). */
export function trialsDisagree(sample: SampleResult, metric: string): boolean {
  const trials = sample.trials;
  if (trials === undefined) return false;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const t of trials) {
    const v = Object.hasOwn(t.scores, metric) ? t.scores[metric] : null;
    if (typeof v !== "number") continue;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return max > min;
}

/**
 * A loaded sample's trials must be what its own fields say: its status the one its trials give,
 * its scores their means (to 1e-9 of the largest trial score's magnitude: another tool may sum in
 * another order). A sample edited by hand would otherwise show one number in tables and another
 * in the per-trial view. @throws {ConfigurationError} naming the sample and the field.
 */
export function expectSampleTrials(sample: SampleResult, source: string, where: string): void {
  const trials = sample.trials as readonly SampleTrial[];
  if (trials.length === 0) {
    throw new ConfigurationError(
      `${source}: ${where}.trials: expected at least one trial, found none`,
      {
        kind: "invalid-input",
        field: `${where}.trials`,
      },
    );
  }
  const status = trialsStatus(trials);
  if (status !== sample.status) {
    throw new ConfigurationError(
      `${source}: ${where}.status is "${sample.status}", but its trials make it "${status}" (errored only when every trial errored, successful only when every trial was); was the file edited after it was saved?`,
      { kind: "invalid-input", field: `${where}.status` },
    );
  }
  const metrics = Object.keys(sample.scores);
  const means = trialMeans(metrics, trials);
  for (const m of metrics) {
    const have = sample.scores[m] ?? null;
    const want = means[m] ?? null;
    let size = 0;
    for (const t of trials) {
      const v = t.scores[m];
      if (typeof v === "number") size = Math.max(size, Math.abs(v));
    }
    const same =
      have === null || want === null
        ? have === want
        : Math.abs(have - want) <= Math.max(1e-9 * size, 4 * Number.MIN_VALUE);
    if (!same) {
      throw new ConfigurationError(
        `${source}: ${where}.scores["${m}"] is ${have}, but the mean of its trials' scores is ${want}; was the file edited after it was saved?`,
        { kind: "invalid-input", field: `${where}.scores` },
      );
    }
  }
}

/**
 * A loaded file's trials must agree with its header: with `trials: n` (n > 1) every sample holds
 * n trials and every summary entry's `trial_std` (when written) is its trials'; without it, no
 * sample holds trials. @throws {ConfigurationError} naming the sample or the summary entry.
 */
export function expectResultTrials(
  trials: number,
  samples: readonly SampleResult[],
  summary: Readonly<Record<string, { readonly trial_std?: number | null }>>,
  source: string,
): void {
  for (let i = 0; i < samples.length; i++) {
    expectTrialCount(trials, i, (samples[i] as SampleResult).trials?.length, source);
  }
  if (trials === 1) return;
  expectTrialStd(summary, (m) => trialStd(m, samples), source);
}

/**
 * Sample `i` of a file whose header says `trials` must hold that many trials (`held`; undefined
 * when it has no `trials`), and none without trials. @throws {ConfigurationError} naming it.
 */
export function expectTrialCount(
  trials: number,
  i: number,
  held: number | undefined,
  source: string,
): void {
  if (trials === 1 && held !== undefined) {
    throw new ConfigurationError(
      `${source}: samples[${i}].trials: the sample holds ${held} trials, but the result says none (no top-level "trials"); was the file edited after it was saved?`,
      { kind: "invalid-input", field: `samples[${i}].trials` },
    );
  }
  if (trials > 1 && held !== trials) {
    throw new ConfigurationError(
      `${source}: samples[${i}].trials: expected ${trials} trials (the result's "trials"), found ${held === undefined ? "none" : held}`,
      { kind: "invalid-input", field: `samples[${i}].trials` },
    );
  }
}

/**
 * Every summary entry's `trial_std`, where written, must be the one its samples' trials give
 * (`trialStdOf`). @throws {ConfigurationError} naming the summary entry.
 */
export function expectTrialStd(
  summary: Readonly<Record<string, { readonly trial_std?: number | null }>>,
  trialStdOf: (metric: string) => number | null,
  source: string,
): void {
  for (const m of Object.keys(summary)) {
    const written = (summary[m] as { trial_std?: number | null }).trial_std;
    if (written === undefined) continue;
    const want = trialStdOf(m);
    const same =
      written === null || want === null
        ? written === want
        : Math.abs(written - want) <= 1e-9 * Math.max(1, Math.abs(want));
    if (!same) {
      throw new ConfigurationError(
        `${source}: summary["${m}"].trial_std is ${written}, but the samples' trials give ${want}; was the file edited after it was saved?`,
        { kind: "invalid-input", field: `summary["${m}"].trial_std` },
      );
    }
  }
}
