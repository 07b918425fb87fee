// `fastrag-bench diff a.json b.json --sample <id> [--judgments] [--metric M] [--json]`: one sample
// of both runs, its status and scores, and with --judgments what each run's judge metrics asked
// and were told about it (DESIGN §11), step by step, as @fastrag/bench-compare reads the steps.
import { judgmentViews } from "@fastrag/bench-compare";
import {
  BenchmarkResult,
  type JudgmentStep,
  type Judgments,
  type SampleResult,
} from "@fastrag/bench-core";
import { type Colors, cliPath, colors, type Io, UsageError, writeLine } from "../internal/io.js";
import { printable, terminalSafe } from "../internal/printable.js";
import { fmt } from "./diff.js";

export interface DiffSampleOptions {
  /** The sample's id; for runs without ids, its question. */
  readonly sample: string;
  /** Only this metric's score and judgments. */
  readonly metric?: string;
  readonly judgments?: boolean;
  readonly json?: boolean;
}

/** One side of the sample view: its run, where it was read from, and its record there. */
interface Side {
  readonly role: "baseline" | "candidate";
  readonly result: BenchmarkResult;
  readonly path: string;
  readonly record: SampleResult | undefined;
}

/**
 * `diff --sample`: the sample on both sides; exit 0.
 *
 * @throws {UsageError} when neither run has the sample, or neither has `--metric`.
 */
export async function diffSampleCommand(
  baselinePath: string,
  candidatePath: string,
  options: DiffSampleOptions,
  io: Io,
): Promise<number> {
  const [baseline, candidate] = await Promise.all([
    BenchmarkResult.load(cliPath(io, baselinePath)),
    BenchmarkResult.load(cliPath(io, candidatePath)),
  ]);
  const id = options.sample;
  const metric = options.metric;
  if (
    metric !== undefined &&
    !Object.hasOwn(baseline.higherIsBetter, metric) &&
    !Object.hasOwn(candidate.higherIsBetter, metric)
  ) {
    const known = [
      ...new Set([
        ...Object.keys(baseline.higherIsBetter),
        ...Object.keys(candidate.higherIsBetter),
      ]),
    ];
    throw new UsageError(
      `--metric ${JSON.stringify(metric)}: neither run has that metric; theirs: ${known.map((m) => JSON.stringify(m)).join(", ") || "none"}`,
      { option: "--metric" },
    );
  }
  const sides: Side[] = [
    { role: "baseline", result: baseline, path: baselinePath, record: findSample(baseline, id) },
    {
      role: "candidate",
      result: candidate,
      path: candidatePath,
      record: findSample(candidate, id),
    },
  ];
  if (sides.every((s) => s.record === undefined)) {
    throw new UsageError(
      `--sample ${JSON.stringify(id)}: no sample of that id in ${baselinePath} or ${candidatePath}${idsHint(baseline)}`,
      { option: "--sample" },
    );
  }
  if (options.json) {
    const out: Record<string, unknown> = { sample: id };
    if (metric !== undefined) out.metric = metric;
    for (const s of sides) out[s.role] = sideJson(s, metric, options.judgments === true);
    writeLine(io.stdout, terminalSafe(JSON.stringify(out, null, 2)));
    return 0;
  }
  const c = colors(io, "stdout");
  const shown = (sides.find((s) => s.record !== undefined) as Side).record as SampleResult;
  writeLine(
    io.stdout,
    `${c.bold(`sample ${printable(id)}`)}${shown.sampleId === undefined ? "" : `: ${printable(JSON.stringify(shown.question))}`}`,
  );
  for (const s of sides) writeLine(io.stdout, `  ${sideName(s)}: ${statusLine(s, metric, c)}`);
  if (metric !== undefined) {
    const [vb, vc] = sides.map((s) => scoreOf(s.record, metric));
    const change =
      typeof vb === "number" && typeof vc === "number" && vb !== vc
        ? ` (${vc - vb > 0 ? "+" : ""}${fmt(vc - vb)})`
        : "";
    writeLine(
      io.stdout,
      `  ${printable(metric)}: ${fmt(vb ?? null)} → ${fmt(vc ?? null)}${change}`,
    );
  }
  if (options.judgments === true) {
    for (const line of judgmentLines(sides, metric, c)) writeLine(io.stdout, line);
  }
  return 0;
}

/**
 * The `--judgments` text: per metric (the one asked for, else every metric either side kept
 * judgments for), each side's steps, trial by trial for a run with trials. A side that kept none
 * says "no judgments kept"; so does one line when neither did. Every piece of text from the files
 * has its control characters escaped.
 */
function judgmentLines(
  sides: readonly Side[],
  metric: string | undefined,
  c: Pick<Colors, "bold" | "dim" | "green" | "red">,
): string[] {
  const metrics =
    metric === undefined ? judgedMetrics(sides) : judgedMetrics(sides).filter((m) => m === metric);
  const out: string[] = [];
  if (metrics.length === 0) {
    const runs = sides.map((s) => printable(s.result.name)).join(" or ");
    out.push("");
    out.push(
      `no judgments kept${metric === undefined ? "" : ` for ${printable(metric)}`} for this sample in ${runs}${c.dim(" (only judge metrics keep them, and only in results written since they do)")}`,
    );
    return out;
  }
  for (const m of metrics) {
    out.push("");
    out.push(c.bold(`judgments: ${printable(m)}`));
    for (const s of sides) {
      const r = s.record;
      if (r === undefined) {
        out.push(`  ${sideName(s)}: not in this run`);
        continue;
      }
      const trials = r.trials;
      const perTrial = trials?.some((t) => t.judgments !== undefined && hasMetric(t.judgments, m));
      if (trials !== undefined && perTrial === true) {
        out.push(
          `  ${sideName(s)}: ${fmt(scoreOf(r, m) ?? null)} (mean of ${trials.length} trials)`,
        );
        trials.forEach((t, i) => {
          const steps = t.judgments === undefined ? undefined : ownSteps(t.judgments, m);
          const head = `    trial ${i + 1}: ${fmt(scoreOf(t, m) ?? null)}`;
          if (steps === undefined) out.push(`${head}  no judgments kept`);
          else {
            out.push(head);
            out.push(...stepLines(steps, "      ", c));
          }
        });
        continue;
      }
      const steps = r.judgments === undefined ? undefined : ownSteps(r.judgments, m);
      if (steps === undefined) {
        out.push(`  ${sideName(s)}: no judgments kept`);
        continue;
      }
      out.push(`  ${sideName(s)}: ${fmt(scoreOf(r, m) ?? null)}`);
      out.push(...stepLines(steps, "    ", c));
    }
  }
  return out;
}

/** One metric's steps: a title with its verdicts' tally, each item with its verdict and reason. */
function stepLines(
  steps: readonly JudgmentStep[],
  indent: string,
  c: Pick<Colors, "dim" | "green" | "red">,
): string[] {
  const out: string[] = [];
  for (const v of judgmentViews(steps)) {
    // A step of one verdict (a chunk's) says it on its one line; a tally would repeat it.
    const tally = v.passed + v.failed > 1 ? `: ✓${v.passed} ✗${v.failed}` : "";
    // A list without verdicts (statements, claims) says how long it is.
    const n = v.items.length > 0 && v.passed + v.failed === 0 ? ` (${v.items.length})` : "";
    out.push(`${indent}${printable(v.title)}${n}${tally}`);
    for (const item of v.items) {
      const text = printable(item.text);
      let head: string;
      if (item.verdict === true) head = c.green(`✓ ${printable(item.label ?? "")}`);
      else if (item.verdict === false) head = c.red(`✗ ${printable(item.label ?? "")}`);
      else if (item.label !== undefined) head = `? ${printable(item.label)}`;
      else head = "·";
      const sep =
        item.verdict === undefined && item.label === undefined ? " " : text === "" ? "" : ": ";
      out.push(`${indent}  ${head}${sep}${text}`);
      if (item.reason !== undefined) out.push(c.dim(`${indent}      ${printable(item.reason)}`));
    }
    for (const [key, value] of v.fields)
      out.push(`${indent}  ${printable(key)}: ${printable(value)}`);
  }
  return out;
}

/** The sample of that id; for a record without an id, the one of that question. */
function findSample(result: BenchmarkResult, id: string): SampleResult | undefined {
  let byQuestion: SampleResult | undefined;
  for (const s of result.samples) {
    if (s.sampleId === id) return s;
    if (byQuestion === undefined && s.sampleId === undefined && s.question === id) byQuestion = s;
  }
  return byQuestion;
}

/** A few of the run's ids, so a mistyped one can be fixed; or a word that it has none. */
function idsHint(result: BenchmarkResult): string {
  const ids: string[] = [];
  for (const s of result.samples) {
    if (s.sampleId !== undefined) ids.push(JSON.stringify(s.sampleId));
    if (ids.length === 3) break;
  }
  if (ids.length === 0) return "; its samples have no ids: give a sample's question";
  return `; its ids look like ${ids.join(", ")}`;
}

function sideName(s: Side): string {
  return `${printable(s.result.name)} (${s.role})`;
}

/** `successful  faithfulness 0.5000, recall@5 1`, the error of an errored sample dimmed. */
function statusLine(s: Side, metric: string | undefined, c: Pick<Colors, "dim">): string {
  const r = s.record;
  if (r === undefined) return `not in this run (${printable(s.path)})`;
  const names = metric === undefined ? Object.keys(r.scores) : [metric];
  const scores = names.map((m) => `${printable(m)} ${fmt(scoreOf(r, m) ?? null)}`).join(", ");
  const trials = r.trials === undefined ? "" : `, ${r.trials.length} trials`;
  const error = r.error === null ? "" : `  ${c.dim(printable(r.error))}`;
  return `${r.status}${trials}${scores === "" ? "" : `  ${scores}`}${error}`;
}

function scoreOf(
  r: Pick<SampleResult, "scores"> | undefined,
  metric: string,
): number | null | undefined {
  if (r === undefined) return undefined;
  return Object.hasOwn(r.scores, metric) ? r.scores[metric] : undefined;
}

function hasMetric(j: Judgments, metric: string): boolean {
  return Object.hasOwn(j, metric);
}

function ownSteps(j: Judgments, metric: string): readonly JudgmentStep[] | undefined {
  return Object.hasOwn(j, metric) ? j[metric] : undefined;
}

/** The metrics either side (or a trial of it) kept judgments for, in first-seen order. */
function judgedMetrics(sides: readonly Side[]): string[] {
  const seen = new Set<string>();
  for (const s of sides) {
    const r = s.record;
    if (r === undefined) continue;
    for (const m of Object.keys(r.judgments ?? {})) seen.add(m);
    for (const t of r.trials ?? []) for (const m of Object.keys(t.judgments ?? {})) seen.add(m);
  }
  return [...seen];
}

/** The `--json` object of one side: snake_case, judgments as the result file keeps them. */
function sideJson(
  s: Side,
  metric: string | undefined,
  judgments: boolean,
): Record<string, unknown> {
  const r = s.record;
  if (r === undefined) return { run: s.result.name, found: false };
  const pick = (j: Judgments | undefined): Judgments | null => {
    if (j === undefined) return null;
    if (metric === undefined) return j;
    const steps = ownSteps(j, metric);
    return steps === undefined ? null : { [metric]: steps };
  };
  const scores = (from: SampleResult["scores"]) =>
    metric === undefined ? from : Object.hasOwn(from, metric) ? { [metric]: from[metric] } : {};
  const out: Record<string, unknown> = {
    run: s.result.name,
    found: true,
    ...(r.sampleId === undefined ? {} : { sample_id: r.sampleId }),
    question: r.question,
    status: r.status,
    scores: scores(r.scores),
    error: r.error,
  };
  if (judgments) out.judgments = pick(r.judgments);
  if (r.trials !== undefined) {
    out.trials = r.trials.map((t, i) => ({
      trial: i + 1,
      status: t.status,
      scores: scores(t.scores),
      error: t.error,
      ...(judgments ? { judgments: pick(t.judgments) } : {}),
    }));
  }
  return out;
}
