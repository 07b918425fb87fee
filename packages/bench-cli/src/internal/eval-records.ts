import {
  Benchmark,
  type BenchmarkResult,
  ConfigurationError,
  type DistributionSummary,
  type EvalSample,
  type Metric,
  type SampleResult,
} from "@fastrag/bench-core";
import { QADataset, TrecRun } from "@fastrag/bench-datasets";
import { NDCG } from "@fastrag/bench-metrics/retrieval";
import { InputSizes } from "./input-size.js";

/** What the options of one evaluation are. */
export interface EvalInput {
  readonly qrels: string;
  readonly run: string;
  readonly relevanceLevel: number | undefined;
  readonly metrics: readonly string[];
}

/** What `eval` prints from: every query's scores, in the qrels' order of first appearance. */
export interface EvalScores {
  /** How many queries. */
  readonly queries: number;
  /** The id of query `i` (decoded when asked: most are never printed). */
  id(i: number): string;
  /** Per query: 1 when its pipeline call errored (the record path's runner says so), else 0. */
  readonly errored: Uint8Array;
  /** Per metric (in the order given), per query: the score, NaN for `null` (never a score). */
  readonly scores: readonly Float64Array[];
  /** Per metric: how many queries it scored, and the mean of their scores (`null` for none). */
  readonly summaries: readonly (Pick<DistributionSummary, "count" | "mean"> | undefined)[];
  /**
   * How many of the queries with a relevant document the run has no ranking for: they score 0,
   * as with trec_eval -c. (Queries with none are left out whether the run has them or not.)
   */
  readonly missing: number;
  /**
   * Per query, trec_eval's counts: documents retrieved (`num_ret`), relevant documents in the
   * qrels (`num_rel`, a grade above 0 or at least `-l`), and relevant documents retrieved
   * (`num_rel_ret`). Typed columns, like the scores.
   */
  readonly counts: EvalCounts;
  /** The record path's result, when it ran (what `eval --save` writes). */
  readonly result?: BenchmarkResult;
}

/** trec_eval's `num_ret`, `num_rel` and `num_rel_ret`, per query. */
export interface EvalCounts {
  readonly retrieved: Int32Array;
  readonly relevant: Int32Array;
  readonly relevantRetrieved: Int32Array;
}

/**
 * The record path: the qrels loaded as a dataset, the run as a replay target, and the queries run
 * through the Benchmark runner and the metric classes, as any benchmark is. The reference the
 * columnar path (eval-score.ts) is tested against, and what takes over where that path hands over:
 * its loaders say what is wrong with a bad input.
 */
export async function evalRecords(
  input: EvalInput,
  metrics: readonly Metric[],
  sizes: InputSizes = new InputSizes(input.qrels, input.run),
): Promise<EvalScores> {
  // Decided before either load starts: an await between them would leave the first one's
  // rejection unhandled for a moment, and Node ends the process on that.
  const thread = await worthAThread(sizes);
  const [dataset, run] = await Promise.all([
    QADataset.fromTrec({
      qrels: input.qrels,
      ...(input.relevanceLevel !== undefined ? { relevanceLevel: input.relevanceLevel } : {}),
    }),
    TrecRun.load(input.run, { thread }),
  ]);
  expectJudged(dataset.samples, input, metrics);
  const benchmark = new Benchmark({ dataset, metrics, maxConcurrent: 64 });
  const result: BenchmarkResult = await benchmark.run(run, { name: run.tag ?? "run" });
  const samples = result.samples;
  const ids = samples.map((s) => s.sampleId ?? s.question);
  return {
    counts: countsOf(samples),
    result,
    missing: missingFrom(run, dataset.samples),
    queries: samples.length,
    id: (i) => ids[i] as string,
    errored: Uint8Array.from(samples, (s) => (s.status === "errored" ? 1 : 0)),
    scores: metrics.map((m) => Float64Array.from(samples, (s) => s.scores[m.name] ?? Number.NaN)),
    summaries: metrics.map((m) => result.summary[m.name]),
  };
}

/**
 * trec_eval's counts from the records: each query's ranking (an errored query retrieved nothing),
 * its relevant ids (already cut by `-l`), and how many of the one are in the other.
 */
function countsOf(samples: readonly SampleResult[]): EvalCounts {
  const n = samples.length;
  const counts = {
    retrieved: new Int32Array(n),
    relevant: new Int32Array(n),
    relevantRetrieved: new Int32Array(n),
  };
  for (let i = 0; i < n; i++) {
    const s = samples[i] as SampleResult;
    const relevant = new Set(s.relevantIds ?? []);
    counts.retrieved[i] = s.retrievedIds.length;
    counts.relevant[i] = relevant.size;
    let hits = 0;
    for (const id of s.retrievedIds) if (relevant.has(id)) hits++;
    counts.relevantRetrieved[i] = hits;
  }
  return counts;
}

/**
 * Refuses, naming the qrels file, what the runner would refuse in its own terms: no judgment at
 * all, or nothing any of the measures can score. Under `-l` above every grade the binary
 * measures have no relevant document, but nDCG still scores the positive grades (as trec_eval
 * does, whose `-l` leaves ndcg alone). (The columnar path hands these cases over to this one, so
 * they are reported here.)
 */
function expectJudged(
  samples: readonly EvalSample[],
  input: EvalInput,
  metrics: readonly Metric[],
): void {
  if (samples.length === 0) {
    throw new ConfigurationError(
      `${input.qrels}: no judgments; expected lines "qid iter docno rel"`,
      { kind: "invalid-input", path: input.qrels },
    );
  }
  const graded = metrics.some((m) => m instanceof NDCG) && samples.some(hasPositiveGrade);
  if (!graded && !samples.some((s) => s.relevantIds.length > 0)) {
    const level = input.relevanceLevel;
    throw new ConfigurationError(
      level === undefined
        ? `${input.qrels}: no query has a relevant document (a grade above 0), so there is nothing to score`
        : `${input.qrels}: no query has a document of grade ${level} or more, so there is nothing to score; lower -l (or measure ndcg, which reads the grades whatever -l says)`,
      { kind: "invalid-input", path: input.qrels },
    );
  }
}

function hasPositiveGrade(sample: EvalSample): boolean {
  const relevance = sample.relevance;
  if (relevance === undefined) return false;
  for (const id in relevance)
    if (Object.hasOwn(relevance, id) && (relevance[id] as number) > 0) return true;
  return false;
}

/** How many samples with a relevant id `run` has no ranking for (see `EvalScores.missing`). */
function missingFrom(run: TrecRun, samples: readonly EvalSample[]): number {
  let missing = 0;
  for (const s of samples) if (s.relevantIds.length > 0 && !run.has(s.id ?? s.question)) missing++;
  return missing;
}

/**
 * Whether to parse the run on a worker thread while the qrels are read: when the run is at least
 * 8 MiB and the qrels at least 1/16 of its size (a thread's start and hand-over cost more
 * otherwise; the measurements are in docs/decisions/eval-reading.md).
 */
async function worthAThread(sizes: InputSizes): Promise<boolean> {
  // Sized as text: a gzip file counts by the size it unpacks to (the loaders report a bad path).
  const { run: runSize, qrels: qrelsSize } = await sizes.get();
  if (runSize === undefined || qrelsSize === undefined) return false;
  return runSize >= 8 * 1024 * 1024 && qrelsSize * 16 >= runSize;
}
