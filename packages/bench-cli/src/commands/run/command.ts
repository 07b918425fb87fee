import type { CommandSpec } from "../command-spec.js";
import { collect } from "../command-spec.js";

/** `fastrag-bench run [config]`: its options and help; the action loads `./run-command.js`. */
export const runCommandSpec: CommandSpec = {
  name: "run",
  declare: (command, { io, signal, stop, setExitCode }) => {
    command
      .description("run every target of a config file and save one result per target")
      .argument(
        "[config]",
        "a .ts, .mts, .js or .mjs file whose default export is defineConfig({...}) (default: bench.config.ts, .mts, .mjs or .js in the current directory)",
      )
      .option(
        "--shard <n/count>",
        "run only shard n of count (1-based), e.g. 2/8; merge shards with `merge`",
      )
      .option(
        "--out-dir <dir>",
        "where results go (default: the config's outDir, else ./results beside it)",
      )
      .option(
        "--only <target>",
        "run only this target of the config (repeatable); the others are neither run nor touched",
        collect,
      )
      .option(
        "--limit <n>",
        "a smoke test: run only the first n samples, saving into <outDir>/limit-<n>/ (never over a full run's results)",
      )
      .option(
        "--fresh",
        "discard a checkpoint journal left by an interrupted run instead of resuming",
      )
      .option(
        "--force",
        "resume a journal even though the config changed since it was written (the result records the new config's hash)",
      )
      .option(
        "--retry-errored",
        "re-run the samples that errored: when resuming, with the missing ones; after a finished run, only those of its saved result (the others are kept without calling the target)",
      )
      .option(
        "--warmup",
        "call each target once before timing its samples, so cold starts do not bias the first target's latency (not recorded; one extra call per target; config: warmup: true)",
      )
      .option(
        "--cache",
        "answer samples from the response cache at <outDir>/.cache/ and store new outputs there (config: cache: true)",
      )
      .option(
        "--refresh",
        "with the cache: call every target again and overwrite the stored outputs",
      )
      .option(
        "--continue-without-journal",
        "when the checkpoint journal cannot be written (a full disk), warn and go on without it instead of stopping the run",
      )
      .option(
        "--keep-chunk-text",
        "keep each retrieved chunk's text in the results, so `rescore` can use metrics that read it (Faithfulness)",
      )
      .option("--rpm <n>", "requests per minute, shared by every call of a target's run")
      .option("--tpm <n>", "tokens per minute (from the targets' usage), shared likewise")
      .option(
        "--adaptive",
        "adapt concurrency to the provider: halve on a 429, grow on successes (up to maxConcurrent)",
      )
      .option(
        "--max-errored <n|p%>",
        "exit 1 when a target errored on more samples than this: a count (0) or a share (5%); by default only a target that errored on every sample fails the run",
      )
      .option("--verbose", "print every sample error, and a failure's stack and causes")
      .option(
        "--trials <n>",
        "run every sample n times, each an independent call; scores are per-sample means, and the summary adds trial_std (config: trials)",
      )
      .addHelpText(
        "after",
        "\nA config is code: `run` executes it. Loading datasets or result files never evaluates code.\nAn interrupted run (Ctrl-C, crash) resumes from its journal when run again.",
      )
      .action(async (config: string | undefined, opts) => {
        const { runCommand } = await import("./run-command.js");
        setExitCode(await runCommand(config, opts, io, signal, stop));
      });
  },
};
