// Rescoring a saved result: its kept outputs scored again by another metric set, with no target
// call. A second, smaller runner: each kept output goes through the run's own scoring step.
import type { ResponseCache } from "../cache.js";
import { ConfigurationError } from "../errors.js";
import { fingerprintSamples } from "../internal/fingerprint.js";
import { setOwn } from "../internal/validate.js";
import { forEachConcurrently } from "../internal/worker-pool.js";
import type { BenchmarkResultInit, ResultData } from "../result/result-init.js";
import { sampleOfTrials, trialOf } from "../result/trials.js";
import type {
  DatasetLike,
  EvalSample,
  Metadata,
  Metric,
  RetrievedChunk,
  SampleResult,
  SampleTrial,
} from "../types.js";
import type { PipelineOutput } from "./check-output.js";
import { CANCELLED, type Outcome, type SampleContext } from "./sample-context.js";
import { sampleRecord } from "./sample-record.js";
import { scoreSample } from "./score-sample.js";

/** Options of `BenchmarkResult.rescore`. */
export interface RescoreOptions<M extends Metadata = Metadata> {
  /**
   * The dataset the run was made from: each record is matched to its sample by id, else by
   * question. Optional for a format-2 result, whose records keep their samples' gold answers,
   * relevant ids, relevance and metadata; required for a format-1 result.
   */
  readonly dataset?: DatasetLike<M>;
  /** The new result's name. Default: the result's own. */
  readonly name?: string;
  /** How many samples are scored at once (for judge metrics). Default 4. */
  readonly maxConcurrent?: number;
  /** Aborting stops scoring; `rescore` then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * A response cache for the judge metrics' steps (and `refresh` to ask again and overwrite), as
   * `RunOptions.cache`: a step stored there answers with no model call.
   */
  readonly cache?: ResponseCache;
  readonly refresh?: boolean;
  /**
   * What to do with the judgments a record kept (`judgments`, DESIGN §11). `"replay"` (the
   * default): a judge metric's step whose key (judge, step, input, attempt) was kept is answered
   * from the record with no call, so a rescore recomputes kept judge scores for free and pays
   * only for steps it lacks. `"ask"`: every step is asked again (the cache still answers, when
   * given).
   */
  readonly judgments?: "replay" | "ask";
}

/** See `BenchmarkResult.rescore`: the rescored result's init. */
export async function rescoreResult<M extends Metadata>(
  result: ResultData,
  metrics: readonly Metric<M>[],
  options: RescoreOptions<M>,
): Promise<BenchmarkResultInit> {
  const where = `rescore of "${result.name}"`;
  const { maxConcurrent, replay } = expectRescoreOptions(metrics, options, where);
  const records = result.samples;
  expectKept(result, records, metrics, where);
  const ctx = rescoreContext(
    result,
    metrics,
    options,
    matchSamples(records, options.dataset, where),
  );
  const out: SampleResult[] = new Array(records.length);
  await forEachConcurrently(
    records.length,
    maxConcurrent,
    async (i) => {
      const record = records[i] as SampleResult;
      out[i] =
        record.trials === undefined
          ? await rescoreOne(ctx, i, record, replay)
          : await rescoreTrials(ctx, i, record, replay);
    },
    () => options.signal?.aborted === true,
  );
  options.signal?.throwIfAborted();

  const higherIsBetter: Record<string, boolean> = {};
  for (const m of metrics) setOwn(higherIsBetter, m.name, m.higherIsBetter);
  const given = datasetSamples(options.dataset);
  return {
    name: options.name ?? result.name,
    // The outputs' run: its date and duration, not the rescore's.
    createdAt: result.createdAt,
    durationS: result.durationS,
    samples: out,
    higherIsBetter,
    ...(given !== undefined
      ? { dataset: { fingerprint: fingerprintSamples(given), size: given.length } }
      : result.dataset !== undefined
        ? { dataset: result.dataset }
        : {}),
    ...(result.shard !== undefined ? { shard: result.shard } : {}),
    keepChunkText: result.keepChunkText,
    ...(result.provenance !== undefined ? { provenance: result.provenance } : {}),
    ...(result.trials > 1 ? { trials: result.trials } : {}),
  };
}

/**
 * The rescore's metrics and options checked: how many samples at once, and whether kept
 * judgments are replayed.
 *
 * @throws {ConfigurationError} of kind `invalid-option` naming the option at fault.
 */
function expectRescoreOptions<M extends Metadata>(
  metrics: readonly Metric<M>[],
  options: RescoreOptions<M>,
  where: string,
): { maxConcurrent: number; replay: boolean } {
  expectMetrics(metrics, where);
  const maxConcurrent = options.maxConcurrent ?? 4;
  const replay = options.judgments ?? "replay";
  if (replay !== "replay" && replay !== "ask") {
    throw new ConfigurationError(
      `${where}: judgments must be "replay" or "ask", found ${JSON.stringify(replay)}`,
      { kind: "invalid-option", option: "judgments" },
    );
  }
  if (!Number.isSafeInteger(maxConcurrent) || maxConcurrent < 1) {
    throw new ConfigurationError(`${where}: maxConcurrent must be a positive integer`, {
      kind: "invalid-option",
      option: "maxConcurrent",
    });
  }
  return { maxConcurrent, replay: replay === "replay" };
}

/**
 * The context the run's scoring step reads: the records' questions and ids, each record's dataset
 * sample, and no target (nothing is called but the metrics and their judges).
 */
function rescoreContext<M extends Metadata>(
  result: ResultData,
  metrics: readonly Metric<M>[],
  options: RescoreOptions<M>,
  samples: readonly EvalSample<M>[],
): SampleContext<M> {
  const records = result.samples;
  return {
    samples,
    questions: records.map((r) => r.question),
    ids: records.map((r) => r.sampleId),
    target: { retrieve: async () => [] },
    kind: "engine",
    metrics,
    timeoutMs: undefined,
    retries: undefined,
    signal: options.signal,
    cutter: undefined,
    keepChunkText: result.keepChunkText,
    direct: true,
    targetCache: undefined,
    limiter: undefined,
    judge:
      options.cache === undefined
        ? undefined
        : { cache: options.cache, refresh: options.refresh === true },
  };
}

/**
 * The sample at `i`, run with trials, scored again trial by trial; its scores are the new means.
 */
async function rescoreTrials<M extends Metadata>(
  ctx: SampleContext<M>,
  i: number,
  record: SampleResult,
  replay: boolean,
): Promise<SampleResult> {
  const trials: SampleTrial[] = [];
  let reference: SampleResult | undefined;
  for (const t of record.trials as readonly SampleTrial[]) {
    const one: SampleResult = { ...t, question: record.question };
    if (record.sampleId !== undefined) (one as { sampleId?: string }).sampleId = record.sampleId;
    const again = await rescoreOne(ctx, i, one, replay);
    reference ??= again;
    trials.push(trialOf(again));
  }
  return sampleOfTrials(
    ctx.metrics.map((m) => m.name),
    reference as SampleResult,
    trials,
  );
}

/**
 * The record of the sample at `i` (or one trial of it) scored again: the kept output through the
 * run's own scoring step. An errored record stays errored, with null scores for the new metrics.
 */
async function rescoreOne<M extends Metadata>(
  ctx: SampleContext<M>,
  i: number,
  record: SampleResult,
  replay: boolean,
): Promise<SampleResult> {
  if (record.status === "errored") {
    const scores: Record<string, number | null> = {};
    for (const m of ctx.metrics) setOwn(scores, m.name, null);
    const again = sampleRecord({
      question: record.question,
      sampleId: record.sampleId,
      status: "errored",
      scores,
      answer: null,
      retrievedIds: [],
      retrievedUris: [],
      latencyMs: record.latencyMs,
      error: record.error,
      attempts: record.attempts,
    });
    if (record.errorStack !== undefined) again.errorStack = record.errorStack;
    if (record.cached === true) again.cached = true;
    copyReference(again, ctx.samples[i] as EvalSample<M>);
    return again;
  }
  const output = outputOf(record, replay);
  const scored: Outcome = await scoreSample(ctx, i, output, record.latencyMs ?? 0, record.attempts);
  if (scored === CANCELLED) throw ctx.signal?.reason ?? new Error("rescore aborted");
  const again = scored as { -readonly [K in keyof SampleResult]: SampleResult[K] };
  if (record.cached === true) again.cached = true;
  return again;
}

/**
 * The output a record keeps, as the target returned it to the metrics. A format-1 record keeps
 * ids and uris only; an engine's record with no ids there is read as "no chunks returned" (format
 * 1 cannot tell it from an empty list), so retrieval metrics give `null` with the reason, never 0.
 */
function outputOf(record: SampleResult, replay: boolean): PipelineOutput {
  let chunks: readonly RetrievedChunk[];
  let reported: boolean;
  if (record.retrieved !== undefined) {
    reported = record.retrieved !== null;
    chunks = record.retrieved ?? [];
  } else {
    reported = !(record.answer !== null && record.retrievedIds.length === 0);
    chunks = record.retrievedIds.map((id, i) => {
      const uri = record.retrievedUris[i];
      return uri === null || uri === undefined ? { id } : { id, uri };
    });
  }
  return {
    answer: record.answer,
    chunks,
    ids: chunks.map((c) => c.id),
    uris: chunks.map((c) => c.uri ?? null),
    chunksReported: reported,
    usage: record.usage,
    keptJudgments: replay ? record.judgments : undefined,
  };
}

function copyReference<M extends Metadata>(
  record: { -readonly [K in keyof SampleResult]: SampleResult[K] },
  sample: EvalSample<M>,
): void {
  record.expectedAnswers = sample.expectedAnswers;
  record.relevantIds = sample.relevantIds;
  if (sample.relevance !== undefined) record.relevance = sample.relevance;
  if (sample.metadata !== undefined) record.metadata = sample.metadata;
}

function expectMetrics<M extends Metadata>(metrics: readonly Metric<M>[], where: string): void {
  if (!Array.isArray(metrics) || metrics.length === 0) {
    throw new ConfigurationError(`${where}: expected at least one metric, found none`, {
      kind: "invalid-option",
      option: "metrics",
    });
  }
  const seen = new Set<string>();
  for (const [i, m] of metrics.entries()) {
    if (typeof m !== "object" || m === null || typeof m.name !== "string") {
      throw new ConfigurationError(
        `${where}: metrics[${i}] is not a Metric (expected { name, score(), … })`,
        { kind: "invalid-option", option: "metrics" },
      );
    }
    if (typeof m.score !== "function" || typeof m.higherIsBetter !== "boolean") {
      throw new ConfigurationError(
        `${where}: metric "${m.name}" needs score() and a boolean higherIsBetter`,
        { kind: "invalid-option", option: "metrics" },
      );
    }
    if (seen.has(m.name)) {
      throw new ConfigurationError(
        `${where}: two metrics are named "${m.name}"; names must be unique`,
        { kind: "invalid-option", option: "metrics", field: "name" },
      );
    }
    seen.add(m.name);
  }
}

/** A metric that reads what the result did not keep is refused here, before any work. */
function expectKept<M extends Metadata>(
  result: ResultData,
  records: readonly SampleResult[],
  metrics: readonly Metric<M>[],
  where: string,
): void {
  for (const m of metrics) {
    if (m.needsChunkText === true && !result.keepChunkText) {
      throw new ConfigurationError(
        `${where}: metric "${m.name}" reads the retrieved chunks' text (field retrieved[].text), which this result did not keep; re-run with keepChunkText: true (CLI: run --keep-chunk-text, or keepChunkText: true in the config)`,
        { kind: "invalid-input", field: "retrieved[].text" },
      );
    }
  }
  const answered = records.some((r) => r.status !== "errored" && r.answer !== null);
  const ran = records.some((r) => r.status !== "errored");
  if (ran && !answered) {
    const needs = metrics.find((m) => m.needsAnswer);
    if (needs !== undefined) {
      throw new ConfigurationError(
        `${where}: metric "${needs.name}" needs an answer (field answer), but this result is of a Retriever run, which answers nothing; rescore it with retrieval metrics, or run a QueryEngine`,
        { kind: "invalid-input", field: "answer" },
      );
    }
  }
}

function datasetSamples<M extends Metadata>(
  dataset: DatasetLike<M> | undefined,
): readonly EvalSample<M>[] | undefined {
  if (dataset === undefined) return undefined;
  const samples = Array.isArray(dataset)
    ? (dataset as readonly EvalSample<M>[])
    : (dataset as { samples?: readonly EvalSample<M>[] }).samples;
  if (!Array.isArray(samples)) {
    throw new ConfigurationError(
      "rescore: dataset must be an array of samples or an object with `samples` (e.g. a QADataset)",
      { kind: "invalid-option", option: "dataset" },
    );
  }
  return samples;
}

/** Each record's dataset sample: from the dataset by id (else question), or from the record. */
function matchSamples<M extends Metadata>(
  records: readonly SampleResult[],
  dataset: DatasetLike<M> | undefined,
  where: string,
): EvalSample<M>[] {
  const given = datasetSamples(dataset);
  const out: EvalSample<M>[] = new Array(records.length);
  if (given === undefined) {
    for (let i = 0; i < records.length; i++) {
      const r = records[i] as SampleResult;
      if (r.expectedAnswers === undefined || r.relevantIds === undefined) {
        throw new ConfigurationError(
          `${where}: samples[${i}] keeps no expected_answers or relevant_ids (a format-1 result); pass the dataset it was run on (rescore(metrics, { dataset }), or the config's dataset)`,
          { kind: "invalid-input", field: "expected_answers" },
        );
      }
      const s: { -readonly [K in keyof EvalSample<M>]: EvalSample<M>[K] } = {
        question: r.question,
        expectedAnswers: r.expectedAnswers,
        relevantIds: r.relevantIds,
      };
      if (r.sampleId !== undefined) s.id = r.sampleId;
      if (r.relevance !== undefined) s.relevance = r.relevance;
      if (r.metadata !== undefined) s.metadata = r.metadata as M;
      out[i] = s;
    }
    return out;
  }
  const byId = new Map<string, EvalSample<M>>();
  const byQuestion = new Map<string, EvalSample<M>>();
  for (const s of given) {
    if (typeof s?.id === "string" && !byId.has(s.id)) byId.set(s.id, s);
    if (typeof s?.question === "string" && !byQuestion.has(s.question))
      byQuestion.set(s.question, s);
  }
  const missing: string[] = [];
  for (let i = 0; i < records.length; i++) {
    const r = records[i] as SampleResult;
    const s = r.sampleId !== undefined ? byId.get(r.sampleId) : byQuestion.get(r.question);
    if (s === undefined) {
      if (missing.length < 3)
        missing.push(
          r.sampleId !== undefined
            ? `id "${r.sampleId}"`
            : `question ${JSON.stringify(r.question)}`,
        );
      else missing.push("");
      continue;
    }
    out[i] = s;
  }
  if (missing.length > 0) {
    throw new ConfigurationError(
      `${where}: ${missing.length} of ${records.length} samples are not in the dataset given (${missing.filter(Boolean).join(", ")}${missing.length > 3 ? ", …" : ""}); rescore with the dataset the run was made from`,
      { kind: "invalid-option", option: "dataset" },
    );
  }
  return out;
}
