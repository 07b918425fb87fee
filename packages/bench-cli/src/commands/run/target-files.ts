// Where each target's files go in the output directory, and the checks that no two targets, nor a
// target and a shard, share one, and that the directory can be one.
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { ConfigurationError } from "@fastrag/bench-core";
import { fileSafe } from "../../internal/files.js";
import type { StatePaths } from "./state.js";

/**
 * The longest file-safe target name: a file system allows 255 bytes per name, and the longest file
 * a run makes for a target, a lock takeover's draft (`<name>.shard-N-of-COUNT.lock.takeover.<uuid>-takeover`),
 * adds some 60 characters and the shard's suffix to it.
 */
const MAX_FILE_NAME = 160;

/** How the file of a shard's result ends (see `targetPaths`), as a file system may match it: any case. */
const SHARD_SUFFIX = /\.shard-(\d+)-of-(\d+)$/i;

/**
 * Refuses an output directory that is a file, or lies under one, before any lock or target: the
 * first write into it would fail only then, with the file system's word for it.
 */
export async function expectOutDir(outDir: string, given: string, option: string): Promise<void> {
  const found = await stat(outDir).then(
    (s) => (s.isDirectory() ? undefined : "is a file"),
    (error: NodeJS.ErrnoException) =>
      error.code === "ENOTDIR" ? "lies under a file (a part of its path is a file)" : undefined,
  );
  if (found !== undefined) {
    throw new ConfigurationError(
      `${given} ${outDir} ${found}; expected a directory (made when missing) to save the results in`,
      { kind: "invalid-option", option },
    );
  }
}

/** The files `run` keeps for one target (of one shard) in the output directory. */
export interface TargetPaths extends StatePaths {
  /** The saved result. */
  readonly file: string;
  /** The checkpoint journal of the target's finished samples. */
  readonly journal: string;
  /** Written once the result is saved; removed when the whole command finishes. */
  readonly marker: string;
  /** Held while a command runs the target (see `TargetLocks`). */
  readonly lock: string;
}

/** Where a target's files go: `<outDir>/<name><suffix>.json`, the rest in `<outDir>/.journal/`. */
export function targetPaths(outDir: string, name: string, suffix: string): TargetPaths {
  const base = `${fileSafe(name)}${suffix}`;
  return {
    file: join(outDir, `${base}.json`),
    journal: join(outDir, ".journal", `${base}.jsonl`),
    marker: join(outDir, ".journal", `${base}.saved`),
    config: join(outDir, ".journal", `${base}.config.json`),
    lock: join(outDir, ".journal", `${base}.lock`),
  };
}

/**
 * Refuses target names whose result files would collide (two names that map to one file, also on a
 * case-insensitive file system), would be too long, or would read as a shard's result.
 *
 * @throws {ConfigurationError} naming the config (`path`) and the targets.
 */
export function expectTargetFileNames(path: string, names: readonly string[]): void {
  // Two names that map to one file would silently overwrite each other's result: also two that
  // differ only in case, on a case-insensitive file system (macOS's and Windows' by default).
  const byFile = new Map<string, string>();
  for (const name of names) {
    const file = fileSafe(name);
    if (file.length > MAX_FILE_NAME) {
      const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
      throw new ConfigurationError(
        `${path}: target ${JSON.stringify(shown)} has a name too long for its result file (${file.length} characters once file-safe; at most ${MAX_FILE_NAME}); shorten it`,
        { kind: "invalid-option", option: `targets.${name}`, path },
      );
    }
    // `<name>.shard-N-of-COUNT` is where shard N of COUNT of `<name>` is saved (and journaled):
    // a target named so would overwrite that shard's result, or be merged as one.
    const shardLike = SHARD_SUFFIX.exec(file);
    if (shardLike !== null) {
      throw new ConfigurationError(
        `${path}: target ${JSON.stringify(name)} ends like a shard's result file (.shard-N-of-COUNT): its result would overwrite shard ${shardLike[1]} of ${shardLike[2]} of target ${JSON.stringify(file.slice(0, shardLike.index))}; rename it`,
        { kind: "invalid-option", option: `targets.${name}`, path },
      );
    }
    const other = byFile.get(file.toLowerCase());
    if (other !== undefined) {
      const where =
        fileSafe(other) === file ? "" : " on a case-insensitive file system (macOS, Windows)";
      throw new ConfigurationError(
        `${path}: targets "${other}" and "${name}" would both be saved as ${file}.json${where}; rename one`,
        { kind: "invalid-option", option: `targets.${name}`, path },
      );
    }
    byFile.set(file.toLowerCase(), name);
  }
}
