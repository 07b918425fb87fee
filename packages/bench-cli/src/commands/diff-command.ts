import { UsageError } from "../internal/io.js";
import type { CommandSpec } from "./command-spec.js";

/** `fastrag-bench diff <baseline> <candidate>`: its options and help; the action loads `./diff.js`. */
export const diffCommandSpec: CommandSpec = {
  name: "diff",
  declare: (command, { io, setExitCode }) => {
    command
      .description("per-sample changes between two runs on one metric, or one sample of both")
      .argument("<baseline>", "baseline result file")
      .argument("<candidate>", "candidate result file")
      .option("--metric <metric>", "the metric to compare, e.g. recall@5 (optional with --sample)")
      .option("--fail-on-regression", "exit 1 when any sample regressed or became errored")
      .option("--limit <n>", "rows shown per section", parseRowLimit, 20)
      .option("--json", "machine-readable output")
      .option(
        "--sample <id>",
        "show one sample of both runs instead: status and scores (its question for runs without ids)",
      )
      .option(
        "--judgments",
        "with --sample: what each run's judge metrics asked and were told (statements, verdicts, reasons)",
      )
      .action(async (baseline: string, candidate: string, opts) => {
        checkFlags(opts);
        if (opts.sample !== undefined) {
          const { diffSampleCommand } = await import("./diff-sample.js");
          setExitCode(await diffSampleCommand(baseline, candidate, opts, io));
          return;
        }
        const { diffCommand } = await import("./diff.js");
        setExitCode(await diffCommand(baseline, candidate, opts, io));
      });
  },
};

/** `diff --limit`: a whole number of rows, 0 or more. */
function parseRowLimit(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isSafeInteger(n) || n < 0) {
    throw new UsageError(`--limit "${value}": expected a whole number of rows, 0 or more`, {
      option: "--limit",
    });
  }
  return n;
}

/** The flags that go together: `--metric` unless `--sample`; `--judgments` only with `--sample`. */
function checkFlags(opts: {
  metric?: string;
  sample?: string;
  judgments?: boolean;
  failOnRegression?: boolean;
}): void {
  if (opts.sample === undefined) {
    if (opts.metric === undefined) {
      throw new UsageError(
        "required option '--metric <metric>' not specified (only --sample <id> goes without it)",
        { option: "--metric" },
      );
    }
    if (opts.judgments === true) {
      throw new UsageError(
        "--judgments shows one sample's judgments: give it with --sample <id> (e.g. --sample q7 --judgments)",
        { option: "--judgments" },
      );
    }
  } else if (opts.failOnRegression === true) {
    throw new UsageError(
      "--fail-on-regression gates the whole diff: it does not go with --sample (drop one of them)",
      { option: "--fail-on-regression" },
    );
  }
}
