import { open } from "node:fs/promises";
import type { Metric } from "@fastrag/bench-core";
import { ConfigurationError } from "@fastrag/bench-core/internal/base";
import type { EvalInput, EvalScores } from "../internal/eval-records.js";
import { cliPath, type Io, UsageError, writeLine } from "../internal/io.js";
import { printable } from "../internal/printable.js";
import { trecFixed4 } from "../internal/trec-format.js";
import { DEFAULT_EVAL_METRICS } from "./eval-defaults.js";

export interface EvalOptions {
  /** `--qrels`; repeated, every value (the last is used, with a warning). */
  readonly qrels: string | readonly string[];
  /** `--run`; repeated, every value (the last is used, with a warning). */
  readonly run: string | readonly string[];
  /** `--save <file.json>`: the evaluation as a result file (format 2) that `compare` reads. */
  readonly save?: string;
  readonly metric?: readonly string[];
  readonly perQuery?: boolean;
  readonly json?: boolean;
  readonly relevanceLevel?: string;
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

/**
 * `fastrag-bench eval`: offline evaluation of a TREC run against qrels, with the numbers the
 * Benchmark runner and metric classes give (the columnar path calls the classes' kernels; see
 * `evaluate`). Prints `metric<TAB>query|all<TAB>value` with 4 decimals.
 */
export async function evalCommand(options: EvalOptions, io: Io): Promise<number> {
  const request = evalRequest(options, io);
  const metrics = await measures(request.input.metrics);
  let scored: EvalScores;
  try {
    scored = await evaluate(request.input, metrics, options.save !== undefined);
  } catch (error) {
    throw (await swappedHint(error, request)) ?? error;
  }
  const tally = tallyQueries(scored);
  const report: Report = { scored, metrics, tally };
  if (options.json) writeJson(report, options, io);
  else writeText(report, options.perQuery === true, io);
  writeNotes(report, request.input.relevanceLevel, io);
  if (options.save !== undefined) {
    // The record path ran (see `evaluate`): its result holds every query's ranking, relevant ids
    // and scores, as a `run` would save them, so `compare` pairs two saved evals by query id.
    await (scored.result as NonNullable<EvalScores["result"]>).save(cliPath(io, options.save));
    writeLine(io.stderr, `wrote ${printable(options.save)}`);
  }
  return 0;
}

/** What one `eval` evaluates: the files as given and as read (`input`). */
interface EvalRequest {
  readonly input: EvalInput;
  /** `--qrels` and `--run` as the user typed them (for messages). */
  readonly qrelsFlag: string;
  readonly runFlag: string;
}

/** The flags read and checked: `-l`, the measures (cutoff lists expanded), the two files. */
function evalRequest(options: EvalOptions, io: Io): EvalRequest {
  const level = options.relevanceLevel === undefined ? undefined : Number(options.relevanceLevel);
  if (level !== undefined && !Number.isFinite(level)) {
    throw new UsageError(`--relevance-level "${options.relevanceLevel}": expected a number`, {
      option: "--relevance-level",
    });
  }
  const specs =
    options.metric && options.metric.length > 0
      ? options.metric.flatMap(expandCutoffs)
      : DEFAULT_EVAL_METRICS;
  const qrelsFlag = singleFlagValue(options.qrels, "--qrels", io);
  const runFlag = singleFlagValue(options.run, "--run", io);
  const input: EvalInput = {
    qrels: cliPath(io, qrelsFlag),
    run: cliPath(io, runFlag),
    relevanceLevel: level,
    metrics: specs,
  };
  return { input, qrelsFlag, runFlag };
}

/** The metric of each measure name; a name given twice (`-m map -m map`) is a usage error. */
async function measures(specs: readonly string[]): Promise<Metric[]> {
  const { retrievalMetric } = await import("../internal/metric-spec.js");
  const metrics = specs.map(retrievalMetric);
  const names = new Set<string>();
  for (const m of metrics) {
    if (names.has(m.name))
      throw new UsageError(`-m ${m.name} is given twice`, { option: "--metric" });
    names.add(m.name);
  }
  return metrics;
}

/** The queries counted and left out, as the printed lines and notes need them. */
interface QueryTally {
  readonly errored: number;
  /** Left out of at least one measure's average (no relevant document), in query order. */
  readonly leftOut: readonly number[];
  /** Per query: 1 when some measure scored it (the queries num_q and the averages are over). */
  readonly counted: Uint8Array;
  /** trec_eval's num_q, num_ret, num_rel, num_rel_ret over the counted queries. */
  readonly totals: {
    readonly q: number;
    readonly ret: number;
    readonly rel: number;
    readonly relRet: number;
  };
}

/** What the output and the notes are written from. */
interface Report {
  readonly scored: EvalScores;
  readonly metrics: readonly Metric[];
  readonly tally: QueryTally;
}

function tallyQueries(scored: EvalScores): QueryTally {
  const { queries, errored, scores, counts } = scored;
  let erroredCount = 0;
  for (let i = 0; i < queries; i++) erroredCount += errored[i] as number;
  // Left out of at least one measure's average: under -l, ndcg (graded) may score a query that
  // the binary measures leave out. (Query ids are decoded only where printed.)
  const leftOut: number[] = [];
  const counted = new Uint8Array(queries);
  const totals = { q: 0, ret: 0, rel: 0, relRet: 0 };
  for (let i = 0; i < queries; i++) {
    if (errored[i] === 1) continue;
    let some = false;
    let all = true;
    for (const column of scores) {
      if (Number.isNaN(column[i] as number)) all = false;
      else some = true;
    }
    if (!all) leftOut.push(i);
    if (some) {
      counted[i] = 1;
      totals.q++;
      totals.ret += counts.retrieved[i] as number;
      totals.rel += counts.relevant[i] as number;
      totals.relRet += counts.relevantRetrieved[i] as number;
    }
  }
  return { errored: erroredCount, leftOut, counted, totals };
}

/** `--json`: the counts, the queries not in the run or left out, and each measure's mean. */
function writeJson(report: Report, options: EvalOptions, io: Io): void {
  const { scored, metrics, tally } = report;
  const { counts, scores, summaries } = scored;
  const ids = Array.from({ length: scored.queries }, (_, i) => scored.id(i));
  const out: Record<string, unknown> = {
    run: options.run,
    qrels: options.qrels,
    queries: scored.queries,
    num_q: tally.totals.q,
    num_ret: tally.totals.ret,
    num_rel: tally.totals.rel,
    num_rel_ret: tally.totals.relRet,
    ...(options.perQuery
      ? {
          // trec_eval -q's per-query counts, for the queries counted in num_q.
          counts_per_query: Object.fromEntries(
            ids.flatMap((id, i) =>
              tally.counted[i] === 1
                ? [
                    [
                      id,
                      {
                        num_ret: counts.retrieved[i],
                        num_rel: counts.relevant[i],
                        num_rel_ret: counts.relevantRetrieved[i],
                      },
                    ],
                  ]
                : [],
            ),
          ),
        }
      : {}),
    not_in_run: scored.missing,
    left_out: tally.leftOut.map((i) => ids[i] as string),
    metrics: Object.fromEntries(
      metrics.map((m, k) => [
        m.name,
        {
          all: summaries[k]?.mean ?? null,
          count: summaries[k]?.count ?? 0,
          ...(options.perQuery
            ? {
                per_query: Object.fromEntries(
                  ids.map((id, i) => [id, scoreOrNull(scores[k] as Float64Array, i)]),
                ),
              }
            : {}),
        },
      ]),
    ),
  };
  writeLine(io.stdout, JSON.stringify(out, null, 2));
}

function scoreOrNull(column: Float64Array, i: number): number | null {
  const v = column[i] as number;
  return Number.isNaN(v) ? null : v;
}

/** trec_eval's lines: per query under `-q`, then the counts and each measure's mean. */
function writeText(report: Report, perQuery: boolean, io: Io): void {
  const { scored, metrics, tally } = report;
  const { counts, scores, summaries } = scored;
  const lines: string[] = [];
  if (perQuery) {
    for (let i = 0; i < scored.queries; i++) {
      const id = scored.id(i);
      // trec_eval -q prints these three per query, first (num_q only under "all").
      if (tally.counted[i] === 1) {
        lines.push(`num_ret\t${id}\t${counts.retrieved[i]}`);
        lines.push(`num_rel\t${id}\t${counts.relevant[i]}`);
        lines.push(`num_rel_ret\t${id}\t${counts.relevantRetrieved[i]}`);
      }
      for (let k = 0; k < metrics.length; k++) {
        const v = (scores[k] as Float64Array)[i] as number;
        if (!Number.isNaN(v)) lines.push(`${(metrics[k] as Metric).name}\t${id}\t${trecFixed4(v)}`);
      }
    }
  }
  lines.push(`num_q\tall\t${tally.totals.q}`);
  lines.push(`num_ret\tall\t${tally.totals.ret}`);
  lines.push(`num_rel\tall\t${tally.totals.rel}`);
  lines.push(`num_rel_ret\tall\t${tally.totals.relRet}`);
  for (let k = 0; k < metrics.length; k++) {
    const mean = summaries[k]?.mean;
    lines.push(
      `${(metrics[k] as Metric).name}\tall\t${mean === null || mean === undefined ? "—" : trecFixed4(mean)}`,
    );
  }
  io.stdout.write(`${lines.join("\n")}\n`);
}

/** The notes on stderr: errored queries, queries the run lacks, queries left out, empty measures. */
function writeNotes(report: Report, level: number | undefined, io: Io): void {
  const { scored, metrics, tally } = report;
  const { errored, leftOut } = tally;
  if (errored > 0)
    writeLine(io.stderr, `warning: ${errored} quer${errored === 1 ? "y" : "ies"} errored`);
  // The queries averaged: those with a relevant document (the others are left out).
  const averaged = scored.queries - leftOut.length - errored;
  const missing = scored.missing;
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
  if (leftOut.length > 0) writeLine(io.stderr, leftOutNote(report));
  // -l above every grade: nDCG still scores the grades, the binary measures have nothing left.
  const empty = metrics
    .filter((_, k) => (scored.summaries[k]?.count ?? 0) === 0)
    .map((m) => m.name);
  if (level !== undefined && empty.length > 0) {
    writeLine(
      io.stderr,
      `warning: ${empty.join(", ")} scored no query: no query has a document of grade ${level} or more (lower -l)`,
    );
  }
}

/** The note naming the first queries left out, and per measure how many when they differ. */
function leftOutNote({ scored, metrics, tally }: Report): string {
  const { leftOut } = tally;
  // Query ids come from the files: shown on the terminal, their control characters escaped.
  const shown = leftOut
    .slice(0, 5)
    .map((i) => printable(scored.id(i)))
    .join(", ");
  // Per measure, when they differ: "map 2, ndcg@5 1".
  const per = metrics.map((m, k) => {
    let n = 0;
    const column = scored.scores[k] as Float64Array;
    for (let i = 0; i < scored.queries; i++)
      if (scored.errored[i] === 0 && Number.isNaN(column[i] as number)) n++;
    return [m.name, n] as const;
  });
  const uneven = per.some(([, n]) => n !== leftOut.length);
  const which = uneven
    ? ` (left out of ${per
        .filter(([, n]) => n > 0)
        .map(([name, n]) => `${name}: ${n}`)
        .join(", ")})`
    : "";
  return `note: left out ${leftOut.length} quer${leftOut.length === 1 ? "y" : "ies"} with no relevant documents (${shown}${leftOut.length > 5 ? ", …" : ""})${which}; trec_eval averages them in as 0`;
}

/**
 * The one value of a flag commander collected: for a repeated `--run` (or `--qrels`), the last,
 * as with any repeated flag, with a warning naming every file given, since `eval` scores one run
 * against one qrels file and the user may have meant another.
 */
function singleFlagValue(value: string | readonly string[], flag: string, io: Io): string {
  if (typeof value === "string") return value;
  const last = value[value.length - 1] as string;
  if (value.length > 1) {
    writeLine(
      io.stderr,
      `warning: ${flag} is given ${value.length} times (${value.map((v) => printable(v)).join(", ")}): eval scores one run against one qrels file, so it uses the last, ${printable(last)}; ${
        flag === "--run"
          ? "to compare runs, evaluate each on its own with --save <file.json>, then compare the saved files"
          : "give the one qrels file of the run"
      }`,
    );
  }
  return last;
}

/** What the first line of a TREC file looks like: a run's (6 fields, a decimal score) or qrels' (4, a small integer grade). */
type Shape = "run" | "qrels" | "other";

async function shapeOf(path: string): Promise<Shape> {
  let text: string;
  try {
    const file = await open(path, "r");
    try {
      const buffer = Buffer.alloc(4096);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
      // gzip: not sniffed (the loaders' own error stands).
      if (bytesRead >= 2 && buffer[0] === 0x1f && buffer[1] === 0x8b) return "other";
      text = buffer.subarray(0, bytesRead).toString("utf8");
    } finally {
      await file.close();
    }
  } catch {
    return "other";
  }
  const line = text.split("\n").find((l) => l.trim() !== "");
  if (line === undefined) return "other";
  const fields = line.trim().split(/\s+/);
  if (fields.length >= 6 && Number.isFinite(Number(fields[4]))) return "run";
  if (fields.length === 4 && /^-?\d{1,2}$/.test(fields[3] as string)) return "qrels";
  return "other";
}

/**
 * When reading failed and the files look swapped (the "qrels" has a run's 6 fields with a score,
 * or the "run" has qrels' 4 fields with a small integer grade), the error says so, naming both
 * flags; else undefined (the loader's error stands).
 */
async function swappedHint(
  error: unknown,
  { input, qrelsFlag, runFlag }: EvalRequest,
): Promise<ConfigurationError | undefined> {
  if (!ConfigurationError.isInstance(error)) return undefined;
  const [q, r] = await Promise.all([shapeOf(input.qrels), shapeOf(input.run)]);
  const hints: string[] = [];
  if (q === "run")
    hints.push(`--qrels ${printable(qrelsFlag)} looks like a run (qid Q0 docno rank score tag)`);
  if (r === "qrels")
    hints.push(`--run ${printable(runFlag)} looks like qrels (qid iter docno grade)`);
  if (hints.length === 0) return undefined;
  const fix =
    q === "run" && r === "qrels"
      ? `swap them: --qrels ${printable(runFlag)} --run ${printable(qrelsFlag)}`
      : "are --qrels and --run swapped?";
  return new ConfigurationError(`${error.message}; ${hints.join(" and ")}: ${fix}`, {
    kind: "invalid-option",
    option: "--qrels/--run",
    cause: error,
  });
}

/**
 * The columnar path, or the record path where it hands over (bad input, which the record path's
 * loaders report in their words; gzip; a pipe; a run whose queries' lines are not contiguous).
 * Both give the same numbers, bit for bit. With `records`, the record path only (for `--save`).
 */
async function evaluate(
  input: EvalInput,
  metrics: readonly Metric[],
  records = false,
): Promise<EvalScores> {
  if (records) {
    // `--save` needs the result the record path builds.
    const { evalRecords } = await import("../internal/eval-records.js");
    return evalRecords(input, metrics);
  }
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
