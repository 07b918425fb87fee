import { formatNumber } from "../internal/format.js";

/** A p-value as the report prints it: 4 decimals, `< 0.0001` below that. */
export function formatP(p: number): string {
  return p < 0.0001 ? "< 0.0001" : p.toFixed(4);
}

/** A difference with its sign: `+0.1200`, `-0.0400`. */
export function signed(v: number, decimals: number): string {
  const text = formatNumber(v, decimals);
  return v > 0 ? `+${text}` : text;
}
