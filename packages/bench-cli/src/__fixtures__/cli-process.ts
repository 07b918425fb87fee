// Shared by the end-to-end tests: the built `fastrag-bench` started as a child process, as a user
// or CI would, a scratch directory per test file, and the demo results the read-only commands
// (compare, diff, check) are tested on.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

/** The built binary (`pnpm build` first). */
export const bin: string = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));

/** This folder: the tests' configs and helpers. */
export const fixtures: string = fileURLToPath(new URL("./", import.meta.url));

/** Runs `fastrag-bench ...args` to its end, without colors. */
export function cli(
  args: string[],
  env: Record<string, string> = {},
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A new scratch directory for one test file, once the binary is known to be built. */
export async function scratchDir(): Promise<string> {
  expect(existsSync(bin), "build the package first (pnpm build)").toBe(true);
  return mkdtemp(join(tmpdir(), "fastrag-cli-"));
}

/**
 * Runs the demo configs into `out` as `run`'s own tests do: `weak.json` and `strong.json` (40
 * samples each), `typed_run.json`, and `flaky.json` (1 of its 10 samples errored).
 */
export function runDemoConfigs(out: string): void {
  for (const config of ["demo.config.mjs", "typed.config.ts", "flaky.config.mjs"]) {
    cli(["run", join(fixtures, config), "--out-dir", out]);
  }
}

/**
 * A scratch directory (`dir`) with the demo results in `out`, its `results/` folder: what the
 * test files of the read-only commands start from, in their `beforeAll` (allow it 120 s).
 */
export async function demoResults(): Promise<{ dir: string; out: string }> {
  const dir = await scratchDir();
  const out = join(dir, "results");
  runDemoConfigs(out);
  return { dir, out };
}
