import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { Benchmark, type Metric } from "@fastrag/bench-core";
import { QADataset, TrecRun } from "@fastrag/bench-datasets";

/** What `eval` prints from: every query's scores, in the qrels' order of first appearance. */
export interface EvalScores {
  /** The query ids. */
  readonly ids: readonly string[];
  /** Per query: whether its pipeline call errored. */
  readonly errored: readonly boolean[];
  /** Per metric (in the order given), per query: the score, `null` when not scorable. */
  readonly scores: readonly (number | null)[][];
}

/** What the options of one evaluation are, as a shard needs them. */
export interface EvalInput {
  readonly qrels: string;
  readonly run: string;
  readonly relevanceLevel: number | undefined;
  readonly metrics: readonly string[];
}

/** What a shard's worker is started with. */
export interface ShardData extends EvalInput {
  readonly index: number;
  readonly count: number;
}

/** What a shard's worker posts back: its queries' scores in its order, or why it failed. */
export type ShardMessage =
  | {
      readonly ok: true;
      /** Per query: 0 successful, 1 incomplete, 2 errored. */
      readonly statuses: Uint8Array;
      /** Per metric, per query: the score, NaN for `null` (scores are finite otherwise). */
      readonly scores: readonly Float64Array[];
    }
  | { readonly ok: false; readonly message: string };

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
): Promise<{ statuses: Uint8Array; scores: Float64Array[] }> {
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
  return { statuses, scores };
}

/**
 * Evaluates on `count` threads: this one runs shard 0 while workers run the others, and their
 * scores are put back in the qrels' order. Resolves `undefined` when the sharded evaluation
 * cannot stand for the whole one (a shard failed: bad input, which the caller then reports as an
 * unsharded evaluation does, or a shard with no query to score; or no worker module to start).
 */
export async function evalSharded(
  input: EvalInput,
  metrics: readonly Metric[],
  count: number,
): Promise<EvalScores | undefined> {
  const script = new URL("./eval-worker.js", import.meta.url);
  if (script.protocol !== "file:" || !existsSync(fileURLToPath(script))) return undefined;
  const workers: Worker[] = [];
  const replies: Promise<ShardMessage>[] = [];
  for (let index = 1; index < count; index++) {
    const worker = new Worker(script, {
      workerData: { ...input, index, count } satisfies ShardData,
    });
    workers.push(worker);
    replies.push(reply(worker));
  }
  try {
    const order: string[] = [];
    let own: { statuses: Uint8Array; scores: Float64Array[] };
    try {
      own = await runShard(input, metrics, 0, count, (queryId) => order.push(queryId));
    } catch {
      return undefined;
    }
    const shards: (ShardMessage & { ok: true })[] = [{ ok: true, ...own }];
    for (const message of await Promise.all(replies)) {
      if (!message.ok) return undefined;
      shards.push(message);
    }
    return mergeShards(order, shards, count, metrics.length);
  } finally {
    for (const worker of workers) void worker.terminate();
  }
}

function reply(worker: Worker): Promise<ShardMessage> {
  return new Promise((resolve) => {
    worker.once("message", resolve);
    worker.once("error", (error) => resolve({ ok: false, message: String(error) }));
    worker.once("exit", (code) => resolve({ ok: false, message: `exited with code ${code}` }));
  });
}

/** The shards' scores in the qrels' order; `undefined` when a shard's count disagrees. */
function mergeShards(
  order: readonly string[],
  shards: readonly (ShardMessage & { ok: true })[],
  count: number,
  metrics: number,
): EvalScores | undefined {
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
