import { diff, formatNumber, type SampleChange, type SampleDiff } from "@fastrag/bench-compare";
import { BenchmarkResult, type SampleResult } from "@fastrag/bench-core";
import { cliPath, colors, type Io, writeLine } from "../internal/io.js";
import { printable, terminalSafe } from "../internal/printable.js";

export interface DiffCommandOptions {
  readonly metric: string;
  readonly failOnRegression?: boolean;
  readonly json?: boolean;
  readonly limit?: number;
}

/** 4 decimals as tables print scores (never a non-zero value as 0); an integer as itself. */
export function fmt(v: number | null): string {
  if (v === null) return "—";
  return Number.isInteger(v) ? String(v) : formatNumber(v, 4);
}

/** `fastrag-bench diff`: per-sample changes; exit 1 on regressions with --fail-on-regression. */
export async function diffCommand(
  baselinePath: string,
  candidatePath: string,
  options: DiffCommandOptions,
  io: Io,
): Promise<number> {
  const [baseline, candidate] = await Promise.all([
    BenchmarkResult.load(cliPath(io, baselinePath)),
    BenchmarkResult.load(cliPath(io, candidatePath)),
  ]);
  const d = diff(baseline, candidate, { metric: options.metric });
  // The baseline's record of each changed sample: its gold answers (results of format 2 keep them).
  const records = new Map<string, SampleResult>();
  for (const s of baseline.samples) records.set(s.sampleId ?? s.question, s);
  const recordOf = (r: SampleChange) => records.get(r.sampleId ?? r.question);
  const regressions = d.regressed.length + d.newlyErrored.length;
  const code = options.failOnRegression && regressions > 0 ? 1 : 0;
  if (options.json) {
    writeLine(
      io.stdout,
      terminalSafe(
        JSON.stringify(diffJson(baseline.name, candidate.name, d, regressions, recordOf), null, 2),
      ),
    );
    return code;
  }
  const c = colors(io, "stdout");
  writeLine(
    io.stdout,
    `${c.bold(printable(options.metric))}: ${printable(baseline.name)} → ${printable(candidate.name)} (paired by ${d.pairedBy})`,
  );
  writeLine(
    io.stdout,
    `  improved ${d.improved.length}, regressed ${d.regressed.length}, newly errored ${d.newlyErrored.length}, recovered ${d.recovered.length}, unchanged ${d.unchanged}, left out ${d.leftOut}`,
  );
  const limit = options.limit ?? 20;
  const section = (title: string, rows: readonly SampleChange[], paint: (s: string) => string) => {
    if (rows.length === 0) return;
    writeLine(io.stdout);
    writeLine(io.stdout, paint(`${title} (${rows.length})`));
    for (const r of rows.slice(0, limit)) {
      const id = printable(
        r.sampleId ??
          JSON.stringify(r.question.length > 60 ? `${r.question.slice(0, 57)}…` : r.question),
      );
      const change = r.change === null ? "" : ` (${r.change > 0 ? "+" : ""}${fmt(r.change)})`;
      const err = r.error ? `  ${c.dim(printable(r.error))}` : "";
      writeLine(io.stdout, `  ${id}: ${fmt(r.baseline)} → ${fmt(r.candidate)}${change}${err}`);
      const about = aboutLine(r, recordOf(r));
      if (about !== "") writeLine(io.stdout, c.dim(`      ${about}`));
    }
    if (rows.length > limit)
      writeLine(io.stdout, c.dim(`  … ${rows.length - limit} more (use --json for all)`));
  };
  section("regressed", d.regressed, c.red);
  section("newly errored", d.newlyErrored, c.red);
  section("improved", d.improved, c.green);
  section("recovered", d.recovered, c.green);
  if (code === 1)
    writeLine(io.stdout, c.red(`\n✗ ${regressions} regression(s) in ${printable(options.metric)}`));
  return code;
}

/**
 * The `--json` object: snake_case, as in result files and `compare --format json`. Every row of
 * every section, not only the first `--limit`.
 */
function diffJson(
  baseline: string,
  candidate: string,
  d: SampleDiff,
  regressions: number,
  recordOf: (r: SampleChange) => SampleResult | undefined,
): Record<string, unknown> {
  const rows = (changes: readonly SampleChange[]) =>
    changes.map((r) => ({
      ...(r.sampleId === undefined ? {} : { sample_id: r.sampleId }),
      question: r.question,
      ...goldOf(recordOf(r)),
      baseline: r.baseline,
      candidate: r.candidate,
      change: r.change,
      baseline_status: r.baselineStatus,
      candidate_status: r.candidateStatus,
      error: r.error,
    }));
  return {
    baseline,
    candidate,
    metric: d.metric,
    higher_is_better: d.higherIsBetter,
    paired_by: d.pairedBy,
    regressions,
    improved: rows(d.improved),
    regressed: rows(d.regressed),
    newly_errored: rows(d.newlyErrored),
    recovered: rows(d.recovered),
    unchanged: d.unchanged,
    left_out: d.leftOut,
  };
}

/** Questions shown in full up to this length; longer ones are cut with "…". */
const QUESTION_SHOWN = 100;
/** Gold answers are listed when they fit in this many characters together; else counted. */
const GOLD_SHOWN = 60;

/**
 * The line under a changed sample: its question (when the id line showed an id, not the question)
 * and its gold answers when they are short ("gold: 3 answers" when not; nothing when the result
 * kept none). Control characters escaped.
 */
export function aboutLine(r: SampleChange, record: SampleResult | undefined): string {
  const parts: string[] = [];
  if (r.sampleId !== undefined) {
    const q =
      r.question.length > QUESTION_SHOWN
        ? `${r.question.slice(0, QUESTION_SHOWN - 1)}…`
        : r.question;
    parts.push(JSON.stringify(q));
  }
  const gold = record?.expectedAnswers;
  if (gold !== undefined && gold.length > 0) {
    const shown = gold
      .map((a) => (a.trim() === "" ? "(no answer)" : JSON.stringify(a)))
      .join(" | ");
    parts.push(shown.length <= GOLD_SHOWN ? `gold: ${shown}` : `gold: ${gold.length} answers`);
  }
  return printable(parts.join("  "));
}

/** The baseline's gold answers for the JSON rows, when the result kept them. */
function goldOf(record: SampleResult | undefined): { expected_answers?: readonly string[] } {
  const gold = record?.expectedAnswers;
  return gold === undefined ? {} : { expected_answers: gold };
}
