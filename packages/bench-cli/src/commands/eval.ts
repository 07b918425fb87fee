import { availableParallelism } from "node:os";
import type { Metric } from "@fastrag/bench-core";
import type { EvalScores } from "../internal/eval-shards.js";
import { type EvalInput, startShards } from "../internal/eval-spawn.js";
import { InputSizes } from "../internal/input-size.js";
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
 * `fastrag-bench eval`: offline evaluation of a TREC run against qrels, replayed through the same
 * runner and metrics as any benchmark. Prints `metric<TAB>query|all<TAB>value` with 4 decimals.
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
  const sizes = new InputSizes(qrels, run);
  const threads = await threadCount(options, sizes);
  const input: EvalInput = {
    qrels,
    run,
    relevanceLevel: level,
    metrics: specs,
  };
  // The workers start first, and load the datasets and metrics packages while this thread does.
  const workers = threads > 1 ? startShards(input, threads) : undefined;
  let scored: EvalScores;
  let metrics: Metric[];
  try {
    const { retrievalMetric } = await import("../internal/metric-spec.js");
    metrics = specs.map(retrievalMetric);
    const names = new Set<string>();
    for (const m of metrics) {
      if (names.has(m.name)) throw new UsageError(`-m ${m.name} is given twice`);
      names.add(m.name);
    }
    const { evalSharded, evalWhole } = await import("../internal/eval-shards.js");
    const sharded = workers && (await evalSharded(input, metrics, workers));
    // Done, or given up on: either way the workers must not compete with a redo on one thread.
    workers?.stop();
    scored = sharded ?? (await evalWhole(input, metrics, sizes));
  } finally {
    workers?.stop();
  }
  const { ids, errored, scores, summaries, missing } = scored;
  let erroredCount = 0;
  for (const e of errored) if (e) erroredCount++;
  const leftOut: string[] = [];
  for (let i = 0; i < ids.length; i++) {
    // Left out of at least one measure's average: under -l, ndcg (graded) may score a query
    // that the binary measures leave out.
    if (!errored[i] && scores.some((column) => column[i] === null)) leftOut.push(ids[i] as string);
  }
  if (options.json) {
    const out: Record<string, unknown> = {
      run: options.run,
      qrels: options.qrels,
      queries: ids.length,
      not_in_run: missing,
      left_out: leftOut,
      metrics: Object.fromEntries(
        metrics.map((m, k) => [
          m.name,
          {
            all: summaries[k]?.mean ?? null,
            count: summaries[k]?.count ?? 0,
            ...(options.perQuery
              ? {
                  per_query: Object.fromEntries(
                    ids.map((id, i) => [id, (scores[k] as (number | null)[])[i] ?? null]),
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
      for (let i = 0; i < ids.length; i++) {
        for (let k = 0; k < metrics.length; k++) {
          const v = (scores[k] as (number | null)[])[i];
          if (v !== null && v !== undefined)
            lines.push(`${(metrics[k] as Metric).name}\t${ids[i]}\t${trecFixed4(v)}`);
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
  const averaged = ids.length - leftOut.length - erroredCount;
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
    const shown = leftOut.slice(0, 5).map(printable).join(", ");
    // Per measure, when they differ: "map 2, ndcg@5 1".
    const per = metrics.map((m, k) => {
      let n = 0;
      const column = scores[k] as (number | null)[];
      for (let i = 0; i < ids.length; i++) if (!errored[i] && column[i] === null) n++;
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
 * How many threads evaluate: `--threads` when given. Else one on a machine with fewer than four
 * cores or for inputs under 8 MiB (a gzip file counted unpacked), and otherwise four. Always one unless both inputs are regular
 * files, since every thread opens both. Each thread also reads past the other
 * threads' lines and loads its own modules (measured on 10⁵ queries × 10 docs: one shard of n, run
 * alone, takes 2.5 s for n = 1, 1.56 s for 2, 1.16 s for 4), so two threads barely beat one
 * even on two idle cores, and lose on a busy one.
 */
async function threadCount(options: EvalOptions, sizes: InputSizes): Promise<number> {
  let asked: number | undefined;
  if (options.threads !== undefined) {
    asked = Number(options.threads);
    if (!Number.isSafeInteger(asked) || asked < 1 || asked > MAX_THREADS) {
      throw new UsageError(
        `--threads "${options.threads}": expected a whole number from 1 to ${MAX_THREADS}`,
      );
    }
    if (asked === 1) return 1;
  } else if (availableParallelism() < 4) {
    return 1;
  }
  // Every thread opens both files: a pipe (`--run <(zcat run.gz)`) can be read only once. A
  // gzip file counts by the size it unpacks to, which is what each thread parses.
  const { qrels, run } = await sizes.get();
  if (qrels === undefined || run === undefined) return 1;
  if (asked !== undefined) return asked;
  return qrels + run >= 8 * 1024 * 1024 ? 4 : 1;
}

const MAX_THREADS = 64;
