import { Option } from "commander";
import { type CommandSpec, collect } from "./command-spec.js";

/** `fastrag-bench compare <files...>`: its options and help; the action loads `./compare.js`. */
export const compareCommandSpec: CommandSpec = {
  name: "compare",
  declare: (command, { io, setExitCode }) => {
    command
      .description("compare result files: a table with significance marks against a baseline")
      .argument(
        "<files...>",
        "result files or glob patterns (quote globs), in the order given (a glob's files by path)",
      )
      .option(
        "--stat <stat>",
        "count, mean, std, min, p50 (or median), p90, p95, p99 or max",
        "mean",
      )
      .option(
        "--samples <basis>",
        "common: compare every metric on the samples every run scored (default); all: each run's own scores",
      )
      .option(
        "--label <file=name>",
        "show the run of a result file under another name (repeatable), e.g. b/bm25.json=bm25-seed2",
        collect,
      )
      .option(
        "--baseline <name>",
        "the run others are tested against, by run name or result file (default: the first)",
      )
      .addOption(
        new Option(
          "--test <test>",
          "significance test (default: randomization for 2+ runs)",
        ).choices(["randomization", "t-test", "none"]),
      )
      .option("--alpha <alpha>", "significance level", undefined)
      .addOption(
        new Option(
          "--format <format>",
          "output format (default: from --out's extension: .md, .csv, .json, .html; else md)",
        ).choices(["md", "csv", "json", "html"]),
      )
      .option(
        "--out <file>",
        "write to a file (atomically) instead of stdout; its extension picks the format",
      )
      .option(
        "--diff-metric <metric>",
        "html: the metric of the per-sample diff (default: the first)",
      )
      .option("--title <title>", "html: the report's title")
      .option(
        "--by <metadata.key>",
        "slice the table by a metadata field: one table per value (and one for samples without it), with group sizes",
      )
      .action(async (files: string[], opts) => {
        const { compareCommand } = await import("./compare.js");
        setExitCode(await compareCommand(files, opts, io));
      });
  },
};
