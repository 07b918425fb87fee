import { ConfigurationError } from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";
import { CONTROL_CHARACTERS, unicodeEscape } from "./internal/control-chars.js";
import { formatNumber, pairCount } from "./internal/format.js";
import { superscript } from "./internal/labels.js";
import type { LeftOutSamples } from "./left-out.js";
import type { ComparisonTable, TableCell, TableColumn } from "./table.js";

/** Shown for a metric a run does not have, or has no scores for. */
export const MISSING = "—";

/**
 * Renders a comparison table as GitHub-flavoured markdown: one row per run, one column per
 * metric, numbers right-aligned. With significance on, a first column holds the run labels, each
 * cell carries a superscript letter per run it beats (every pair of runs tested, or each run
 * against the baseline only past the all-pairs limit: see `TableSignificance.marks`), and a
 * legend follows the table saying which.
 */
export function renderMarkdown(table: ComparisonTable): string {
  const sig = table.significance;
  const multi = table.rows.some((r) => r.label.length > 1);
  const head: string[] = [];
  const rule: string[] = [];
  if (sig) {
    head.push("#");
    rule.push("---");
  }
  head.push("run");
  rule.push("---");
  const statuses = showStatus(table);
  if (statuses) {
    head.push("errored", "incomplete");
    rule.push("---:", "---:");
  }
  for (const c of table.columns) {
    head.push(escapeCell(c.header));
    rule.push("---:");
  }
  const lines = [`| ${head.join(" | ")} |`, `| ${rule.join(" | ")} |`];
  for (const row of table.rows) {
    const cells: string[] = [];
    if (sig) cells.push(row.label);
    cells.push(escapeCell(row.name));
    if (statuses)
      cells.push(String(row.status?.errored ?? ""), String(row.status?.incomplete ?? ""));
    for (let i = 0; i < table.columns.length; i++) {
      cells.push(formatCell(row.cells[i] as TableCell, table.columns[i] as TableColumn, multi));
    }
    lines.push(`| ${cells.join(" | ")} |`);
  }
  const note = basisNote(table);
  const trials = trialsNote(table);
  if (sig || note !== null || trials !== null) lines.push("");
  if (sig) lines.push(legend(table));
  if (note !== null) lines.push(note);
  if (trials !== null) lines.push(trials);
  return `${lines.join("\n")}\n`;
}

/**
 * Whether the table gets `errored` and `incomplete` columns: when any run has such samples (a
 * column of zeros for clean runs would only be noise).
 */
export function showStatus(table: ComparisonTable): boolean {
  return table.rows.some(
    (r) => r.status !== undefined && (r.status.errored > 0 || r.status.incomplete > 0),
  );
}

/**
 * The sentence under a table saying which samples its statistics cover, when that matters: the
 * common samples left some run's scores out, or the runs could not be paired. `null` otherwise.
 */
export function basisNote(table: ComparisonTable): string | null {
  if (table.basisNote) {
    return `Statistics are over each run's own scores: the runs cannot be compared on common samples (${table.basisNote}).`;
  }
  if (table.samples !== "common") return null;
  const narrowed = table.columns.filter((c) => c.narrowed === true);
  if (narrowed.length === 0) return null;
  const counts = narrowed.map((c) => `${escapeCell(c.metric)} on ${c.commonSamples}`).join(", ");
  return `Each metric is compared on the samples every run scored (${counts}), so a run is not ranked on only the samples it did not fail; each run's own all-samples statistic is available with samples "all" (\`--samples all\`).`;
}

/**
 * The line under a table saying, for each run with trials, how many trials each sample ran and
 * how many samples flipped on each metric (their trials' scores disagree: max ≠ min). `null`
 * when no run has trials.
 */
export function trialsNote(table: ComparisonTable): string | null {
  const parts: string[] = [];
  for (const row of table.rows) {
    const t = row.trials;
    if (t === undefined) continue;
    const flips: string[] = [];
    for (let j = 0; j < table.columns.length; j++) {
      const n = t.flipped[j];
      if (n === undefined) continue;
      flips.push(`${escapeCell((table.columns[j] as TableColumn).metric)} ${n}`);
    }
    parts.push(
      `${escapeCell(row.name)}: ${t.trials} trials per sample; samples whose trials disagree (of ${t.samples}): ${flips.join(", ") || "no metric"}`,
    );
  }
  if (parts.length === 0) return null;
  return `Trials — scores are per-sample means over each sample's trials. ${parts.join(". ")}.`;
}

function formatCell(cell: TableCell, column: TableColumn, multi: boolean): string {
  if (typeof cell.value !== "number") return MISSING;
  const marks = cell.beats.map(superscript);
  // With two-letter labels (past 26 runs) "ᵃᵇ" could read as run ab: separate marks with a dot.
  return formatNumber(cell.value, column.decimals) + marks.join(multi ? "·" : "");
}

function legend(table: ComparisonTable): string {
  const sig = table.significance;
  if (!sig) return "";
  const test =
    sig.test === "t-test"
      ? "paired two-sided t-test"
      : `paired two-sided approximate randomization test (${sig.permutations.toLocaleString("en-US")} permutations, seed ${sig.seed})`;
  let leftOut = 0;
  let skipped = 0;
  for (const list of [sig.comparisons, sig.pairwise]) {
    for (const c of list) {
      leftOut += c.leftOut;
      if (c.p === null) skipped++;
    }
  }
  const runs = table.rows.map((r) => `${r.label} = ${escapeCell(r.name)}`).join(", ");
  const base = `${sig.baselineLabel} (${escapeCell(sig.baseline)})`;
  const parts = [
    `Runs: ${runs}.`,
    `A superscript letter names each run a score beats significantly (${test}, p < ${sig.alpha}, in the metric's own direction).`,
    sig.marks === "all-pairs"
      ? `Every pair of runs is tested on every metric (${pairCount(table.rows.length)} per metric); baseline ${base}, the reference of the per-run p-values. No multiple-comparison correction.`
      : `With ${table.rows.length} runs, more than the all-pairs limit of ${sig.maxPairwiseRuns}, each run is tested against the baseline ${base} only: a run's cell is marked ${superscript(sig.baselineLabel)} when it beats the baseline, and the baseline's cell names every run it beats. No multiple-comparison correction.`,
  ];
  if (leftOut > 0) {
    const what = leftOutText(sig.leftOutSamples, leftOut);
    parts.push(
      table.samples === "common"
        ? `${what} left out of the tests, which compare only the samples both runs scored.`
        : `${what} left out of the tests, which compare only the samples both runs scored; each mean in the table is over all of its own run's scores, so a mark can disagree with the means shown.`,
    );
  }
  if (skipped > 0)
    parts.push(`${skipped} test(s) could not run (a metric missing or too few pairs).`);
  return parts.join(" ");
}

/**
 * "3 sample(s) were" (with why: errored in a run, or a null score), counted once per sample; the
 * pairs summed over tests for a table built without the count.
 */
export function leftOutText(samples: LeftOutSamples | undefined, pairs: number): string {
  if (samples === undefined || samples.samples === 0) {
    return `${pairs} pair(s) with an errored or null score were`;
  }
  const why: string[] = [];
  if (samples.errored > 0) why.push(`${samples.errored} with no score in a run (errored)`);
  if (samples.unscored > 0) why.push(`${samples.unscored} with a null score for a tested metric`);
  return `${samples.samples} sample(s) (${why.join(", ")}) were`;
}

const HTML_ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

/**
 * Escapes user text (a run or metric name) for a markdown table cell, so that it shows as the text
 * it is, in a terminal and once rendered: backslashes and pipes are backslash-escaped (a pipe would
 * split the cell), a line break becomes a space, `&`, `<` and `>` become HTML entities (GitHub and
 * docs sites would otherwise render `<img onerror=…>` or `<script>` as HTML), and any other control
 * character shows as its `\uXXXX` escape (an ESC sequence would otherwise clear or recolour the
 * terminal the table is printed to). Other Unicode (accents, CJK, emoji) is kept as is.
 *
 * Inline markdown is backslash-escaped too, so a name cannot turn into formatting or a link: `*`,
 * `` ` `` and `~` always, `_` unless it stands between two letters or digits (`latency_ms` stays
 * as it is: such an underscore never starts emphasis), and the `(` or `[` right after a `]` (so
 * `[text](https://…)` and `![x](…)` stay text, not a disguised link or a remote image).
 *
 * @throws {ConfigurationError} when `text` is not a string.
 * @example
 * ```ts
 * escapeCell("a|b <i>"); // "a\\|b &lt;i&gt;"
 * escapeCell("\u001b[2Jx"); // "\\u001b[2Jx"
 * escapeCell("**new** [docs](https://x)"); // "\\*\\*new\\*\\* [docs]\\(https://x)"
 * ```
 */
export function escapeCell(text: string): string {
  if (typeof text !== "string") {
    throw new ConfigurationError(`escapeCell: expected a string, found ${describeValue(text)}`, {
      kind: "invalid-option",
    });
  }
  return text
    .replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|")
    .replace(/[`*~]/g, "\\$&")
    .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, "\\_")
    .replace(/\]([([])/g, "]\\$1")
    .replace(/\r?\n|\r/g, " ")
    .replace(/[&<>]/g, (ch) => HTML_ESCAPES[ch] as string)
    .replace(CONTROL_CHARACTERS, unicodeEscape);
}
