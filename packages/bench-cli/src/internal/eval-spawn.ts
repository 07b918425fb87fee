import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

// Kept apart from the evaluation code and its imports (the datasets and metrics packages), so
// that `eval` starts its workers before this thread spends time loading those.

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
      /** How many of its queries with a relevant document the run has no ranking for. */
      readonly missing: number;
    }
  | { readonly ok: false; readonly message: string };

/** Shards 1 … count-1 of an evaluation, running on workers. */
export interface ShardWorkers {
  readonly count: number;
  /** One reply per worker, in shard order; never rejects. */
  readonly replies: readonly Promise<ShardMessage>[];
  /** Ends the workers (after their replies, or to give up on them). */
  stop(): void;
}

/**
 * Starts workers for shards 1 … count-1 (this thread takes shard 0), or returns `undefined` where
 * they cannot start: the worker script is not there (code run from the TypeScript sources), or
 * creating a thread throws (out of memory or of threads). The caller then evaluates on one thread.
 */
export function startShards(input: EvalInput, count: number): ShardWorkers | undefined {
  const script = new URL("./eval-worker.js", import.meta.url);
  if (script.protocol !== "file:" || !existsSync(fileURLToPath(script))) return undefined;
  const workers: Worker[] = [];
  const replies: Promise<ShardMessage>[] = [];
  const stop = () => {
    for (const worker of workers) void worker.terminate();
  };
  try {
    for (let index = 1; index < count; index++) {
      const worker = new Worker(script, {
        workerData: { ...input, index, count } satisfies ShardData,
      });
      workers.push(worker);
      replies.push(reply(worker));
    }
  } catch {
    stop();
    return undefined;
  }
  return { count, replies, stop };
}

/**
 * Every reply, in shard order, once all are in; or `undefined` as soon as one shard has failed,
 * without waiting for the others (the caller then gives the sharded evaluation up).
 */
export function allReplies(
  replies: readonly Promise<ShardMessage>[],
): Promise<(ShardMessage & { ok: true })[] | undefined> {
  return new Promise((resolve) => {
    const out: (ShardMessage & { ok: true })[] = new Array(replies.length);
    let pending = replies.length;
    if (pending === 0) resolve(out);
    replies.forEach((promise, k) => {
      void promise.then((message) => {
        if (!message.ok) {
          resolve(undefined);
          return;
        }
        out[k] = message;
        if (--pending === 0) resolve(out);
      });
    });
  });
}

function reply(worker: Worker): Promise<ShardMessage> {
  return new Promise((resolve) => {
    worker.once("message", resolve);
    worker.once("error", (error) => resolve({ ok: false, message: String(error) }));
    worker.once("exit", (code) => resolve({ ok: false, message: `exited with code ${code}` }));
  });
}
