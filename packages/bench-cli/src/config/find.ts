// `fastrag-bench run` without a config argument: the config in the current directory.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../internal/io.js";

/** The names `run` looks for, in this order, when no config is given. */
export const DEFAULT_CONFIG_NAMES: readonly string[] = [
  "bench.config.ts",
  "bench.config.mts",
  "bench.config.mjs",
  "bench.config.js",
];

/**
 * The config file in `dir` by its conventional name: the first of {@link DEFAULT_CONFIG_NAMES}
 * that exists. Two of them existing is no error (the order decides), but a note names the one
 * taken.
 *
 * @throws {UsageError} naming the directory and every name looked for, when none exists.
 */
export function findConfig(dir: string): { path: string; others: string[] } {
  const found = DEFAULT_CONFIG_NAMES.filter((name) => existsSync(join(dir, name)));
  if (found.length === 0) {
    throw new UsageError(
      `no config given, and ${dir} has none of ${DEFAULT_CONFIG_NAMES.join(", ")}; pass one: fastrag-bench run path/to/bench.config.ts`,
      { option: "<config>" },
    );
  }
  return { path: join(dir, found[0] as string), others: found.slice(1) };
}
