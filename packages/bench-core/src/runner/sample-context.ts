// What every stage of one sample shares: the run's settings, and the mark of a sample left
// unfinished (for a resume).
import type { EvalSample, Metadata, Metric, SampleResult, Target } from "../types.js";
import type { TargetKind } from "./check-output.js";
import type { JudgeSettings } from "./judging.js";
import type { MetricCutter } from "./metric-cutter.js";
import type { RunLimiter } from "./rate-limiter.js";
import type { RetryOptions } from "./retry.js";
import type { TargetCache } from "./target-cache.js";

/** A sample left unfinished by the run's abort: not recorded, so a resume runs it again. */
export const CANCELLED: unique symbol = Symbol("cancelled");

/**
 * The run's settings every stage of a sample reads, built once per run. A sample is named by its
 * dataset position `i` in every stage: `samples[i]`, with `questions[i]` and `ids[i]` as validated
 * when the Benchmark was built (what its record keeps, whatever the target does to the sample).
 */
export interface SampleContext<M extends Metadata> {
  readonly samples: readonly EvalSample<M>[];
  readonly questions: readonly string[];
  readonly ids: readonly (string | undefined)[];
  readonly target: Target<M>;
  readonly kind: TargetKind;
  readonly metrics: readonly Metric<M>[];
  readonly timeoutMs: number | undefined;
  readonly retries: RetryOptions | undefined;
  readonly signal: AbortSignal | undefined;
  /** The run's graceful stop: no new sample starts once it aborts (see `RunOptions.stop`). */
  readonly stop?: AbortSignal | undefined;
  /** With a signal: what cuts a metric still pending long after the abort. */
  readonly cutter: MetricCutter | undefined;
  /** Keep the retrieved chunks' text in the records (`RunOptions.keepChunkText`). */
  readonly keepChunkText: boolean;
  /** With `rateLimit`: the run's limiter, through which every target call goes. */
  readonly limiter: RunLimiter | undefined;
  /** No timeout, no signal, one attempt, no cache, no limiter: nothing can abort, delay, repeat or replace a call. */
  readonly direct: boolean;
  /** The run's response cache, when it has one. */
  readonly targetCache: TargetCache | undefined;
  /** The run's settings for model calls inside metrics (the cache for judge steps). */
  readonly judge?: JudgeSettings | undefined;
}

/** How a sample ends: its record, or {@link CANCELLED}. */
export type Outcome = SampleResult | typeof CANCELLED;
