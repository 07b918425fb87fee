import { type CheckFailure, check } from "@fastrag/bench-compare";
import { BenchmarkResult, SUMMARY_STATS, type SummaryStat } from "@fastrag/bench-core";
import { colors, type Io, UsageError, writeLine } from "../internal/io.js";

export interface CheckOptions {
  readonly min?: readonly string[];
  readonly max?: readonly string[];
  readonly json?: boolean;
}

interface Bound {
  readonly metric: string;
  readonly stat: SummaryStat;
  readonly kind: "min" | "max";
  readonly value: number;
}

/** Parses `recall@5=0.8` or `latency_ms:p95=1200`. */
export function parseBound(spec: string, kind: "min" | "max"): Bound {
  const eq = spec.indexOf("=");
  const text = eq === -1 ? "" : spec.slice(eq + 1).trim();
  // Decimal only: Number() would also take "0x10" (16), "" (0) or "0.8=0.9" as part of a name.
  const value = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/.test(text)
    ? Number(text)
    : Number.NaN;
  if (eq <= 0 || !Number.isFinite(value)) {
    throw new UsageError(
      `--${kind} "${spec}": expected METRIC[:STAT]=NUMBER, e.g. recall@5=0.8 or latency_ms:p95=1200`,
    );
  }
  const left = spec.slice(0, eq);
  const colon = left.lastIndexOf(":");
  const stat = colon === -1 ? "mean" : left.slice(colon + 1);
  const metric = colon === -1 ? left : left.slice(0, colon);
  if (!(SUMMARY_STATS as readonly string[]).includes(stat)) {
    throw new UsageError(
      `--${kind} "${spec}": unknown stat "${stat}"; expected one of ${SUMMARY_STATS.join(", ")}`,
    );
  }
  return { metric, stat: stat as SummaryStat, kind, value };
}

/** `fastrag-bench check`: exit 1 when any bound fails, printing every failure. */
export async function checkCommand(file: string, options: CheckOptions, io: Io): Promise<number> {
  const bounds = [
    ...(options.min ?? []).map((s) => parseBound(s, "min")),
    ...(options.max ?? []).map((s) => parseBound(s, "max")),
  ];
  if (bounds.length === 0) throw new UsageError("check: give at least one --min or --max bound");
  const result = await BenchmarkResult.load(file);
  const failures: (CheckFailure & { readonly side: "min" | "max" })[] = [];
  for (const b of bounds) {
    for (const f of check(result, { [b.metric]: { stat: b.stat, [b.kind]: b.value } })) {
      // `side` says which bound a `missing` failure was (its `kind` cannot).
      failures.push({ ...f, side: b.kind });
    }
  }
  if (options.json) {
    writeLine(
      io.stdout,
      JSON.stringify(
        { run: result.name, passed: failures.length === 0, bounds: bounds.length, failures },
        null,
        2,
      ),
    );
    return failures.length === 0 ? 0 : 1;
  }
  const c = colors(io, "stdout");
  if (failures.length === 0) {
    writeLine(io.stdout, `${c.green("✓")} ${result.name}: all ${bounds.length} bound(s) hold`);
    return 0;
  }
  writeLine(
    io.stdout,
    `${c.red("✗")} ${result.name}: ${failures.length} of ${bounds.length} bound(s) failed`,
  );
  for (const f of failures) writeLine(io.stdout, `  ${c.red("✗")} ${f.message}`);
  return 1;
}
