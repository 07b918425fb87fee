// The one worker pool: a fixed set of workers pulling the next index from one shared cursor, so
// only the workers are alive at any time (scheduling every item into a queue at once keeps a
// closure and a promise per item: docs/decisions/runner-worker-pool.md). The run loop, the trials
// loop, rescore and compare's loads all run on it.

/** What {@link runPool} works through. */
export interface PoolWork<T> {
  /** Items 0 … count - 1, started in order. */
  readonly count: number;
  /** Items in flight at once, at most. */
  readonly concurrency: number;
  /** Starts item `k`: the promise of its one awaited step (a target call, say). */
  start(k: number): Promise<T>;
  /**
   * What follows once item `k`'s start settled: `value` is what it resolved with, or what it
   * threw when `failed`; `ms` is how long it took, from the call of `start` (with `timed`, else
   * NaN). A returned promise is awaited before the worker takes another item; a throw rejects the
   * pool's run.
   */
  settle(k: number, value: unknown, failed: boolean, ms: number): void | Promise<void>;
  /** Time each start (two clock reads per item): `settle` gets `ms`. */
  readonly timed?: boolean | undefined;
  /** Asked before each new item is taken: true takes no more. */
  readonly stop?: (() => boolean) | undefined;
}

/**
 * Runs every item of `work` with at most `work.concurrency` in flight. An item is two steps, a
 * start and its settling, so that the worker awaits the start in its own frame: for an item that
 * is one call and some synchronous work (the runner's direct path), no async frame per item is
 * added between the call and the worker. Rejects with the first error a `settle` throws (the
 * other workers go on until the items run out, as `Promise.all` leaves them).
 */
export async function runPool<T>(work: PoolWork<T>): Promise<void> {
  const { count, stop } = work;
  const timed = work.timed === true;
  let cursor = 0;
  const worker = async (): Promise<void> => {
    while (cursor < count) {
      if (stop?.()) return;
      const k = cursor++;
      const t0 = timed ? performance.now() : Number.NaN;
      let value: unknown;
      let failed = false;
      try {
        value = await work.start(k);
      } catch (error) {
        value = error;
        failed = true;
      }
      const after = work.settle(k, value, failed, timed ? performance.now() - t0 : t0);
      if (after !== undefined) await after;
    }
  };
  const workers: Promise<void>[] = [];
  const n = Math.min(work.concurrency, count);
  for (let w = 0; w < n; w++) workers.push(worker());
  await Promise.all(workers);
}

/**
 * Runs `task(0)` … `task(count - 1)` with at most `concurrency` in flight, on {@link runPool}.
 * Indexes start in order; a rejected task rejects the whole call. `stop`, when given, is asked
 * before each new index is taken.
 */
export function forEachConcurrently(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
  stop?: () => boolean,
): Promise<void> {
  return runPool({ count, concurrency, start: task, settle: rethrowFailure, stop });
}

function rethrowFailure(_k: number, value: unknown, failed: boolean): void {
  if (failed) throw value;
}
