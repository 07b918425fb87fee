import { stat as statFile } from "node:fs/promises";
import { isAbsolute, resolve as resolvePath } from "node:path";
import { BenchmarkResult, ConfigurationError } from "@fastrag/bench-core";
import { describeValue, forEachConcurrently } from "@fastrag/bench-core/internal";
import { convertPathToPattern, globby } from "globby";

/** Results are read this many at a time: parallel I/O, bounded memory. */
const LOAD_CONCURRENCY = 4;

/** Result files read by {@link loadResultFiles}, with the path of each. */
export interface LoadedResults {
  readonly results: BenchmarkResult[];
  readonly paths: string[];
}

/**
 * The result files matching glob patterns, loaded lazily, in the order of the patterns and each
 * pattern's matches in path order; a file matched twice keeps its first place. A pattern naming an
 * existing file is taken literally; `!pattern` excludes from every other pattern. The contract is
 * `Comparison.load`'s.
 *
 * @throws {ConfigurationError} when no pattern is given (or only exclusions), a pattern matches
 * nothing, or a file is not a readable result.
 */
export async function loadResultFiles(patterns: readonly string[]): Promise<LoadedResults> {
  if (patterns.length === 0) {
    throw new ConfigurationError(
      "Comparison.load: expected at least one glob pattern, found none",
      { kind: "invalid-option", option: "patterns" },
    );
  }
  for (const pattern of patterns) {
    if (typeof pattern !== "string" || pattern === "") {
      throw new ConfigurationError(
        `Comparison.load: expected a glob pattern, found ${describeValue(pattern)}`,
        { kind: "invalid-option", option: "patterns" },
      );
    }
  }
  const paths = uniqueFiles(await matchPatterns(patterns));
  const results: BenchmarkResult[] = new Array(paths.length);
  await forEachConcurrently(paths.length, LOAD_CONCURRENCY, async (i) => {
    results[i] = await BenchmarkResult.load(paths[i] as string, { lazy: true });
  });
  return { results, paths };
}

/**
 * The files the patterns match, in the order of the patterns (so `compare c.json a.json` keeps c
 * first, as `run` printed it), each glob's matches sorted by path.
 */
async function matchPatterns(patterns: readonly string[]): Promise<string[]> {
  // A "!pattern" excludes files from every other pattern, as in one globby call. Globbed alone,
  // it would match every file of the working directory.
  const positive: { pattern: string; literal: boolean }[] = [];
  const negative: string[] = [];
  for (const pattern of patterns) {
    const literal = await isFile(pattern);
    if (!literal && pattern.startsWith("!")) negative.push(pattern);
    else positive.push({ pattern, literal });
  }
  if (positive.length === 0) {
    throw new ConfigurationError(
      `Comparison.load: expected a pattern that selects files, found only exclusions (${negative.map((p) => `"${p}"`).join(", ")})`,
      { kind: "invalid-option", option: "patterns" },
    );
  }
  const excluding =
    negative.length === 0 ? "" : `, after excluding ${negative.map((p) => `"${p}"`).join(", ")}`;
  const ordered: string[] = [];
  for (const { pattern, literal } of positive) {
    let matched: string[];
    if (literal && negative.length === 0) matched = [pattern];
    else {
      // An existing file is matched as itself, its glob characters escaped (`run[1].json`).
      const glob = literal ? convertPathToPattern(pattern) : pattern;
      matched = await globby([glob, ...negative], {
        absolute: isAbsolute(pattern),
        onlyFiles: true,
      });
    }
    if (matched.length === 0) {
      throw new ConfigurationError(
        `Comparison.load: pattern "${pattern}" matched no file (working directory ${process.cwd()}${excluding})`,
        { kind: "invalid-option", option: "patterns" },
      );
    }
    matched.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    for (const file of matched) ordered.push(file);
  }
  return ordered;
}

/** The paths without repeats: two spellings of one file (relative and absolute) load once. */
function uniqueFiles(paths: readonly string[]): string[] {
  const unique: string[] = [];
  const seen = new Set<string>();
  for (const p of paths) {
    const abs = resolvePath(p);
    if (seen.has(abs)) continue;
    seen.add(abs);
    unique.push(p);
  }
  return unique;
}

/** Whether `path` names an existing regular file (a literal path rather than a glob). */
async function isFile(path: string): Promise<boolean> {
  try {
    return (await statFile(path)).isFile();
  } catch {
    return false;
  }
}
