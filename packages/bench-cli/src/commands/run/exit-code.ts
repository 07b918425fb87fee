import type { BenchmarkResult } from "@fastrag/bench-core";
import { colors, type Io, writeLine } from "../../internal/io.js";
import { printable } from "../../internal/printable.js";
import { erroredLimit, type MaxErrored } from "../check.js";

/**
 * The exit code of a finished run: 1 when a target errored on every sample (a run that did
 * nothing must not pass for one that worked), or on more samples than `--max-errored` allows;
 * each such target is named on stderr. Else 0.
 */
export function runExitCode(
  results: readonly BenchmarkResult[],
  maxErrored: MaxErrored | undefined,
  io: Io,
): number {
  const c = colors(io);
  let code = 0;
  for (const r of results) {
    const { errored } = r.status;
    const total = r.status.successful + errored + r.status.incomplete;
    if (total === 0 || errored === 0) continue;
    if (maxErrored !== undefined) {
      const limit = erroredLimit(maxErrored, total);
      if (errored > limit) {
        const given =
          maxErrored.percent === undefined ? "" : ` (${maxErrored.percent}% of ${total})`;
        writeLine(
          io.stderr,
          c.red(
            `error: ${printable(r.name)}: ${errored} of ${total} samples errored, more than --max-errored allows: ${limit}${given}`,
          ),
        );
        code = 1;
      }
    } else if (errored === total) {
      writeLine(
        io.stderr,
        c.red(
          `error: ${printable(r.name)}: every sample errored (${total} of ${total}); nothing was measured. Allow it with --max-errored 100%`,
        ),
      );
      code = 1;
    }
  }
  return code;
}
