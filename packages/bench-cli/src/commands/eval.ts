import type { Metric } from "@fastrag/bench-core";
import type { EvalInput, EvalScores } from "../internal/eval-records.js";
import { cliPath, type Io, UsageError, writeLine } from "../internal/io.js";
import { printable } from "../internal/printable.js";
import { trecFixed4 } from "../internal/trec-format.js";

export interface EvalOptions {
  readonly qrels: string;
  readonly run: string;
  readonly metric?: readonly string[];
  readonly perQuery?: boolean;
  readonly json?: boolean;
  readonly relevanceLevel?: string;
  readonly threads?: string;
}

/**
 * trec_eval's list of cutoffs in one measure, `-m P.5,10` or `-m ndcg_cut.5,10`, as one spec per
 * cutoff (`P.5`, `P.10`); also with our names (`recall@5,10`). A measure named without a
 * cutoff (`-m P`, `-m ndcg_cut`, `-m success`) takes trec_eval's default cutoffs. Anything else
 * is returned as is.
 */
function expandCutoffs(spec: string): string[] {
  const bare = TREC_DEFAULT_CUTOFFS.get(spec.trim());
  if (bare !== undefined) return bare.map((k) => `${spec.trim()}_${k}`);
  const m = /^(.+?[._@])(\d+(?:,\d+)+)$/.exec(spec.trim());
  if (m === null) return [spec];
  return (m[2] as string).split(",").map((k) => `${m[1]}${k}`);
}

const TREC_CUTOFFS = [5, 10, 15, 20, 30, 100, 200, 500, 1000];

/** trec_eval's measures named without cutoffs (`-m P`), and the cutoffs it then prints. */
const TREC_DEFAULT_CUTOFFS: ReadonlyMap<string, readonly number[]> = new Map([
  ["P", TREC_CUTOFFS],
  ["recall", TREC_CUTOFFS],
  ["ndcg_cut", TREC_CUTOFFS],
  ["map_cut", TREC_CUTOFFS],
  ["success", [1, 5, 10]],
]);

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
 * `fastrag-bench eval`: offline evaluation of a TREC run against qrels, with the numbers the
 * Benchmark runner and metric classes give (the columnar path calls the classes' kernels; see
 * `evaluate`). Prints `metric<TAB>query|all<TAB>value` with 4 decimals.
 */
export async function evalCommand(options: EvalOptions, io: Io): Promise<number> {
  const level = options.relevanceLevel === undefined ? undefined : Number(options.relevanceLevel);
  if (level !== undefined && !Number.isFinite(level)) {
    throw new UsageError(`--relevance-level "${options.relevanceLevel}": expected a number`);
  }
  const specs =
    options.metric && options.metric.length > 0
      ? options.metric.flatMap(expandCutoffs)
      : DEFAULT_EVAL_METRICS;
  const qrels = cliPath(io, options.qrels);
  const run = cliPath(io, options.run);
  checkThreads(options.threads);
  const input: EvalInput = {
    qrels,
    run,
    relevanceLevel: level,
    metrics: specs,
  };
  const { retrievalMetric } = await import("../internal/metric-spec.js");
  const metrics = specs.map(retrievalMetric);
  const names = new Set<string>();
  for (const m of metrics) {
    if (names.has(m.name)) throw new UsageError(`-m ${m.name} is given twice`);
    names.add(m.name);
  }
  const scored = await evaluate(input, metrics);
  const { queries, errored, scores, summaries, missing } = scored;
  let erroredCount = 0;
  for (let i = 0; i < queries; i++) erroredCount += errored[i] as number;
  // Left out of at least one measure's average: under -l, ndcg (graded) may score a query that
  // the binary measures leave out. (Query ids are decoded only where printed.)
  const leftOut: number[] = [];
  for (let i = 0; i < queries; i++) {
    if (errored[i] === 1) continue;
    for (const column of scores) {
      if (Number.isNaN(column[i] as number)) {
        leftOut.push(i);
        break;
      }
    }
  }
  const value = (column: Float64Array, i: number): number | null => {
    const v = column[i] as number;
    return Number.isNaN(v) ? null : v;
  };
  if (options.json) {
    const ids = Array.from({ length: queries }, (_, i) => scored.id(i));
    const out: Record<string, unknown> = {
      run: options.run,
      qrels: options.qrels,
      queries,
      not_in_run: missing,
      left_out: leftOut.map((i) => ids[i] as string),
      metrics: Object.fromEntries(
        metrics.map((m, k) => [
          m.name,
          {
            all: summaries[k]?.mean ?? null,
            count: summaries[k]?.count ?? 0,
            ...(options.perQuery
              ? {
                  per_query: Object.fromEntries(
                    ids.map((id, i) => [id, value(scores[k] as Float64Array, i)]),
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
      for (let i = 0; i < queries; i++) {
        const id = scored.id(i);
        for (let k = 0; k < metrics.length; k++) {
          const v = (scores[k] as Float64Array)[i] as number;
          if (!Number.isNaN(v))
            lines.push(`${(metrics[k] as Metric).name}\t${id}\t${trecFixed4(v)}`);
        }
      }
    }
    for (let k = 0; k < metrics.length; k++) {
      const mean = summaries[k]?.mean;
      lines.push(
        `${(metrics[k] as Metric).name}\tall\t${mean === null || mean === undefined ? "—" : trecFixed4(mean)}`,
      );
    }
    io.stdout.write(`${lines.join("\n")}\n`);
  }
  if (erroredCount > 0)
    writeLine(
      io.stderr,
      `warning: ${erroredCount} quer${erroredCount === 1 ? "y" : "ies"} errored`,
    );
  // The queries averaged: those with a relevant document (the others are left out).
  const averaged = queries - leftOut.length - erroredCount;
  if (missing > 0 && missing === averaged) {
    writeLine(
      io.stderr,
      `warning: the run has no ranking for any of the ${averaged} quer${averaged === 1 ? "y" : "ies"} with a relevant document, so every score is 0; are these the qrels of this run?`,
    );
  } else if (missing > 0) {
    writeLine(
      io.stderr,
      `note: the run has no ranking for ${missing} of the ${averaged} queries with a relevant document; they score 0 (as with trec_eval -c)`,
    );
  }
  if (leftOut.length > 0) {
    // Query ids come from the files: shown on the terminal, their control characters escaped.
    const shown = leftOut
      .slice(0, 5)
      .map((i) => printable(scored.id(i)))
      .join(", ");
    // Per measure, when they differ: "map 2, ndcg@5 1".
    const per = metrics.map((m, k) => {
      let n = 0;
      const column = scores[k] as Float64Array;
      for (let i = 0; i < queries; i++)
        if (errored[i] === 0 && Number.isNaN(column[i] as number)) n++;
      return [m.name, n] as const;
    });
    const uneven = per.some(([, n]) => n !== leftOut.length);
    const which = uneven
      ? ` (left out of ${per
          .filter(([, n]) => n > 0)
          .map(([name, n]) => `${name}: ${n}`)
          .join(", ")})`
      : "";
    writeLine(
      io.stderr,
      `note: left out ${leftOut.length} quer${leftOut.length === 1 ? "y" : "ies"} with no relevant documents (${shown}${leftOut.length > 5 ? ", …" : ""})${which}; trec_eval averages them in as 0`,
    );
  }
  // -l above every grade: nDCG still scores the grades, the binary measures have nothing left.
  const empty = metrics.filter((_, k) => (summaries[k]?.count ?? 0) === 0).map((m) => m.name);
  if (level !== undefined && empty.length > 0) {
    writeLine(
      io.stderr,
      `warning: ${empty.join(", ")} scored no query: no query has a document of grade ${level} or more (lower -l)`,
    );
  }
  return 0;
}

/**
 * The columnar path, or the record path where it hands over (bad input, which the record path's
 * loaders report in their words; gzip; a pipe; a run whose queries' lines are not contiguous).
 * Both give the same numbers, bit for bit.
 */
async function evaluate(input: EvalInput, metrics: readonly Metric[]): Promise<EvalScores> {
  const [{ evalColumnar }, { HandOver }] = await Promise.all([
    import("../internal/eval-score.js"),
    import("../internal/eval-read.js"),
  ]);
  try {
    return await evalColumnar(input, metrics);
  } catch (error) {
    if (!(error instanceof HandOver)) throw error;
  }
  const { evalRecords } = await import("../internal/eval-records.js");
  return evalRecords(input, metrics);
}

/**
 * `--threads` is accepted, and checked, so that scripts written for it keep working; it changes
 * nothing. Sharding needed every thread to read both files whole, and the columnar path reads them
 * once in less time than a shard took (see the CLI README).
 */
function checkThreads(threads: string | undefined): void {
  if (threads === undefined) return;
  const asked = Number(threads);
  if (!Number.isSafeInteger(asked) || asked < 1 || asked > MAX_THREADS) {
    throw new UsageError(
      `--threads "${threads}": expected a whole number from 1 to ${MAX_THREADS}`,
    );
  }
}

const MAX_THREADS = 64;
