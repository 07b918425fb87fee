// `eval`'s columnar path, the reading half: the qrels into flat per-judgment columns grouped by
// query (eval-qrels-columns.ts), and the run streamed one query at a time, each query's documents
// put in trec_eval's order and joined with its judgments, rank by rank, as the metric kernels read
// them (eval-run-reader.ts). Nothing is built per judgment or per document but numbers in typed
// arrays, and a docno is never decoded to a string. What the datasets package's loaders refuse is
// handed over to them (see HandOver), so errors read as they always have.

import { QrelsColumns, type QueryJudgments } from "./eval-qrels-columns.js";
import { HandOver, plainFileSize, readLines } from "./eval-read.js";
import { type JoinedRanking, RunReader } from "./eval-run-reader.js";

export type { JoinedRanking, QrelsColumns, QueryJudgments };

/**
 * Reads and groups the qrels (see {@link QrelsColumns.group}). Both paths are checked first, before
 * either is read: a pipe can be read only once, and the record path decompresses gzip itself, so
 * either is a {@link HandOver} from the start; so are qrels with no judgment (that path says so).
 */
export async function readQrels(
  qrelsPath: string,
  runPath: string,
  level: number | undefined,
): Promise<{ qrels: QrelsColumns; judgments: QueryJudgments }> {
  const [qrelsSize, runSize] = await Promise.all([
    plainFileSize(qrelsPath),
    plainFileSize(runPath),
  ]);
  if (qrelsSize < 0 || runSize < 0) throw new HandOver("an input that is not a plain regular file");
  const qrels = new QrelsColumns();
  // A qrels line is rarely under 16 bytes ("301 0 FBIS3-1 1" is 16 with its newline): room for
  // that many judgments spares the columns' regrowth (untouched pages cost nothing).
  qrels.reserve(Math.ceil(qrelsSize / 16));
  await readLines(qrelsPath, qrels);
  if (qrels.queries.size === 0) throw new HandOver("no judgments");
  return { qrels, judgments: qrels.group(level) };
}

/**
 * Streams the run through a {@link RunReader}, handing each judged query's joined ranking to
 * `onQuery`; returns, per qrels query, 1 when the run ranks it.
 */
export async function readRun(
  runPath: string,
  qrels: QrelsColumns,
  level: number | undefined,
  onQuery: (ranking: JoinedRanking) => void,
): Promise<Uint8Array> {
  const reader = new RunReader(qrels, level, onQuery);
  await readLines(runPath, reader);
  reader.finish();
  return reader.inRun;
}
