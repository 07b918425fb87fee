import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { globby } from "globby";
import { UsageError } from "./io.js";

/**
 * Expands files and glob patterns, sorted by path; a literal path that exists is kept as given.
 * No match for any argument is a usage error naming it: an empty comparison is a wrong answer.
 */
export async function expandPaths(args: readonly string[], cwd: string): Promise<string[]> {
  const out: string[] = [];
  for (const arg of args) {
    // An existing file is that file, even when its name reads as a glob: "bm25 (k1=1.2).json",
    // "run[1].json" (which, as a glob, would match run1.json instead).
    const literal = resolve(cwd, arg);
    const found = await stat(literal).catch(() => undefined);
    if (found?.isFile()) {
      out.push(literal);
      continue;
    }
    if (found?.isDirectory()) {
      // `compare results`: the files are in it, not it.
      const pattern = `${arg.replace(/[\\/]+$/, "")}/*.json`;
      throw new UsageError(`"${arg}" is a directory; give its result files, e.g. '${pattern}'`, {
        option: "<files>",
        path: arg,
      });
    }
    const matched = await globby(arg, {
      cwd,
      absolute: true,
      expandDirectories: false,
      onlyFiles: true,
    });
    if (matched.length === 0)
      throw new UsageError(`no file matches "${arg}"`, { option: "<files>", path: arg });
    out.push(...matched.sort());
  }
  return [...new Set(out)];
}

/** A run name made safe as a file name: `gpt-4o/rerank` → `gpt-4o_rerank`. */
export function fileSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^\.+/, "_") || "_";
}
