import type { CommandSpec } from "./command-spec.js";

/** `fastrag-bench rescore <config> <results...>`: its options and help; the action loads `./rescore.js`. */
export const rescoreCommandSpec: CommandSpec = {
  name: "rescore",
  declare: (command, { io, signal, setExitCode }) => {
    command
      .description(
        "score saved results again with the config's metrics, calling no target; writes <name>.json beside each input (replacing it) or into --out-dir",
      )
      .argument(
        "<config>",
        "the config whose dataset and metrics to use (its targets are not called)",
      )
      .argument("<results...>", "result files or glob patterns")
      .option("--out-dir <dir>", "write the rescored files here instead of replacing the inputs")
      .option(
        "--cache",
        "answer judge steps and embeddings from the response cache at <outDir>/.cache/ and store new ones there (config: cache: true)",
      )
      .option(
        "--refresh",
        "with the cache: ask every judge step again and overwrite what is stored",
      )
      .option(
        "--rejudge",
        "ask every judge step again instead of replaying the judgments the results kept",
      )
      .addHelpText(
        "after",
        "\nScores equal a fresh run's over the same outputs. A metric that reads chunk text needs results run with --keep-chunk-text.\nJudge metrics replay the judgments a result kept (no call for a step already answered); --rejudge asks again, and --cache stores each step's reply so a second rescore calls the judge zero times.",
      )
      .action(async (config: string, results: string[], opts) => {
        const { rescoreCommand } = await import("./rescore.js");
        setExitCode(await rescoreCommand(config, results, opts, io, signal));
      });
  },
};
