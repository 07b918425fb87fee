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
 * the worker script is not there to start (code run from the TypeScript sources).
 */
export function startShards(input: EvalInput, count: number): ShardWorkers | undefined {
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
  return {
    count,
    replies,
    stop: () => {
      for (const worker of workers) void worker.terminate();
    },
  };
}

function reply(worker: Worker): Promise<ShardMessage> {
  return new Promise((resolve) => {
    worker.once("message", resolve);
    worker.once("error", (error) => resolve({ ok: false, message: String(error) }));
    worker.once("exit", (code) => resolve({ ok: false, message: `exited with code ${code}` }));
  });
}
