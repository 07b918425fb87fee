// The light entry: a command loads the runner only when it needs it (`eval` never does).
import { ConfigurationError } from "@fastrag/bench-core/internal/base";
import { Command, CommanderError } from "commander";
import { checkCommandSpec } from "./commands/check-command.js";
import type { CommandContext, CommandSpec } from "./commands/command-spec.js";
import { compareCommandSpec } from "./commands/compare-command.js";
import { diffCommandSpec } from "./commands/diff-command.js";
import { evalCommandSpec } from "./commands/eval-command.js";
import { mergeCommandSpec } from "./commands/merge-command.js";
import { rescoreCommandSpec } from "./commands/rescore-command.js";
import { runCommandSpec } from "./commands/run/command.js";
import { colors, type Io, UsageError, writeLine } from "./internal/io.js";
import { printable, terminalSafe } from "./internal/printable.js";
import { TargetLockedError } from "./internal/target-locked-error.js";

/**
 * The commands, in the order `--help` lists them. Each declares its own options and help; its
 * module loads only when its action runs, so `--help` stays fast.
 */
const COMMANDS: readonly CommandSpec[] = [
  runCommandSpec,
  rescoreCommandSpec,
  compareCommandSpec,
  diffCommandSpec,
  checkCommandSpec,
  evalCommandSpec,
  mergeCommandSpec,
];

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

  const context: CommandContext = {
    io,
    signal,
    stop,
    setExitCode: (exitCode) => {
      code = exitCode;
    },
  };
  for (const spec of COMMANDS) spec.declare(program.command(spec.name), context);

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
      // A lock's message says itself what to do.
      if (!TargetLockedError.isInstance(error)) writeLine(io.stderr, c.dim(hint(error, command)));
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
function details(error: unknown): string {
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
function storageHint(error: unknown): string | undefined {
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
