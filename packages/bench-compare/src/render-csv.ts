import { showStatus } from "./render-markdown.js";
import { type ComparisonTable, hasTrials, type TableCell, type TableRow } from "./table.js";

/**
 * A text field a spreadsheet could read as a formula: one starting with tab, CR, LF or NUL, or
 * whose first character after any leading whitespace and control characters is `=`, `+`, `-` or
 * `@` (` =cmd()` and `\t=…` too: spreadsheets trim such a prefix, or take tab and CR as formula
 * starters).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const TRIGGER = /^(?:[\t\r\n\0]|[\s\u0000-\u001f\u007f-\u009f]*[=+\-@])/;

/**
 * Makes one CSV field safe: neutralizes spreadsheet formulas, then quotes per RFC 4180.
 *
 * Formula injection: a text cell starting with `=`, `+`, `-`, `@`, tab, CR, LF or NUL, or with
 * `=`, `+`, `-` or `@` after leading whitespace (` =cmd()`), is prefixed with a single quote, so
 * Excel, LibreOffice and Google Sheets show it as text instead of evaluating it (OWASP's advice),
 * whatever follows: a run named `-12.5` is text, and stays text. Numbers (metric values, p-values)
 * are written as numbers and never prefixed: `-0.5` stays a number in the spreadsheet.
 *
 * Quoting: a field holding a comma, a double quote, CR or LF is wrapped in double quotes, with
 * inner quotes doubled.
 */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  let text = value;
  if (TRIGGER.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Renders a comparison table as CSV (RFC 4180: CRLF line ends, a header row). Numbers keep full
 * precision; a missing metric or a metric without scores is an empty field. With significance
 * on, a `label` column comes first and one `<header> p` column per metric follows the values,
 * holding each run's p-value against the baseline (empty for the baseline itself). When a run
 * has trials, the trials' columns come last (`trials`, then `<metric> flipped` per metric).
 */
export function renderCsv(table: ComparisonTable): string {
  const sig = table.significance !== null;
  const header: string[] = [];
  if (sig) header.push("label");
  header.push("run");
  const statuses = showStatus(table);
  if (statuses) header.push("errored", "incomplete");
  for (const c of table.columns) header.push(c.header);
  if (sig) for (const c of table.columns) header.push(`${c.header} p`);
  const trials = hasTrials([table]);
  if (trials) header.push(...trialsHeader(table));
  const lines = [header.map(csvField).join(",")];
  for (const row of table.rows) {
    const fields: string[] = [];
    if (sig) fields.push(csvField(row.label));
    fields.push(csvField(row.name));
    if (statuses) fields.push(csvField(row.status?.errored), csvField(row.status?.incomplete));
    for (const cell of row.cells) fields.push(csvField(cell.value));
    if (sig) for (const cell of row.cells) fields.push(csvField(pOf(cell)));
    if (trials) fields.push(...trialsFields(row));
    lines.push(fields.join(","));
  }
  return `${lines.join("\r\n")}\r\n`;
}

function pOf(cell: TableCell): number | null {
  return cell.test?.p ?? null;
}

/**
 * The header of the trials' columns, written after every other column when a run has trials:
 * `trials` (trials per sample; 1 for a run without), then per metric `<metric> flipped`: the
 * samples whose trials disagree (their scores' max ≠ min), whatever the table's statistic; empty
 * for a run without trials or without the metric. (`trial_std` is a statistic of its own:
 * `toCsv("trial_std")`.) @internal
 */
export function trialsHeader(table: ComparisonTable): string[] {
  const header = ["trials"];
  for (const c of table.columns) header.push(`${c.metric} flipped`);
  return header;
}

/** One row's fields under {@link trialsHeader}. @internal */
export function trialsFields(row: TableRow): string[] {
  const t = row.trials;
  const fields = [csvField(t?.trials ?? 1)];
  for (let j = 0; j < row.cells.length; j++) fields.push(csvField(t?.flipped[j]));
  return fields;
}
