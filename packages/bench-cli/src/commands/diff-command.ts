import { UsageError } from "../internal/io.js";
import type { CommandSpec } from "./command-spec.js";

/** `fastrag-bench diff <baseline> <candidate>`: its options and help; the action loads `./diff.js`. */
export const diffCommandSpec: CommandSpec = {
  name: "diff",
  declare: (command, { io, setExitCode }) => {
    command
      .description("per-sample changes between two runs on one metric")
      .argument("<baseline>", "baseline result file")
      .argument("<candidate>", "candidate result file")
      .requiredOption("--metric <metric>", "the metric to compare, e.g. recall@5")
      .option("--fail-on-regression", "exit 1 when any sample regressed or became errored")
      .option("--limit <n>", "rows shown per section", parseRowLimit, 20)
      .option("--json", "machine-readable output")
      .action(async (baseline: string, candidate: string, opts) => {
        const { diffCommand } = await import("./diff.js");
        setExitCode(await diffCommand(baseline, candidate, opts, io));
      });
  },
};

/** `diff --limit`: a whole number of rows, 0 or more. */
function parseRowLimit(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isSafeInteger(n) || n < 0) {
    throw new UsageError(`--limit "${value}": expected a whole number of rows, 0 or more`);
  }
  return n;
}
