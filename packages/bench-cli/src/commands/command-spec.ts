// What a command declares about itself. Spec modules import commander and nothing heavy: `--help`
// loads every spec, and a command's own module only when its action runs.
import type { Command } from "commander";
import type { Io } from "../internal/io.js";

/** What a command's action gets from `main`: where to write, and the two signals of a run. */
export interface CommandContext {
  readonly io: Io;
  /** Cancels work in flight (the second Ctrl-C). */
  readonly signal: AbortSignal;
  /** Stops `run` from starting new samples (the first Ctrl-C). */
  readonly stop: AbortSignal;
  /** Records the command's exit code, read by `main` once parsing is done. */
  readonly setExitCode: (code: number) => void;
}

/**
 * One command of `fastrag-bench`, as an object (unjs citty's idea): its name, and `declare`, which
 * gives `command` (made by `program.command(name)`) its description, arguments, options, help and
 * action. The action imports the command's module lazily, so help stays fast.
 */
export interface CommandSpec {
  readonly name: string;
  readonly declare: (command: Command, context: CommandContext) => void;
}

/** A repeatable option's parser: each value appended to the ones before. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
