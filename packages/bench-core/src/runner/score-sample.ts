// Scoring a sample: every metric on the target's output, synchronously while the metrics are.
import { describeValue } from "../describe-value.js";
import { errorMessage } from "../error-message.js";
import { MetricUnavailableError } from "../errors.js";
import { setOwn } from "../internal/validate.js";
import type { JudgeUsage, Metadata, Metric, MetricInput, RetrievedChunk, Usage } from "../types.js";
import type { PipelineOutput } from "./check-output.js";
import { SampleJudging } from "./judging.js";
import { CUT_SHORT } from "./metric-cutter.js";
import { CANCELLED, type Outcome, type SampleContext } from "./sample-context.js";
import { keptChunks, type ScoredSample, scoredRecord } from "./sample-record.js";

/**
 * Scores the output of the sample at dataset position `i` with every metric. Synchronous while
 * the metrics are: the first metric that returns a promise hands the rest to {@link scoreAsync}.
 */
export function scoreSample<M extends Metadata>(
  ctx: SampleContext<M>,
  i: number,
  output: PipelineOutput,
  rawLatencyMs: number,
  attempts: number | undefined,
): Outcome | Promise<Outcome> {
  const scoring = new Scoring(ctx, i, output, rawLatencyMs, attempts);
  const metrics = ctx.metrics;
  for (let m = 0; m < metrics.length; m++) {
    const metric = metrics[m] as Metric<M>;
    let value: unknown;
    try {
      value = startScore(metric, output, scoring.input);
    } catch (error) {
      scoring.fail(metric, error);
      continue;
    }
    if (typeof (value as PromiseLike<unknown> | null)?.then === "function") {
      return scoreAsync(ctx, scoring, m, value as PromiseLike<unknown>);
    }
    scoring.record(metric, value);
  }
  return scoredRecord(ctx, scoring);
}

/**
 * One sample's scoring: the input every metric gets, the scores and reasons recorded so far (in
 * metric order, whichever path recorded them), and the usage its metrics report of their own
 * model calls (summed into the record's judge usage).
 */
class Scoring<M extends Metadata> implements ScoredSample {
  readonly input: MetricInput<M>;
  readonly scores: Record<string, number | null> = {};
  /** The metrics' reasons ("name: reason; …"), or null while every metric gave a number or `null`. */
  errors: string | null = null;
  /** The chunks as the record keeps them, copied before any metric runs. */
  readonly kept: RetrievedChunk[] | null;
  #calls = 0;
  #inputTokens: number | undefined;
  #outputTokens: number | undefined;
  #totalTokens: number | undefined;
  #cost: number | undefined;

  constructor(
    ctx: SampleContext<M>,
    readonly i: number,
    readonly output: PipelineOutput,
    rawLatencyMs: number,
    readonly attempts: number | undefined,
  ) {
    this.kept = keptChunks(output, ctx.keepChunkText);
    this.input = {
      sample: ctx.samples[i] as MetricInput<M>["sample"],
      answer: output.answer,
      retrieved: output.chunks,
      // Rounded to the microsecond once, so the latency metric and the recorded latency agree.
      latencyMs: Math.round(rawLatencyMs * 1000) / 1000,
      usage: output.usage,
      signal: ctx.signal,
      reportUsage: this.#report,
      limiter: ctx.limiter,
      judging: new SampleJudging(ctx.judge, output.keptJudgments),
    };
  }

  get latencyMs(): number {
    return this.input.latencyMs;
  }

  get judging(): SampleJudging {
    return this.input.judging as SampleJudging;
  }

  /**
   * A metric's settled value. A plain `null` is "not applicable" (no relevant ids, no gold
   * answer, no usage reported): not a failure. A value that is not a finite number or `null` is
   * a failure, recorded as `null` with its reason.
   */
  record(metric: Metric<M>, value: unknown): void {
    const v = scoreToRecord(value);
    if (typeof v === "string") this.#reason(metric, v);
    else setOwn(this.scores, metric.name, v);
  }

  /** A metric that threw or rejected (a `MetricUnavailableError` with its reason, say). */
  fail(metric: Metric<M>, error: unknown): void {
    this.#reason(metric, errorMessage(error));
  }

  #reason(metric: Metric<M>, reason: string): void {
    setOwn(this.scores, metric.name, null);
    this.errors = `${this.errors === null ? "" : `${this.errors}; `}${metric.name}: ${reason}`;
  }

  /** `MetricInput.reportUsage`: one model call's usage, summed. */
  readonly #report = (usage: Usage): void => {
    this.#calls++;
    if (usage === null || typeof usage !== "object") return;
    const { inputTokens, outputTokens, totalTokens, cost } = usage;
    if (typeof inputTokens === "number" && Number.isFinite(inputTokens))
      this.#inputTokens = (this.#inputTokens ?? 0) + inputTokens;
    if (typeof outputTokens === "number" && Number.isFinite(outputTokens))
      this.#outputTokens = (this.#outputTokens ?? 0) + outputTokens;
    if (typeof totalTokens === "number" && Number.isFinite(totalTokens))
      this.#totalTokens = (this.#totalTokens ?? 0) + totalTokens;
    if (typeof cost === "number" && Number.isFinite(cost)) this.#cost = (this.#cost ?? 0) + cost;
  };

  /** What the metrics reported of their model calls, or undefined when they made none. */
  get judgeUsage(): JudgeUsage | undefined {
    if (this.#calls === 0) return undefined;
    const out: { -readonly [K in keyof JudgeUsage]: JudgeUsage[K] } = { calls: this.#calls };
    if (this.#inputTokens !== undefined) out.inputTokens = this.#inputTokens;
    if (this.#outputTokens !== undefined) out.outputTokens = this.#outputTokens;
    if (this.#totalTokens !== undefined) out.totalTokens = this.#totalTokens;
    if (this.#cost !== undefined) out.cost = this.#cost;
    return out;
  }
}

/**
 * {@link scoreSample} from metric `from` on, whose score is `pending`. The remaining metrics
 * start at once, in order, so that steps they share (a judge's statements) are asked once and the
 * sample takes as long as its slowest metric, not the sum. With a run signal, a metric still
 * pending {@link ABORT_GRACE} after the run's abort (a judge that hangs and ignores its signal)
 * does not hold the run: the sample is not finished and is left for a resume.
 */
async function scoreAsync<M extends Metadata>(
  ctx: SampleContext<M>,
  scoring: Scoring<M>,
  from: number,
  pending: PromiseLike<unknown>,
): Promise<Outcome> {
  const metrics = ctx.metrics;
  const started = startRest(metrics, from, pending, scoring);
  for (let m = from; m < metrics.length; m++) {
    const metric = metrics[m] as Metric<M>;
    const start = started[m - from] as Started;
    if (start.threw) {
      scoring.fail(metric, start.error);
      continue;
    }
    let value = start.value;
    if (typeof (value as PromiseLike<unknown> | null)?.then === "function") {
      try {
        const promise = value as PromiseLike<unknown>;
        value = await (ctx.cutter === undefined ? promise : ctx.cutter.wait(promise));
      } catch (error) {
        scoring.fail(metric, error);
        continue;
      }
      if (value === CUT_SHORT) return CANCELLED;
    }
    scoring.record(metric, value);
  }
  return scoredRecord(ctx, scoring);
}

/** A metric started by {@link startRest}: its value (a promise, marked handled), or what it threw. */
type Started = { value?: unknown; error?: unknown; threw: boolean };

/**
 * Starts metrics `from + 1` … on, `from`'s value being `pending`. Each value is marked handled at
 * once: a later metric that rejects while an earlier one is still awaited must not be an
 * unhandled rejection (which ends the process); its error is read when its turn comes.
 */
function startRest<M extends Metadata>(
  metrics: readonly Metric<M>[],
  from: number,
  pending: PromiseLike<unknown>,
  scoring: Scoring<M>,
): Started[] {
  const started: Started[] = [{ value: quiet(pending), threw: false }];
  for (let m = from + 1; m < metrics.length; m++) {
    try {
      started.push({
        value: quiet(startScore(metrics[m] as Metric<M>, scoring.output, scoring.input)),
        threw: false,
      });
    } catch (error) {
      started.push({ error, threw: true });
    }
  }
  return started;
}

/**
 * A metric's value with its rejection marked handled: a thenable becomes a promise (its `then`
 * called once, as `await` would call it, however it treats a second argument), which whoever
 * awaits it still sees reject. Any other value is returned as is.
 */
function quiet(value: unknown): unknown {
  if (typeof (value as PromiseLike<unknown> | null)?.then !== "function") return value;
  const promise = Promise.resolve(value);
  promise.then(undefined, () => {});
  return promise;
}

/** Calls one metric (it may throw, or return a promise). */
function startScore<M extends Metadata>(
  metric: Metric<M>,
  output: PipelineOutput,
  input: MetricInput<M>,
): unknown {
  // An engine that reports no chunks exposes no retrieval: not scorable, never a zero.
  if (!output.chunksReported && metric.needsRelevantIds) {
    throw new MetricUnavailableError(
      "the query engine returned no chunks, so its retrieval cannot be scored (return { answer, chunks })",
    );
  }
  return metric.score(input);
}

/**
 * A metric's settled value as recorded: a finite number or `null` (for `null` and `undefined`);
 * a string is the problem with any other value, which is recorded as `null`. `-0` (from
 * `Math.round(-0.4)`, say) is recorded as `0`, as JSON writes it: a run's result then equals
 * its saved file and its resumed journal.
 */
function scoreToRecord(value: unknown): number | null | string {
  if (value === undefined || value === null) return null;
  if (typeof value === "number" && Number.isFinite(value)) return value === 0 ? 0 : value;
  return `returned ${typeof value === "number" ? String(value) : describeValue(value)}, expected a finite number or null`;
}
