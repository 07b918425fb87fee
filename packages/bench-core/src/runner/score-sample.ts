// Scoring a sample: every metric on the target's output, synchronously while the metrics are.

import { describeValue } from "../describe-value.js";
import { errorMessage } from "../error-message.js";
import { MetricUnavailableError } from "../errors.js";
import { setOwn } from "../internal/validate.js";
import type { EvalSample, Metadata, Metric, MetricInput, RetrievedChunk } from "../types.js";
import type { PipelineOutput } from "./check-output.js";
import { SampleJudging } from "./judging.js";
import { CUT_SHORT } from "./metric-cutter.js";
import { CANCELLED, type Outcome, type SampleContext } from "./sample-context.js";
import { JudgeUsageMeter, keptChunks, scoredRecord } from "./sample-record.js";

/**
 * Scores a sample's output with every metric. Synchronous while the metrics are: the first metric
 * that returns a promise hands the rest to {@link scoreAsync}.
 */
export function scoreSample<M extends Metadata>(
  ctx: SampleContext<M>,
  sample: EvalSample<M>,
  question: string,
  sampleId: string | undefined,
  output: PipelineOutput,
  rawLatencyMs: number,
  attempts: number | undefined,
): Outcome | Promise<Outcome> {
  // Rounded to the microsecond once, so the latency metric and the recorded latency agree.
  const latencyMs = Math.round(rawLatencyMs * 1000) / 1000;
  // What the metrics report of their own model calls, summed into the record's judge usage.
  const meter = new JudgeUsageMeter();
  const kept = keptChunks(output, ctx.keepChunkText);
  const judging = new SampleJudging(ctx.judge, output.keptJudgments);
  const input: MetricInput<M> = {
    sample,
    answer: output.answer,
    retrieved: output.chunks,
    latencyMs,
    usage: output.usage,
    signal: ctx.signal,
    reportUsage: meter.report,
    limiter: ctx.limiter,
    judging,
  };
  const metrics = ctx.metrics;
  const scores: Record<string, number | null> = {};
  let errors: string | null = null;
  let incomplete = false;
  for (let m = 0; m < metrics.length; m++) {
    const metric = metrics[m] as Metric<M>;
    let v: number | null | string;
    try {
      const value = startScore(metric, output, input);
      if (typeof (value as PromiseLike<unknown> | null)?.then === "function") {
        const state: Scoring<M> = {
          sample,
          meter,
          kept,
          question,
          sampleId,
          output,
          input,
          scores,
          errors,
          incomplete,
          attempts,
          judging,
        };
        return scoreAsync(ctx, state, m, value as PromiseLike<unknown>);
      }
      v = scoreToRecord(value);
    } catch (error) {
      v = errorMessage(error);
    }
    setOwn(scores, metric.name, typeof v === "string" ? null : v);
    // A plain `null` is "not applicable" (no relevant ids, no gold answer, no usage reported): not
    // a failure. A failure is a throw (a `MetricUnavailableError` with its reason) or a bad value,
    // and always says why.
    if (typeof v === "string") {
      incomplete = true;
      errors = `${errors === null ? "" : `${errors}; `}${metric.name}: ${v}`;
    }
  }
  return scoredRecord(
    ctx,
    sample,
    question,
    sampleId,
    output,
    scores,
    errors,
    incomplete,
    latencyMs,
    attempts,
    kept,
    meter.total(),
    judging.judgments(metricNames(metrics)),
  );
}

/** Where {@link scoreSample} stood when a metric returned a promise. */
interface Scoring<M extends Metadata> {
  readonly sample: EvalSample<M>;
  readonly meter: JudgeUsageMeter;
  readonly kept: RetrievedChunk[] | null;
  readonly question: string;
  readonly sampleId: string | undefined;
  readonly output: PipelineOutput;
  readonly input: MetricInput<M>;
  readonly scores: Record<string, number | null>;
  errors: string | null;
  incomplete: boolean;
  readonly attempts: number | undefined;
  readonly judging: SampleJudging;
}

/**
 * {@link scoreSample} from metric `from` on, whose score is `pending`. With a run signal, a metric
 * still pending {@link ABORT_GRACE} after the run's abort (a judge that hangs and ignores its
 * signal) does not hold the run: the sample is not finished and is left for a resume.
 */
async function scoreAsync<M extends Metadata>(
  ctx: SampleContext<M>,
  state: Scoring<M>,
  from: number,
  pending: PromiseLike<unknown>,
): Promise<Outcome> {
  const metrics = ctx.metrics;
  const cutter = ctx.cutter;
  const { output, input, scores } = state;
  // The remaining metrics start at once, in order, so that steps they share (a judge's
  // statements) are asked once and the sample takes as long as its slowest metric, not the sum.
  // Each is marked handled at once: a later metric that rejects while an earlier one is still
  // awaited must not be an unhandled rejection (which ends the process); its error is read when
  // the loop below reaches it.
  const started: { value?: unknown; error?: unknown; threw: boolean }[] = [];
  for (let m = from; m < metrics.length; m++) {
    if (m === from) {
      started.push({ value: quiet(pending), threw: false });
      continue;
    }
    try {
      started.push({
        value: quiet(startScore(metrics[m] as Metric<M>, output, input)),
        threw: false,
      });
    } catch (error) {
      started.push({ error, threw: true });
    }
  }
  for (let m = from; m < metrics.length; m++) {
    const metric = metrics[m] as Metric<M>;
    const start = started[m - from] as { value?: unknown; error?: unknown; threw: boolean };
    let v: number | null | string;
    try {
      if (start.threw) throw start.error;
      const value = start.value;
      let settled: unknown = value;
      if (m === from || typeof (value as PromiseLike<unknown> | null)?.then === "function") {
        const promise = value as PromiseLike<unknown>;
        settled = await (cutter === undefined ? promise : cutter.wait(promise));
        if (settled === CUT_SHORT) return CANCELLED;
      }
      v = scoreToRecord(settled);
    } catch (error) {
      v = errorMessage(error);
    }
    setOwn(scores, metric.name, typeof v === "string" ? null : v);
    // `null`: not applicable, not a failure (see scoreSample).
    if (typeof v === "string") {
      state.incomplete = true;
      state.errors = `${state.errors === null ? "" : `${state.errors}; `}${metric.name}: ${v}`;
    }
  }
  const { sample, meter, kept, question, sampleId, errors, incomplete, attempts, judging } = state;
  return scoredRecord(
    ctx,
    sample,
    question,
    sampleId,
    output,
    scores,
    errors,
    incomplete,
    input.latencyMs,
    attempts,
    kept,
    meter.total(),
    judging.judgments(metricNames(metrics)),
  );
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

const NAMES = new WeakMap<readonly unknown[], readonly string[]>();

/** The metrics' names, computed once per metric list. */
function metricNames<M extends Metadata>(metrics: readonly Metric<M>[]): readonly string[] {
  let names = NAMES.get(metrics);
  if (names === undefined) {
    names = metrics.map((m) => m.name);
    NAMES.set(metrics, names);
  }
  return names;
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
