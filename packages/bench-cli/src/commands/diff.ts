import { diff, formatNumber, type SampleChange, type SampleDiff } from "@fastrag/bench-compare";
import { BenchmarkResult } from "@fastrag/bench-core";
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
  const regressions = d.regressed.length + d.newlyErrored.length;
  const code = options.failOnRegression && regressions > 0 ? 1 : 0;
  if (options.json) {
    writeLine(
      io.stdout,
      terminalSafe(
        JSON.stringify(diffJson(baseline.name, candidate.name, d, regressions), null, 2),
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
): Record<string, unknown> {
  const rows = (changes: readonly SampleChange[]) =>
    changes.map((r) => ({
      ...(r.sampleId === undefined ? {} : { sample_id: r.sampleId }),
      question: r.question,
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
