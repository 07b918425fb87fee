import { equalUpToRounding } from "./internal/rounding.js";
import type { TableRow } from "./table.js";

/**
 * The row of the best value of column `j` in the metric's direction, `higher` or lower; of rows
 * tied with it up to floating-point rounding (0.30000000000000004 ties 0.3), the earliest.
 * `undefined` when no row has a value.
 */
export function bestRowOf(
  rows: readonly TableRow[],
  j: number,
  higher: boolean,
): TableRow | undefined {
  let extreme: number | undefined;
  for (const row of rows) {
    const v = row.cells[j]?.value;
    if (typeof v !== "number") continue;
    if (extreme === undefined || (higher ? v > extreme : v < extreme)) extreme = v;
  }
  if (extreme === undefined) return undefined;
  for (const row of rows) {
    const v = row.cells[j]?.value;
    if (typeof v === "number" && equalUpToRounding(v, extreme)) return row;
  }
  return undefined;
}
