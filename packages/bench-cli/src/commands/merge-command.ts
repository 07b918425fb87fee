import type { CommandSpec } from "./command-spec.js";

/** `fastrag-bench merge <files...>`: its options and help; the action loads `./merge.js`. */
export const mergeCommandSpec: CommandSpec = {
  name: "merge",
  declare: (command, { io, setExitCode }) => {
    command
      .description("join the shards of a run (run --shard) into one result")
      .argument("<files...>", "shard result files or glob patterns")
      .requiredOption("--out <file>", "the merged result file")
      .action(async (files: string[], opts) => {
        const { mergeCommand } = await import("./merge.js");
        setExitCode(await mergeCommand(files, opts, io));
      });
  },
};
