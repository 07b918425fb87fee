// Runs on a worker thread for `fastrag-bench eval --threads n`: evaluates one shard (the queries
// whose id hashes to it) and posts its scores back, the typed arrays transferred.
import { parentPort, workerData } from "node:worker_threads";
import { runShard } from "./eval-shards.js";
import type { ShardData, ShardMessage } from "./eval-spawn.js";
import { retrievalMetric } from "./metric-spec.js";

const port = parentPort;
if (port !== null) {
  const data = workerData as ShardData;
  try {
    const { statuses, scores, missing } = await runShard(
      data,
      data.metrics.map(retrievalMetric),
      data.index,
      data.count,
    );
    const message: ShardMessage = { ok: true, statuses, scores, missing };
    port.postMessage(message, [
      statuses.buffer as ArrayBuffer,
      ...scores.map((s) => s.buffer as ArrayBuffer),
    ]);
  } catch (error) {
    const message: ShardMessage = {
      ok: false,
      message: error instanceof Error ? error.message : String(error),
    };
    port.postMessage(message);
  }
}
