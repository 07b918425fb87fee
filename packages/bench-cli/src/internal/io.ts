import { isAbsolute, resolve } from "node:path";
import {
  ConfigurationError,
  type ConfigurationErrorFields,
} from "@fastrag/bench-core/internal/base";

/**
 * A stream a command writes text to: `process.stdout` and `process.stderr` are ones. Declared
 * structurally, so the CLI's types need no `@types/node` in a user's project.
 */
export interface OutputStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** Where a command writes. Injected so tests can run commands in-process. */
export interface Io {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/**
 * A bad command line, or a bad setting of the config: exit code 2 with a one-line message and the
 * fix. Its `kind` is `invalid-option`; `option` names the flag, argument or setting at fault
 * (`--limit`, `<config>`, `retries.attempts`), and `path` the config when it is one, for code and
 * tests that react to them rather than to the message's text.
 */
export class UsageError extends ConfigurationError {
  constructor(message: string, fields?: Omit<ConfigurationErrorFields, "kind">) {
    super(message, { kind: "invalid-option", ...fields });
    this.name = "UsageError";
  }
}

/** Colors only for a terminal, and never when NO_COLOR is set (https://no-color.org). */
export interface Colors {
  readonly enabled: boolean;
  readonly bold: (s: string) => string;
  readonly dim: (s: string) => string;
  readonly red: (s: string) => string;
  readonly green: (s: string) => string;
  readonly yellow: (s: string) => string;
  readonly cyan: (s: string) => string;
}

export function colors(io: Io, stream: "stdout" | "stderr" = "stderr"): Colors {
  const on =
    Boolean(io[stream].isTTY) &&
    !("NO_COLOR" in io.env && io.env.NO_COLOR !== "") &&
    io.env.TERM !== "dumb";
  const wrap = (open: number, close: number) => (s: string) =>
    on ? `\u001b[${open}m${s}\u001b[${close}m` : s;
  return {
    enabled: on,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}

/**
 * A path from the command line as the command's working directory (`io.cwd`) reads it: `main` may
 * be run in-process with another directory than the process's. Where the two agree the path stays
 * as typed, so messages show it as typed.
 */
export function cliPath(io: Io, path: string): string {
  return isAbsolute(path) || resolve(io.cwd) === process.cwd() ? path : resolve(io.cwd, path);
}

export function writeLine(stream: OutputStream, line = ""): void {
  stream.write(`${line}\n`);
}
