import {
  Benchmark,
  type BenchmarkResult,
  ConfigurationError,
  type DistributionSummary,
  type EvalSample,
  type Metric,
  summarize,
} from "@fastrag/bench-core";
import { QADataset, TrecRun } from "@fastrag/bench-datasets";
import { NDCG } from "@fastrag/bench-metrics/retrieval";
import { allReplies, type EvalInput, type ShardMessage, type ShardWorkers } from "./eval-spawn.js";
import { InputSizes } from "./input-size.js";

/** What `eval` prints from: every query's scores, in the qrels' order of first appearance. */
export interface EvalScores {
  /** The query ids. */
  readonly ids: readonly string[];
  /** Per query: whether its pipeline call errored. */
  readonly errored: readonly boolean[];
  /** Per metric (in the order given), per query: the score, `null` when not scorable. */
  readonly scores: readonly (number | null)[][];
  /** Per metric: the summary of its scores. */
  readonly summaries: readonly (DistributionSummary | undefined)[];
  /**
   * How many of the queries with a relevant document the run has no ranking for: they score 0,
   * as with trec_eval -c. (Queries with none are left out whether the run has them or not.)
   */
  readonly missing: number;
}

/**
 * The shard (0 … count-1) a query belongs to: a hash of its id, so that every thread reading the
 * qrels and the run decides alone, and alike, which lines are its own. FNV-1a over UTF-16 code
 * units, then murmur3's finalizer so that every bit of the id counts.
 */
export function shardOf(queryId: string, count: number): number {
  let h = -2128831035;
  for (let i = 0; i < queryId.length; i++) h = Math.imul(h ^ queryId.charCodeAt(i), 16777619);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) % count;
}

/**
 * Runs shard `index` of `count` on this thread: the qrels and run lines of its queries only,
 * through the same Benchmark runner and metrics as an unsharded evaluation.
 */
export async function runShard(
  input: EvalInput,
  metrics: readonly Metric[],
  index: number,
  count: number,
  onQuery?: (queryId: string) => void,
): Promise<{ statuses: Uint8Array; scores: Float64Array[]; missing: number }> {
  const mine = (queryId: string): boolean => {
    onQuery?.(queryId);
    return shardOf(queryId, count) === index;
  };
  const dataset = await QADataset.fromTrec({
    qrels: input.qrels,
    ...(input.relevanceLevel !== undefined ? { relevanceLevel: input.relevanceLevel } : {}),
    queries: mine,
  });
  const run = await TrecRun.load(input.run, {
    queries: (queryId) => shardOf(queryId, count) === index,
  });
  const result = await new Benchmark({ dataset, metrics, maxConcurrent: 64 }).run(run, {
    name: run.tag ?? "run",
  });
  const missing = missingFrom(run, dataset.samples);
  const samples = result.samples;
  const statuses = new Uint8Array(samples.length);
  const scores = metrics.map(() => new Float64Array(samples.length));
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    statuses[i] = s.status === "successful" ? 0 : s.status === "incomplete" ? 1 : 2;
    for (let m = 0; m < metrics.length; m++) {
      const v = s.scores[metrics[m]!.name];
      scores[m]![i] = v === null || v === undefined ? Number.NaN : v;
    }
  }
  return { statuses, scores, missing };
}

/**
 * Evaluates on `workers.count` threads: this one runs shard 0 while the workers run the others,
 * and their scores are put back in the qrels' order. Resolves `undefined` when the sharded
 * evaluation cannot stand for the whole one: a shard failed (bad input, which the caller then
 * reports as an unsharded evaluation does, or a shard with no query to score).
 */
export async function evalSharded(
  input: EvalInput,
  metrics: readonly Metric[],
  workers: ShardWorkers,
): Promise<EvalScores | undefined> {
  const count = workers.count;
  const order: string[] = [];
  let own: { statuses: Uint8Array; scores: Float64Array[]; missing: number };
  try {
    own = await runShard(input, metrics, 0, count, (queryId) => order.push(queryId));
  } catch {
    return undefined;
  }
  const theirs = await allReplies(workers.replies);
  if (theirs === undefined) return undefined;
  const shards: (ShardMessage & { ok: true })[] = [{ ok: true, ...own }, ...theirs];
  const merged = mergeShards(order, shards, count, metrics.length);
  if (merged === undefined) return undefined;
  let missing = 0;
  for (const shard of shards) missing += shard.missing;
  const summaries = merged.scores.map((column) => summarize(column));
  // Nothing scored at all (no relevant document, e.g. -l above every grade with binary measures
  // only): the unsharded evaluation refuses that, naming the qrels, so it is left to say so.
  if (summaries.every((summary) => summary.count === 0)) return undefined;
  return { ...merged, summaries, missing };
}

/** The unsharded evaluation: the whole qrels and run on this thread (the run parsed beside it). */
export async function evalWhole(
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
  checkJudged(dataset.samples, input, metrics);
  const benchmark = new Benchmark({ dataset, metrics, maxConcurrent: 64 });
  const result: BenchmarkResult = await benchmark.run(run, { name: run.tag ?? "run" });
  const samples = result.samples;
  return {
    missing: missingFrom(run, dataset.samples),
    ids: samples.map((s) => s.sampleId ?? s.question),
    errored: samples.map((s) => s.status === "errored"),
    scores: metrics.map((m) => samples.map((s) => s.scores[m.name] ?? null)),
    summaries: metrics.map((m) => result.summary[m.name]),
  };
}

/**
 * Refuses, naming the qrels file, what the runner would refuse in its own terms: no judgment at
 * all, or nothing any of the measures can score. Under `-l` above every grade the binary
 * measures have no relevant document, but nDCG still scores the positive grades (as trec_eval
 * does, whose `-l` leaves ndcg alone). (Sharded evaluations fall back to this one on any failure,
 * so they report these errors as it does.)
 */
function checkJudged(
  samples: readonly EvalSample[],
  input: EvalInput,
  metrics: readonly Metric[],
): void {
  if (samples.length === 0) {
    throw new ConfigurationError(
      `${input.qrels}: no judgments; expected lines "qid iter docno rel"`,
    );
  }
  const graded = metrics.some((m) => m instanceof NDCG) && samples.some(hasPositiveGrade);
  if (!graded && !samples.some((s) => s.relevantIds.length > 0)) {
    const level = input.relevanceLevel;
    throw new ConfigurationError(
      level === undefined
        ? `${input.qrels}: no query has a relevant document (a grade above 0), so there is nothing to score`
        : `${input.qrels}: no query has a document of grade ${level} or more, so there is nothing to score; lower -l (or measure ndcg, which reads the grades whatever -l says)`,
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
 * Whether to parse the run on a worker thread while the qrels are read. Starting one costs about
 * 0.1 s, which a run under 8 MiB (~300,000 lines) does not win back; and handing its docnos over
 * costs about 0.3 µs each, which only a long qrels parse to overlap wins back. So a thread is worth
 * it when the qrels are at least 1/16 the run's size (measured: 10^4 queries × 100 docs with 15
 * judgments each, 1/11, gain 0.1 s; MS MARCO's 6,980 queries × 1,000 docs with 1 or 2 each,
 * 1/1,200, lose 4 s of 13).
 */
async function worthAThread(sizes: InputSizes): Promise<boolean> {
  // Sized as text: a gzip file counts by the size it unpacks to (the loaders report a bad path).
  const { run: runSize, qrels: qrelsSize } = await sizes.get();
  if (runSize === undefined || qrelsSize === undefined) return false;
  return runSize >= 8 * 1024 * 1024 && qrelsSize * 16 >= runSize;
}

/** The shards' scores in the qrels' order; `undefined` when a shard's count disagrees. */
function mergeShards(
  order: readonly string[],
  shards: readonly (ShardMessage & { ok: true })[],
  count: number,
  metrics: number,
): Omit<EvalScores, "summaries" | "missing"> | undefined {
  const next = new Int32Array(count);
  const errored: boolean[] = new Array(order.length);
  const scores: (number | null)[][] = [];
  for (let m = 0; m < metrics; m++) scores.push(new Array(order.length));
  for (let i = 0; i < order.length; i++) {
    const k = shardOf(order[i]!, count);
    const shard = shards[k]!;
    const j = next[k]!;
    if (j >= shard.statuses.length) return undefined;
    next[k] = j + 1;
    errored[i] = shard.statuses[j] === 2;
    for (let m = 0; m < metrics; m++) {
      const v = shard.scores[m]![j]!;
      scores[m]![i] = Number.isNaN(v) ? null : v;
    }
  }
  for (let k = 0; k < count; k++) if (next[k] !== shards[k]!.statuses.length) return undefined;
  return { ids: order, errored, scores };
}
