import { type CheckFailure, check } from "@fastrag/bench-compare";
import { BenchmarkResult, SUMMARY_STATS, type SummaryStat } from "@fastrag/bench-core";
import { cliPath, colors, type Io, UsageError, writeLine } from "../internal/io.js";
import { printable, terminalSafe } from "../internal/printable.js";

export interface CheckOptions {
  readonly min?: readonly string[];
  readonly max?: readonly string[];
  readonly maxErrored?: string;
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
      { option: `--${kind}` },
    );
  }
  const left = spec.slice(0, eq);
  const colon = left.lastIndexOf(":");
  const stat = colon === -1 ? "mean" : left.slice(colon + 1);
  const metric = colon === -1 ? left : left.slice(0, colon);
  if (!(SUMMARY_STATS as readonly string[]).includes(stat)) {
    throw new UsageError(
      `--${kind} "${spec}": unknown stat "${stat}"; expected one of ${SUMMARY_STATS.join(", ")}`,
      { option: `--${kind}` },
    );
  }
  return { metric, stat: stat as SummaryStat, kind, value };
}

export interface MaxErrored {
  readonly count?: number;
  /** The percentage as written, e.g. "9.9". */
  readonly percent?: string;
}

/**
 * The most errored samples `--max-errored` allows out of `total`: a count as given, or a share
 * (`5%`) rounded down to whole samples, computed exactly from its decimal digits (29% of 100 is
 * 29, where `0.29 * 100` would give 28.999999999999996).
 */
export function erroredLimit(spec: MaxErrored, total: number): number {
  if (spec.count !== undefined) return spec.count;
  const [whole, fraction = ""] = (spec.percent as string).split(".");
  const scaled = BigInt(`${whole}${fraction}`) * BigInt(total);
  return Number(scaled / (100n * 10n ** BigInt(fraction.length)));
}

/** `--max-errored 0` (a count) or `--max-errored 5%` (a share of the samples). */
export function parseMaxErrored(spec: string): MaxErrored {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(spec);
  const value = m ? Number(m[1]) : Number.NaN;
  if (!m || (m[2] === "%" ? value > 100 : !Number.isSafeInteger(value))) {
    throw new UsageError(
      `--max-errored "${spec}": expected a count of samples (e.g. 0) or a percentage up to 100% (e.g. 5%)`,
      { option: "--max-errored" },
    );
  }
  return m[2] === "%" ? { percent: m[1] as string } : { count: value };
}

/** `fastrag-bench check`: exit 1 when any bound fails, printing every failure. */
export async function checkCommand(file: string, options: CheckOptions, io: Io): Promise<number> {
  const { bounds, maxErrored } = checkBounds(options);
  const result = await BenchmarkResult.load(cliPath(io, file));
  const failures: Failure[] = [];
  for (const b of bounds) {
    for (const f of check(result, { [b.metric]: { stat: b.stat, [b.kind]: b.value } })) {
      // `side` says which bound a `missing` failure was (its `kind` cannot).
      failures.push({ ...f, side: b.kind });
    }
  }
  const { status } = result;
  const total = status.successful + status.incomplete + status.errored;
  if (maxErrored !== undefined) {
    const failure = erroredFailure(maxErrored, status.errored, total);
    if (failure !== undefined) failures.push(failure);
  }
  const count = bounds.length + (maxErrored === undefined ? 0 : 1);
  if (status.errored > 0 && maxErrored === undefined) {
    // Means leave errored samples out (a failure is never a zero), so a run that mostly failed
    // can pass its score bounds. Say so, where CI logs show it.
    writeLine(
      io.stderr,
      colors(io).yellow(
        `warning: ${status.errored} of ${total} samples of "${printable(result.name)}" errored, and every mean leaves them out; gate them with --max-errored N`,
      ),
    );
  }
  if (options.json) {
    writeLine(
      io.stdout,
      terminalSafe(
        JSON.stringify(
          { run: result.name, passed: failures.length === 0, bounds: count, status, failures },
          null,
          2,
        ),
      ),
    );
    return failures.length === 0 ? 0 : 1;
  }
  const out = colors(io, "stdout");
  const name = printable(result.name);
  if (failures.length === 0) {
    writeLine(io.stdout, `${out.green("✓")} ${name}: all ${count} bound(s) hold`);
    return 0;
  }
  writeLine(io.stdout, `${out.red("✗")} ${name}: ${failures.length} of ${count} bound(s) failed`);
  for (const f of failures) writeLine(io.stdout, `  ${out.red("✗")} ${printable(f.message)}`);
  return 1;
}

/** A failed bound, and which side of it (`min`, `max`) it was. */
type Failure = CheckFailure & { readonly side: "min" | "max" };

/**
 * `--min`, `--max` and `--max-errored` parsed, and checked before any file is read: at least
 * one, and no min above a max of the same metric and stat (nothing could pass, and the library
 * refuses it too, so it is a usage error rather than a failed gate).
 */
function checkBounds(options: CheckOptions): {
  bounds: Bound[];
  maxErrored: MaxErrored | undefined;
} {
  const bounds = [
    ...(options.min ?? []).map((s) => parseBound(s, "min")),
    ...(options.max ?? []).map((s) => parseBound(s, "max")),
  ];
  const maxErrored =
    options.maxErrored === undefined ? undefined : parseMaxErrored(options.maxErrored);
  if (bounds.length === 0 && maxErrored === undefined) {
    throw new UsageError("check: give at least one --min, --max or --max-errored bound", {
      option: "--min",
    });
  }
  for (const low of bounds) {
    if (low.kind !== "min") continue;
    for (const high of bounds) {
      if (
        high.kind === "max" &&
        high.metric === low.metric &&
        high.stat === low.stat &&
        low.value > high.value
      ) {
        throw new UsageError(
          `check: --min ${low.metric}:${low.stat}=${low.value} is above --max ${high.metric}:${high.stat}=${high.value}; nothing could pass`,
          { option: "--min" },
        );
      }
    }
  }
  return { bounds, maxErrored };
}

/** `--max-errored` as a failure when the run errored on more samples; a share rounds down (5% of 30 allows 1). */
function erroredFailure(spec: MaxErrored, errored: number, total: number): Failure | undefined {
  const limit = erroredLimit(spec, total);
  if (errored <= limit) return undefined;
  const given = spec.percent === undefined ? "" : ` (${spec.percent}% of ${total})`;
  return {
    metric: "errored",
    stat: "count",
    value: errored,
    bound: limit,
    kind: "max",
    side: "max",
    message: `errored samples: ${errored} of ${total}, above the maximum ${limit}${given}`,
  };
}
