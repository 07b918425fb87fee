// Shared by the tests that call `main` (or a command) in this process: an `Io` that keeps what is
// written, a scratch directory holding a test's files, and the opening of the small configs the
// `run` tests write, built from core's test kit and a real metric.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Io } from "../internal/io.js";

/** An `Io` without colors, in `cwd`, that keeps what each stream was given. */
export interface MemoryIo {
  readonly io: Io;
  /** Everything written to stdout so far. */
  readonly out: () => string;
  /** Everything written to stderr so far. */
  readonly err: () => string;
  /** Forgets what was written. */
  readonly clear: () => void;
}

export function memoryIo(cwd: string): MemoryIo {
  let stdout = "";
  let stderr = "";
  const io: Io = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { NO_COLOR: "1" },
    cwd,
  };
  return {
    io,
    out: () => stdout,
    err: () => stderr,
    clear: () => {
      stdout = "";
      stderr = "";
    },
  };
}

/** A new directory under the system's temporary one (`prefix` names the test), holding `files`. */
export async function scratchWith(
  prefix: string,
  files: Readonly<Record<string, string>> = {},
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `fastrag-${prefix}-`));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

/** The shared samples of the test configs (`answers.mjs`), by a path a config in any directory can import. */
const ANSWERS = JSON.stringify(fileURLToPath(new URL("./answers.mjs", import.meta.url)));

/**
 * The opening of a config (its imports resolve in this process, through the test runner's
 * aliases, not in a child process): `dataset`, `samples` of `answers.mjs`'s samples (with
 * `judged`, relevant ids too), `exact`, an `ExactMatch`, and `rightAnswer(sample)`. Its imports are
 * hoisted, so the config's own first line may come before them.
 */
export function answersConfigHead(
  samples: number,
  { judged = false }: { readonly judged?: boolean } = {},
): string {
  return `import { ExactMatch } from "@fastrag/bench-metrics/generation";
import { answerSamples, rightAnswer } from ${ANSWERS};
const dataset = answerSamples(${samples}${judged ? ", { judged: true }" : ""});
const exact = new ExactMatch();
`;
}
