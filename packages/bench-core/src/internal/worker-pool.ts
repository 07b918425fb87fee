/**
 * Runs `task(0)` … `task(count - 1)` with at most `concurrency` in flight: a fixed pool of
 * workers pulling the next index from one shared cursor, so only the workers are alive at any
 * time (scheduling every item into a queue at once would keep a closure and a promise per item).
 * Indexes start in order; a rejected task rejects the whole call once every worker has stopped.
 * `stop`, when given, is asked before each new index is taken.
 */
export async function forEachConcurrently(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
  stop?: () => boolean,
): Promise<void> {
  let cursor = 0;
  const worker = async (): Promise<void> => {
    while (cursor < count) {
      if (stop?.()) return;
      await task(cursor++);
    }
  };
  const workers: Promise<void>[] = [];
  const n = Math.min(concurrency, count);
  for (let w = 0; w < n; w++) workers.push(worker());
  await Promise.all(workers);
}
