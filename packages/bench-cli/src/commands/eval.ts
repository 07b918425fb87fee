import { stat } from "node:fs/promises";
import { Benchmark, type BenchmarkResult } from "@fastrag/bench-core";
import { QADataset, TrecRun } from "@fastrag/bench-datasets";
import { type Io, UsageError, writeLine } from "../internal/io.js";
import { retrievalMetric } from "../internal/metric-spec.js";

export interface EvalOptions {
  readonly qrels: string;
  readonly run: string;
  readonly metric?: readonly string[];
  readonly perQuery?: boolean;
  readonly json?: boolean;
  readonly relevanceLevel?: string;
}

/** The measures `eval` prints when no `-m` is given. */
export const DEFAULT_EVAL_METRICS: readonly string[] = [
  "map",
  "mrr",
  "r_precision",
  "ndcg@10",
  "recall@100",
  "precision@10",
];

/**
 * `fastrag-bench eval`: offline evaluation of a TREC run against qrels, replayed through the same
 * runner and metrics as any benchmark. Prints `metric<TAB>query|all<TAB>value` with 4 decimals.
 */
export async function evalCommand(options: EvalOptions, io: Io): Promise<number> {
  const level = options.relevanceLevel === undefined ? undefined : Number(options.relevanceLevel);
  if (level !== undefined && !Number.isFinite(level)) {
    throw new UsageError(`--relevance-level "${options.relevanceLevel}": expected a number`);
  }
  const specs = options.metric && options.metric.length > 0 ? options.metric : DEFAULT_EVAL_METRICS;
  const metrics = specs.map(retrievalMetric);
  const names = new Set<string>();
  for (const m of metrics) {
    if (names.has(m.name)) throw new UsageError(`-m ${m.name} is given twice`);
    names.add(m.name);
  }
  // Decided before either load starts: an await between them would leave the first one's
  // rejection unhandled for a moment, and Node ends the process on that.
  const thread = await worthAThread(options.run);
  const [dataset, run] = await Promise.all([
    QADataset.fromTrec({
      qrels: options.qrels,
      ...(level !== undefined ? { relevanceLevel: level } : {}),
    }),
    TrecRun.load(options.run, { thread }),
  ]);
  const benchmark = new Benchmark({ dataset, metrics, maxConcurrent: 64 });
  const result: BenchmarkResult = await benchmark.run(run, { name: run.tag ?? "run" });
  const leftOut = result.samples.filter(
    (s) => s.status !== "errored" && metrics.every((m) => s.scores[m.name] === null),
  );
  if (options.json) {
    const out: Record<string, unknown> = {
      run: options.run,
      qrels: options.qrels,
      queries: result.samples.length,
      left_out: leftOut.map((s) => s.sampleId),
      metrics: Object.fromEntries(
        metrics.map((m) => [
          m.name,
          {
            all: result.summary[m.name]?.mean ?? null,
            count: result.summary[m.name]?.count ?? 0,
            ...(options.perQuery
              ? {
                  per_query: Object.fromEntries(
                    result.samples.map((s) => [s.sampleId ?? s.question, s.scores[m.name] ?? null]),
                  ),
                }
              : {}),
          },
        ]),
      ),
    };
    writeLine(io.stdout, JSON.stringify(out, null, 2));
  } else {
    const lines: string[] = [];
    if (options.perQuery) {
      for (const s of result.samples) {
        for (const m of metrics) {
          const v = s.scores[m.name];
          if (v !== null && v !== undefined)
            lines.push(`${m.name}\t${s.sampleId ?? s.question}\t${v.toFixed(4)}`);
        }
      }
    }
    for (const m of metrics) {
      const mean = result.summary[m.name]?.mean;
      lines.push(`${m.name}\tall\t${mean === null || mean === undefined ? "—" : mean.toFixed(4)}`);
    }
    io.stdout.write(`${lines.join("\n")}\n`);
  }
  const errored = result.status.errored;
  if (errored > 0)
    writeLine(io.stderr, `warning: ${errored} quer${errored === 1 ? "y" : "ies"} errored`);
  if (leftOut.length > 0) {
    const ids = leftOut
      .slice(0, 5)
      .map((s) => s.sampleId)
      .join(", ");
    writeLine(
      io.stderr,
      `note: left out ${leftOut.length} quer${leftOut.length === 1 ? "y" : "ies"} with no relevant documents (${ids}${leftOut.length > 5 ? ", …" : ""}); trec_eval averages them in as 0`,
    );
  }
  return 0;
}

/**
 * Whether to parse the run on a worker thread while the qrels are read: starting one costs about
 * 0.1 s here, which a run under 8 MiB (~300,000 lines) does not win back.
 */
async function worthAThread(path: string): Promise<boolean> {
  try {
    return (await stat(path)).size >= 8 * 1024 * 1024;
  } catch {
    return false; // TrecRun.load reports the problem
  }
}
