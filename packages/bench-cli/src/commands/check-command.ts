import { type CommandSpec, collect } from "./command-spec.js";

/** `fastrag-bench check <result>`: its options and help; the action loads `./check.js`. */
export const checkCommandSpec: CommandSpec = {
  name: "check",
  declare: (command, { io, setExitCode }) => {
    command
      .description("CI gate: exit 1 when a result breaks a bound, printing every failed bound")
      .argument("<result>", "a result file")
      .option("--min <metric[:stat]=value>", "lower bound, e.g. recall@5=0.8 (repeatable)", collect)
      .option(
        "--max <metric[:stat]=value>",
        "upper bound, e.g. latency_ms:p95=1200 (repeatable)",
        collect,
      )
      .option(
        "--max-errored <n|p%>",
        "fail when more samples than this errored: a count (0) or a share of the samples (5%)",
      )
      .option("--json", "machine-readable output")
      .action(async (result: string, opts) => {
        const { checkCommand } = await import("./check.js");
        setExitCode(await checkCommand(result, opts, io));
      });
  },
};
