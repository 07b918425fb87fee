import { ConfigurationError } from "@fastrag/bench-core";
import { Command, CommanderError, Option } from "commander";
import { colors, type Io, UsageError, writeLine } from "./internal/io.js";
import { printable, terminalSafe } from "./internal/printable.js";

/** Kept here, not imported from the eval command, so `--help` loads no command module. */
const DEFAULT_EVAL_METRICS = ["map", "mrr", "r_precision", "ndcg@10", "recall@100", "precision@10"];

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Version printed by `--version`, read from the package at run time. */
async function version(): Promise<string> {
  const { readFile } = await import("node:fs/promises");
  const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

/**
 * Runs the `fastrag-bench` command line and resolves to its exit code: 0 fine; 1 a check failed, a
 * regression was found, or `run` saw a target error on every sample (or past `--max-errored`); 2 a usage error or a `ConfigurationError` (one line on stderr with the
 * fix, no stack trace; with `--verbose`, the stack and causes too); 130 interrupted.
 *
 * `signal` cancels work in flight; `stop` (default: `signal`) only stops `run` from starting new
 * samples, letting those in flight finish: the first Ctrl-C aborts `stop`, the second `signal`.
 */
export async function main(
  argv: readonly string[],
  io: Io,
  signal: AbortSignal = new AbortController().signal,
  stop: AbortSignal = signal,
): Promise<number> {
  let code = 0;
  const program = new Command("fastrag-bench")
    .description("Benchmark RAG pipelines: run configs, compare runs, gate CI, evaluate TREC runs.")
    .version(await version(), "-v, --version")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });

  program
    .command("run")
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
    .option("--refresh", "with the cache: call every target again and overwrite the stored outputs")
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
      code = await (await import("./commands/run.js")).runCommand(config, opts, io, signal, stop);
    });

  program
    .command("rescore")
    .description(
      "score saved results again with the config's metrics, calling no target; writes <name>.json beside each input (replacing it) or into --out-dir",
    )
    .argument(
      "<config>",
      "the config whose dataset and metrics to use (its targets are not called)",
    )
    .argument("<results...>", "result files or glob patterns")
    .option("--out-dir <dir>", "write the rescored files here instead of replacing the inputs")
    .addHelpText(
      "after",
      "\nScores equal a fresh run's over the same outputs. A metric that reads chunk text needs results run with --keep-chunk-text.\nWrap a judge with cached() to pay once: a second rescore calls it zero times.",
    )
    .action(async (config: string, results: string[], opts) => {
      code = await (await import("./commands/rescore.js")).rescoreCommand(
        config,
        results,
        opts,
        io,
        signal,
      );
    });

  program
    .command("compare")
    .description("compare result files: a table with significance marks against a baseline")
    .argument(
      "<files...>",
      "result files or glob patterns (quote globs), in the order given (a glob's files by path)",
    )
    .option("--stat <stat>", "count, mean, std, min, p50 (or median), p90, p95, p99 or max", "mean")
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
      new Option("--test <test>", "significance test (default: randomization for 2+ runs)").choices(
        ["randomization", "t-test", "none"],
      ),
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
      code = await (await import("./commands/compare.js")).compareCommand(files, opts, io);
    });

  program
    .command("diff")
    .description("per-sample changes between two runs on one metric")
    .argument("<baseline>", "baseline result file")
    .argument("<candidate>", "candidate result file")
    .requiredOption("--metric <metric>", "the metric to compare, e.g. recall@5")
    .option("--fail-on-regression", "exit 1 when any sample regressed or became errored")
    .option("--limit <n>", "rows shown per section", parseLimit, 20)
    .option("--json", "machine-readable output")
    .action(async (baseline: string, candidate: string, opts) => {
      code = await (await import("./commands/diff.js")).diffCommand(baseline, candidate, opts, io);
    });

  program
    .command("check")
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
      code = await (await import("./commands/check.js")).checkCommand(result, opts, io);
    });

  program
    .command("eval")
    .description("evaluate a TREC run file against qrels, like trec_eval, with fastrag's metrics")
    .requiredOption("--qrels <file>", "TREC qrels: qid iter docno rel (gzip too)", collect)
    .requiredOption("--run <file>", "TREC run: qid Q0 docno rank score tag (gzip too)", collect)
    .option(
      "--save <file.json>",
      "also write the evaluation as a result file (per query: ranking, relevant ids, scores) for compare",
    )
    .option(
      "-m, --metric <metric>",
      `a measure (repeatable; P.5,10 gives several cutoffs); default: ${DEFAULT_EVAL_METRICS.join(", ")}`,
      collect,
    )
    .option("-q, --per-query", "also print one line per query (like trec_eval -q)")
    .option(
      "-l, --relevance-level <n>",
      "minimum grade that counts as relevant for binary measures (like trec_eval -l)",
    )
    .option("--json", "machine-readable output")
    // Kept for scripts written for it; it changes nothing (see the README), so help leaves it out.
    .addOption(new Option("--threads <n>", "no effect; kept for compatibility").hideHelp())
    .addHelpText(
      "after",
      "\nOutput: num_q, num_ret, num_rel, num_rel_ret (as trec_eval), then metric<TAB>query|all<TAB>value, 4 decimals. A qrels query missing from the run scores 0 (as trec_eval -c);\na query with no relevant document is left out of the average (trec_eval counts it as 0), and a note says so.",
    )
    .action(async (opts) => {
      code = await (await import("./commands/eval.js")).evalCommand(opts, io);
    });

  program
    .command("merge")
    .description("join the shards of a run (run --shard) into one result")
    .argument("<files...>", "shard result files or glob patterns")
    .requiredOption("--out <file>", "the merged result file")
    .action(async (files: string[], opts) => {
      code = await (await import("./commands/merge.js")).mergeCommand(files, opts, io);
    });

  try {
    if (argv.length === 0) {
      program.outputHelp();
      return 2;
    }
    await program.parseAsync([...argv], { from: "user" });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version exit through here with code 0; parse errors were printed already.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (ConfigurationError.isInstance(error) || error instanceof UsageError) {
      const c = colors(io);
      writeLine(io.stderr, `${c.red("error:")} ${firstLine(error.message)}`);
      const first = argv.find((arg) => !arg.startsWith("-"));
      const command = program.commands.find((cmd) => cmd.name() === first)?.name();
      // A lock's message says itself what to do (by name: the lock module loads with `run` only).
      if (error.name !== "TargetLockedError") writeLine(io.stderr, c.dim(hint(error, command)));
      if (argv.includes("--verbose")) writeLine(io.stderr, c.dim(details(error)));
      return 2;
    }
    throw error;
  }
}

/** A message on one line, any control character in it (from a run name, say) escaped. */
function firstLine(message: string): string {
  return printable(message.replace(/\s*\n\s*/g, " "));
}

/** `--verbose`: the error's stack, and each cause's, so a failure deep in a config can be traced. */
export function details(error: unknown): string {
  const parts: string[] = [];
  let e: unknown = error;
  for (let depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    const text = e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e);
    parts.push(depth === 0 ? text : `caused by: ${text}`);
    e = e instanceof Error ? e.cause : undefined;
  }
  return terminalSafe(parts.join("\n"));
}

function hint(error: Error, command: string | undefined): string {
  // A CLI flag at fault (`--by`, `--limit`): its fix is in the usage, not in a file.
  const flag =
    ConfigurationError.isInstance(error) &&
    error.kind === "invalid-option" &&
    error.option?.startsWith("--") === true;
  if (error instanceof UsageError || flag)
    return `run \`fastrag-bench ${command === undefined ? "" : `${command} `}--help\` for usage`;
  return storageHint(error) ?? "fix the input named above and run again";
}

/**
 * What to do about a file the system would not write or read (a full disk, a size limit, no
 * permission): no input of the user's is wrong, so "fix the input" would mislead. `undefined` for
 * any other error.
 */
export function storageHint(error: unknown): string | undefined {
  let e: unknown = error;
  for (let depth = 0; depth < 8 && typeof e === "object" && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && Object.hasOwn(STORAGE_HINTS, code)) return STORAGE_HINTS[code];
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

const STORAGE_HINTS: Readonly<Record<string, string>> = {
  ENOSPC: "free space on that disk (or write somewhere else), then run again",
  EDQUOT: "free space within your disk quota (or write somewhere else), then run again",
  EFBIG:
    "raise the file size limit (`ulimit -f unlimited`) or write to a file system that allows larger files, then run again",
  EACCES: "give yourself permission to write there (or write somewhere else), then run again",
  EPERM: "give yourself permission to write there (or write somewhere else), then run again",
  EROFS: "write to a file system that is not read-only, then run again",
  EIO: "check that disk (the system reported an input/output error), then run again",
};

/** `--limit`: a whole number of rows, 0 or more. */
function parseLimit(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isSafeInteger(n) || n < 0) {
    throw new UsageError(`--limit "${value}": expected a whole number of rows, 0 or more`);
  }
  return n;
}
