import { type ChartRun, colourClass } from "./charts.js";
import { escapeHtml } from "./escape.js";

/** A run's colour swatch and letter, as every section of the report shows a run. */
export function swatch(run: ChartRun): string {
  return `<span class="swatch ${colourClass(run.index)}"></span><span class="letter">${escapeHtml(run.label)}</span>`;
}
