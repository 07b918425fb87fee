import { escapeHtml } from "./html/escape.js";
import { formatNumber } from "./internal/format.js";
import { csvField, trialsFields, trialsHeader } from "./render-csv.js";
import { COMPARISON_FORMAT, renderJson } from "./render-json.js";
import { escapeCell, renderMarkdown, showStatus } from "./render-markdown.js";
import { type ComparisonTable, hasTrials } from "./table.js";

// A comparison sliced by a metadata field, rendered: one table per slice (markdown, HTML), or one
// long table with the slice in its first columns (CSV), or one JSON document with a table per
// slice. Each slice's table is the ordinary table of that slice's comparison.

/** `format` of the sliced JSON document (`toJson({ by })`, `Comparison.toJson`). */
export const SLICED_COMPARISON_FORMAT = "fastrag-bench-comparison-slices/1";

/** One slice's table, as the renderers take it. */
export interface SliceTable {
  readonly label: string;
  /** The value of the field, `undefined` for the samples without it. */
  readonly value: unknown;
  readonly missing: boolean;
  readonly samples: number;
  readonly table: ComparisonTable;
}

/** The sentence before the slices' tables: the field, and every group's size. */
export function sliceSummary(by: string, slices: readonly SliceTable[]): string {
  let total = 0;
  for (const s of slices) total += s.samples;
  const sizes = slices
    .map(
      (s) => `${s.missing ? "without it" : sliceValueText(s)} ${s.samples.toLocaleString("en-US")}`,
    )
    .join(", ");
  return `Sliced by ${by}: ${slices.length} group(s) of the ${total.toLocaleString("en-US")} samples (${sizes}). Each table covers its group's samples only, with its own tests.`;
}

function sliceValueText(s: SliceTable): string {
  return typeof s.value === "string" ? JSON.stringify(s.value) : String(JSON.stringify(s.value));
}

/** Markdown: the summary sentence, then per slice a `###` heading with its size and its table. */
export function renderSlicedMarkdown(by: string, slices: readonly SliceTable[]): string {
  const parts = [escapeCell(sliceSummary(by, slices))];
  for (const s of slices) {
    parts.push(
      `### ${escapeCell(s.label)} (${s.samples.toLocaleString("en-US")} samples)`,
      renderMarkdown(s.table).trimEnd(),
    );
  }
  return `${parts.join("\n\n")}\n`;
}

/**
 * CSV: one long table, as pandas reads it (`df.groupby(by)`): the field's value (empty for the
 * samples without it, with `missing` saying so), the group's size, then the columns of the plain
 * table, always with `errored` and `incomplete`, and with `label` and the p columns when a test
 * is on; then, when a run has trials, the trials' columns (see `trialsHeader`).
 */
export function renderSlicedCsv(by: string, slices: readonly SliceTable[]): string {
  const first = slices[0]?.table;
  if (first === undefined) return "";
  const sig = first.significance !== null;
  const header: string[] = [by, "missing", "samples"];
  if (sig) header.push("label");
  header.push("run", "errored", "incomplete");
  for (const c of first.columns) header.push(c.header);
  if (sig) for (const c of first.columns) header.push(`${c.header} p`);
  const trials = hasTrials(slices.map((s) => s.table));
  if (trials) header.push(...trialsHeader(first));
  const lines = [header.map(csvField).join(",")];
  for (const s of slices) {
    const value = s.missing
      ? null
      : typeof s.value === "string"
        ? s.value
        : JSON.stringify(s.value);
    for (const row of s.table.rows) {
      const fields = [csvField(value), csvField(s.missing ? "true" : "false"), csvField(s.samples)];
      if (sig) fields.push(csvField(row.label));
      fields.push(
        csvField(row.name),
        csvField(row.status?.errored ?? null),
        csvField(row.status?.incomplete ?? null),
      );
      for (const cell of row.cells) fields.push(csvField(cell.value));
      if (sig) for (const cell of row.cells) fields.push(csvField(cell.test?.p ?? null));
      if (trials) fields.push(...trialsFields(row));
      lines.push(fields.join(","));
    }
  }
  return `${lines.join("\r\n")}\r\n`;
}

/**
 * JSON: `{ format: "fastrag-bench-comparison-slices/1", by, slices: [{ value, missing, samples,
 * table }] }`, each `table` the slice's comparison JSON (`fastrag-bench-comparison/1`); `value`
 * is absent for the samples without the field.
 */
export function renderSlicedJson(
  by: string,
  slices: readonly SliceTable[],
  paths?: readonly string[],
): string {
  const out = {
    format: SLICED_COMPARISON_FORMAT,
    table_format: COMPARISON_FORMAT,
    by,
    slices: slices.map((s) => ({
      ...(s.missing ? {} : { value: s.value }),
      missing: s.missing,
      samples: s.samples,
      table: JSON.parse(renderJson(s.table, paths)) as unknown,
    })),
  };
  return `${JSON.stringify(out, null, 2)}\n`;
}

/**
 * The HTML report's slice section: the summary, a selector, and per slice a table of the
 * statistic with its significance letters and errored counts. Every text escaped. Inserted in
 * the report before the charts.
 */
export function renderSlicedHtml(by: string, slices: readonly SliceTable[]): string {
  const tables = slices.map((s, k) => {
    const t = s.table;
    const status = showStatus(t);
    const head = [
      "<th>run</th>",
      ...(status ? ['<th class="num">errored</th>', '<th class="num">incomplete</th>'] : []),
      ...t.columns.map(
        (c) => `<th class="num">${escapeHtml(c.header)} ${c.higherIsBetter ? "↑" : "↓"}</th>`,
      ),
    ].join("");
    const rows = t.rows.map((row) => {
      const cells = row.cells.map((cell, j) => {
        const column = t.columns[j];
        if (typeof cell.value !== "number" || column === undefined) return '<td class="num">—</td>';
        const marks = cell.beats
          .map(
            (b) =>
              `<sup class="sig" title="significantly better than run ${escapeHtml(b)}">${escapeHtml(b)}</sup>`,
          )
          .join("");
        return `<td class="num">${formatNumber(cell.value, column.decimals)}${marks}</td>`;
      });
      const counts = status
        ? `<td class="num">${row.status?.errored ?? 0}</td><td class="num">${row.status?.incomplete ?? 0}</td>`
        : "";
      return `<tr><td><span class="letter">${escapeHtml(row.label)}</span> ${escapeHtml(row.name)}</td>${counts}${cells.join("")}</tr>`;
    });
    return `<div class="slice" data-slice="${k}">
<h3>${escapeHtml(s.label)} <span class="note">${s.samples.toLocaleString("en-US")} samples</span></h3>
<div class="table-wrap"><table class="slice-table">
<thead><tr>${head}</tr></thead>
<tbody>
${rows.join("\n")}
</tbody></table></div>
</div>`;
  });
  return `<section id="slices">
<h2>By ${escapeHtml(by)}</h2>
<p class="note">${escapeHtml(sliceSummary(by, slices))}</p>
${tables.join("\n")}
</section>`;
}
