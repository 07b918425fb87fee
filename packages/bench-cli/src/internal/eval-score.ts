import type { Metric } from "@fastrag/bench-core";
import { meanOfValues } from "@fastrag/bench-core/internal/base";
import {
  averagePrecisionOfFlags,
  hitRateOfFlags,
  ndcgOfGains,
  precisionOfFlags,
  recallOfFlags,
  reciprocalRankOfFlags,
  rPrecisionOfFlags,
} from "@fastrag/bench-metrics/kernels";
import {
  HitRate,
  MAP,
  MRR,
  NDCG,
  Precision,
  Recall,
  RPrecision,
} from "@fastrag/bench-metrics/retrieval";
import { type JoinedRanking, type QueryJudgments, readQrels, readRun } from "./eval-columns.js";
import { HandOver } from "./eval-read.js";
import type { EvalInput, EvalScores } from "./eval-records.js";

// `eval`'s columnar path, the scoring half: each query's joined ranking goes through the same
// kernels, with the same arguments, as the metric classes pass them (see each class's `score`), so
// every score is the one the Benchmark runner would record, to the last bit. The differential
// test (eval-columnar.test.ts) holds the two paths to that.

const Kind = {
  Map: 0,
  Mrr: 1,
  Ndcg: 2,
  Recall: 3,
  Precision: 4,
  HitRate: 5,
  RPrecision: 6,
} as const;
type Kind = (typeof Kind)[keyof typeof Kind];

/** What one metric computes: its kernel and cutoff. */
interface Plan {
  readonly kind: Kind;
  readonly k: number;
}

/** The kernel and cutoff of a chunk-level retrieval metric; a HandOver for any other. */
function planOf(metric: Metric): Plan {
  const level = (metric as { level?: unknown }).level;
  if (level !== "chunk") throw new HandOver(`metric ${metric.name} is not a chunk-level metric`);
  const infinite = Number.POSITIVE_INFINITY;
  // The same cutoffs the classes use: `k`, or Infinity where a cutoff is optional.
  if (metric instanceof MAP) return { kind: Kind.Map, k: metric.k ?? infinite };
  if (metric instanceof MRR) return { kind: Kind.Mrr, k: metric.k ?? infinite };
  if (metric instanceof NDCG) return { kind: Kind.Ndcg, k: metric.k };
  if (metric instanceof Recall) return { kind: Kind.Recall, k: metric.k };
  if (metric instanceof Precision) return { kind: Kind.Precision, k: metric.k };
  if (metric instanceof HitRate) return { kind: Kind.HitRate, k: metric.k };
  if (metric instanceof RPrecision) return { kind: Kind.RPrecision, k: infinite };
  throw new HandOver(`metric ${metric.name} has no kernel here`);
}

/**
 * Scores one query into `out[m][query]` (NaN for `null`): `null` where the class returns it (no
 * relevant document; for nDCG, no relevant document and no positive grade either).
 */
function scoreQuery(
  ranking: JoinedRanking,
  plans: readonly Plan[],
  judgments: QueryJudgments,
  ideal: { gains: Float64Array },
  out: readonly Float64Array[],
): void {
  const q = ranking.query;
  const n = ranking.length;
  const relevant = ranking.relevant;
  const r = judgments.relevantCount[q] as number;
  const from = judgments.idealStart[q] as number;
  const m = (judgments.idealStart[q + 1] as number) - from;
  let idealGains: Float64Array | undefined;
  for (let p = 0; p < plans.length; p++) {
    const plan = plans[p] as Plan;
    const column = out[p] as Float64Array;
    if (plan.kind === Kind.Ndcg) {
      if (m === 0 && r === 0) {
        column[q] = Number.NaN;
        continue;
      }
      if (idealGains === undefined) {
        if (ideal.gains.length < m) ideal.gains = new Float64Array(m * 2);
        // Copied value by value: a subarray per query is an object per query to collect.
        const all = judgments.idealGains;
        const gains = ideal.gains;
        for (let i = 0; i < m; i++) gains[i] = all[from + i] as number;
        idealGains = gains;
      }
      column[q] = ndcgOfGains(ranking.gains, n, idealGains, m, plan.k);
      continue;
    }
    if (r === 0) {
      column[q] = Number.NaN;
      continue;
    }
    switch (plan.kind) {
      case Kind.Map:
        column[q] = averagePrecisionOfFlags(relevant, n, r, plan.k);
        break;
      case Kind.Mrr:
        column[q] = reciprocalRankOfFlags(relevant, n, plan.k);
        break;
      case Kind.Recall:
        column[q] = recallOfFlags(relevant, n, r, plan.k);
        break;
      case Kind.Precision:
        column[q] = precisionOfFlags(relevant, n, plan.k);
        break;
      case Kind.HitRate:
        column[q] = hitRateOfFlags(relevant, n, plan.k);
        break;
      case Kind.RPrecision:
        column[q] = rPrecisionOfFlags(relevant, n, r);
        break;
    }
  }
}

/**
 * The columnar evaluation: both files streamed into typed columns (the qrels whole, the run one
 * query at a time), each judged query scored by the metric kernels as its last run line is read.
 * Gives what the record path (`evalRecords`) gives, bit for bit.
 *
 * @throws {HandOver} where the record path must take over: an input it reports as an error (it
 *   then reports it, in its words), a gzip file or a pipe, a run whose query lines are not
 *   contiguous, or a metric without a kernel here.
 */
export async function evalColumnar(
  input: EvalInput,
  metrics: readonly Metric[],
): Promise<EvalScores> {
  const plans = metrics.map(planOf);
  const level = input.relevanceLevel;
  const { qrels, judgments } = await readQrels(input.qrels, input.run, level);
  const queries = qrels.queries.size;
  // What the record path refuses (`expectJudged`): nothing any measure can score. Under -l above
  // every grade the binary measures have nothing, but nDCG still scores the positive grades.
  let scorable = false;
  for (let q = 0; q < queries && !scorable; q++)
    if ((judgments.relevantCount[q] as number) > 0) scorable = true;
  if (!scorable && plans.some((plan) => plan.kind === Kind.Ndcg))
    scorable = judgments.idealGains.length > 0;
  if (!scorable) throw new HandOver("nothing to score");
  const out = plans.map(() => new Float64Array(queries));
  const ideal = { gains: new Float64Array(64) };
  // trec_eval's counts: typed columns filled as each ranking goes by (queries the run lacks
  // retrieved nothing).
  const retrieved = new Int32Array(queries);
  const relevantRetrieved = new Int32Array(queries);
  const inRun = await readRun(input.run, qrels, level, (ranking) => {
    scoreQuery(ranking, plans, judgments, ideal, out);
    const n = ranking.length;
    const flags = ranking.relevant;
    let hits = 0;
    for (let i = 0; i < n; i++) hits += flags[i] as number;
    retrieved[ranking.query] = n;
    relevantRetrieved[ranking.query] = hits;
  });
  // The judged queries the run lacks score as an empty ranking does (trec_eval -c).
  const empty = { query: 0, length: 0, relevant: new Uint8Array(0), gains: new Float64Array(0) };
  let missing = 0;
  for (let q = 0; q < queries; q++) {
    if (inRun[q] === 1) continue;
    empty.query = q;
    scoreQuery(empty, plans, judgments, ideal, out);
    if ((judgments.relevantCount[q] as number) > 0) missing++;
  }
  const ids = qrels.queries;
  // One buffer for every metric's scores (meanOfValues may sort it in place).
  const values = new Float64Array(queries);
  return {
    queries,
    id: (i) => ids.text(i),
    errored: new Uint8Array(queries),
    scores: out,
    // The runner's means, bit for bit: of each metric's non-null scores, added in ascending
    // order (meanOfValues counts few distinct values, or sorts), so the mean's rounding does not
    // depend on the queries' order. Only the mean and the count are printed.
    summaries: out.map((column) => {
      let count = 0;
      for (let q = 0; q < queries; q++) {
        const v = column[q] as number;
        if (!Number.isNaN(v)) values[count++] = v;
      }
      return { count, mean: meanOfValues(values.subarray(0, count)) };
    }),
    missing,
    counts: { retrieved, relevant: judgments.relevantCount, relevantRetrieved },
  };
}
