import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rm, rmdir, stat, writeFile } from "node:fs/promises";
import { dirname, extname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { openCache, type SqliteCache } from "@fastrag/bench-cache";
import { Comparison } from "@fastrag/bench-compare";
import {
  Benchmark,
  BenchmarkResult,
  ConfigurationError,
  type DatasetLike,
  type EvalSample,
  errorMessage,
  JournalWriteError,
  type Progress,
  type RateLimitOptions,
  RunAbortedError,
  type ShardSpec,
} from "@fastrag/bench-core";
import { isTimeoutMs, MAX_TIMER_MS } from "@fastrag/bench-core/internal";
import { QADataset } from "@fastrag/bench-datasets";
import cliProgress from "cli-progress";
import type { BenchConfig } from "../config.js";
import { awaiting, doneAwaiting } from "../internal/activity.js";
import { findConfig } from "../internal/config-find.js";
import { fileSafe } from "../internal/files.js";
import { colors, type Io, UsageError, writeLine } from "../internal/io.js";
import { printable } from "../internal/printable.js";
import { configHash, gitCommit, provenanceOf, targetParams } from "../internal/provenance.js";
import { LockWaitInterruptedError, TargetLocks } from "../internal/run-lock.js";
import { erroredLimit, parseMaxErrored } from "./check.js";
import {
  changedConfigError,
  changedSince,
  journalConfigHash,
  type StatePaths,
  seedFromResult,
  shortHash,
  writeJournalConfigHash,
} from "./run-state.js";
import { warmUp } from "./run-warmup.js";

export interface RunCommandOptions {
  readonly shard?: string;
  readonly outDir?: string;
  readonly fresh?: boolean;
  readonly retryErrored?: boolean;
  /** Use the response cache at `<outDir>/.cache/` (also `cache: true` in the config). */
  readonly cache?: boolean;
  /** Call every target again and overwrite the cache (implies `cache`). */
  readonly refresh?: boolean;
  readonly continueWithoutJournal?: boolean;
  readonly keepChunkText?: boolean;
  /** `--rpm`: requests per minute (overrides the config's `rateLimit.requestsPerMinute`). */
  readonly rpm?: string;
  /** `--tpm`: tokens per minute (overrides the config's `rateLimit.tokensPerMinute`). */
  readonly tpm?: string;
  /** `--adaptive`: adaptive concurrency (sets the config's `rateLimit.adaptive`). */
  readonly adaptive?: boolean;
  /** `--max-errored`: exit 1 when a target errored on more samples than this. */
  readonly maxErrored?: string;
  /** `--verbose`: every sample error in full, with its stack when the result keeps one. */
  readonly verbose?: boolean;
  /** `--trials <n>`: runs of every sample (overrides the config's `trials`). */
  readonly trials?: string;
  /** `--only`: the targets to run (each a name of the config's), in the config's order. */
  readonly only?: readonly string[];
  /** `--limit`: run only the first n samples (a smoke test, saved apart). */
  readonly limit?: string;
  /** `--force`: resume a journal written under another version of the config. */
  readonly force?: boolean;
  /** `--warmup`: call each target once before timing it (also `warmup: true` in the config). */
  readonly warmup?: boolean;
}

const CONFIG_SUFFIXES = [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"];

/** The keys of {@link BenchConfig}. */
const CONFIG_KEYS: readonly string[] = [
  "dataset",
  "metrics",
  "targets",
  "maxConcurrent",
  "outDir",
  "timeoutMs",
  "cache",
  "keepChunkText",
  "retries",
  "rateLimit",
  "trials",
  "warmup",
];

/**
 * The longest file-safe target name: a file system allows 255 bytes per name, and the longest file
 * a run makes for a target, a lock takeover's draft (`<name>.shard-N-of-COUNT.lock.takeover.<uuid>-takeover`),
 * adds some 60 characters and the shard's suffix to it.
 */
const MAX_FILE_NAME = 160;

/** How the file of a shard's result ends (see `targetPaths`), as a file system may match it: any case. */
const SHARD_SUFFIX = /\.shard-(\d+)-of-(\d+)$/i;

/** Parses `--limit 20`: a positive whole number of samples. */
export function parseSampleLimit(value: string): number {
  const n = Number(value.trim());
  if (value.trim() === "" || !Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(
      `--limit "${value}": expected a positive whole number of samples, e.g. --limit 20`,
      { option: "--limit" },
    );
  }
  return n;
}

/**
 * `--only`: the named targets, in the config's order; `undefined` without the flag.
 *
 * @throws {UsageError} (option `--only`) for a name the config does not have, listing its names.
 */
export function selectTargets(
  names: readonly string[],
  only: readonly string[] | undefined,
): string[] | undefined {
  if (only === undefined || only.length === 0) return undefined;
  const unknown = only.filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    throw new UsageError(
      `--only ${unknown.map((n) => JSON.stringify(printable(n))).join(", ")}: the config has no such target; its targets are ${names.map((n) => JSON.stringify(printable(n))).join(", ")}`,
      { option: "--only" },
    );
  }
  return names.filter((name) => only.includes(name));
}

/** Parses `--shard 2/8` (1-based, as people count) into `{ index: 1, count: 8 }`. */
export function parseShard(spec: string): ShardSpec {
  const m = /^(\d+)\/(\d+)$/.exec(spec.trim());
  const n = m ? Number(m[1]) : Number.NaN;
  const count = m ? Number(m[2]) : Number.NaN;
  if (!m || count < 1 || n < 1 || n > count) {
    throw new UsageError(
      `--shard "${spec}": expected N/COUNT with 1 ≤ N ≤ COUNT, e.g. --shard 2/8`,
      { option: "--shard" },
    );
  }
  return { index: n - 1, count };
}

/** Loads a config module: TypeScript through jiti, JavaScript through a native import. */
export async function loadConfig(path: string): Promise<BenchConfig> {
  const ext = extname(path);
  if (!CONFIG_SUFFIXES.includes(ext)) {
    throw new UsageError(`${path}: a config must be a ${CONFIG_SUFFIXES.join(", ")} file`);
  }
  if (!existsSync(path)) throw new UsageError(`${path}: no such config file`);
  let mod: Record<string, unknown>;
  awaiting(
    `${path}: the config's top-level code awaits a promise that never settles`,
    "Make every promise the config awaits at its top level resolve or reject.",
  );
  try {
    if (ext === ".ts" || ext === ".mts" || ext === ".cts") {
      const { createJiti } = await import("jiti");
      const jiti = createJiti(import.meta.url, { interopDefault: true, moduleCache: false });
      mod = (await jiti.import(path)) as Record<string, unknown>;
    } else {
      mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    }
  } catch (error) {
    // A syntax error or a throw in the config's top-level code is bad input: say where, briefly.
    const where = syntaxErrorLocation(error, path) ?? thrownAt(error);
    throw new ConfigurationError(
      `${path}: could not load the config: ${where === undefined ? "" : `${where}: `}${errorMessage(error)}`,
      { cause: error },
    );
  }
  let config = unwrapExport(mod.default ?? mod.config) as
    | BenchConfig
    | PromiseLike<BenchConfig>
    | undefined;
  if (isThenable(config)) {
    // An async config: `export default makeConfig()` where makeConfig is async.
    awaiting(
      `${path}: the config's default export is a promise that never settles`,
      "Make it resolve to defineConfig({ dataset, metrics, targets }) (or reject with the reason it cannot).",
    );
    try {
      config = await config;
    } catch (error) {
      throw new ConfigurationError(
        `${path}: the config's promise rejected: ${errorMessage(error)}`,
        {
          cause: error,
        },
      );
    }
  }
  doneAwaiting();
  if (config === undefined && mod.default === undefined && mod.config === undefined) {
    // `export const config = …` is read too; anything else is probably a forgotten `default`.
    const names = Object.keys(mod).filter((k) => k !== "default" && k !== "__esModule");
    const found =
      names.length === 0
        ? "it exports nothing"
        : `it exports only ${names
            .slice(0, 8)
            .map((n) => JSON.stringify(n))
            .join(", ")}${names.length > 8 ? ", …" : ""}`;
    throw new ConfigurationError(
      `${path}: the config has no default export (${found}); write export default defineConfig({ dataset, metrics, targets })`,
      { path },
    );
  }
  if (typeof config !== "object" || config === null) {
    throw new ConfigurationError(
      `${path}: expected a default export made with defineConfig({ dataset, metrics, targets }), found ${shown(config)}`,
      { path },
    );
  }
  // `dataset: QADataset.load(…)` is already loading: should a check below refuse the config, its
  // rejection must not surface later as an unhandled one (a stack trace and exit 1). It is
  // still awaited, and reported, when the config is fine.
  if (isThenable(config.dataset)) config.dataset.then(undefined, () => {});
  if (Array.isArray(config.targets)) {
    throw new ConfigurationError(
      `${path}: targets must be an object of name → target, e.g. targets: { bm25: retriever }, not an array (its results would be named 0, 1, …)`,
    );
  }
  if (
    typeof config.targets !== "object" ||
    config.targets === null ||
    Object.keys(config.targets).length === 0
  ) {
    throw new ConfigurationError(
      `${path}: targets must name at least one target, e.g. targets: { bm25: retriever }`,
    );
  }
  if (!Array.isArray(config.metrics) || config.metrics.length === 0) {
    throw new ConfigurationError(
      `${path}: metrics must be a non-empty array of Metric objects, e.g. metrics: [new Recall({ k: 5 })]`,
    );
  }
  return config;
}

/**
 * Where a JavaScript syntax error is, as `file:line:column`. Node's message ("Unexpected token
 * ';'") names neither the file, which may be a module the config imports, nor the line. For
 * CommonJS the stack starts with them; for an ES module Node prints them only when the error is
 * uncaught, so the import is made again in a child process, and read from what it prints. The
 * child runs none of the config's code: a module graph that does not parse runs none, and every ES
 * module it loads starts with `throw` (see {@link NO_RUN_HOOK}), for a config that parses and
 * imports a broken module dynamically from its top-level code, which must not run twice (it may
 * call paid APIs). (jiti's errors for TypeScript configs name the place themselves.) `undefined`
 * when unknown.
 */
function syntaxErrorLocation(error: unknown, path: string): string | undefined {
  if (!(error instanceof SyntaxError)) return undefined;
  const stack = typeof error.stack === "string" ? error.stack : "";
  let text = stack;
  let shift = 0;
  // Only when Node threw it while compiling: a SyntaxError thrown by the config's own code (a
  // JSON.parse of a bad file) has a frame of that code, and its import must not run again.
  if (!ARROW.test(stack) && !/\n\s+at (?!.*\bnode:internal\/)/.test(stack)) {
    const child = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { register } from "node:module";\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(NO_RUN_HOOK)}`)});\nawait import(process.argv[1]);`,
        pathToFileURL(path).href,
      ],
      { encoding: "utf8", timeout: 10_000, stdio: ["ignore", "ignore", "pipe"] },
    );
    text = child.stderr ?? "";
    shift = NO_RUN_PREFIX.length;
  }
  const m = ARROW.exec(text);
  // Node's own frames (the child's `throw` reported as uncaught) are no place in the user's code.
  if (m === null || (m[1] as string).startsWith("node:")) return undefined;
  const file = (m[1] as string).startsWith("file:") ? fileURLToPath(m[1] as string) : m[1];
  const line = Number(m[2]);
  const column = (m[4] as string).length + 1 - (line === 1 ? shift : 0);
  return `${file}:${line}:${Math.max(1, column)}`;
}

/**
 * Where the config's code threw, as `file:line:column`: the first frame of the error's stack in
 * the user's own files (not Node's, not a package under node_modules, not jiti's loader), so a
 * throw in a module the config imports names that module. `undefined` when the stack has none.
 */
export function thrownAt(error: unknown): string | undefined {
  if (!(error instanceof Error) || typeof error.stack !== "string") return undefined;
  for (const line of error.stack.split("\n").slice(1)) {
    const m = /^\s+at (?:.*? \()?(.+?):(\d+):(\d+)\)?$/.exec(line);
    if (m === null) continue;
    let file = m[1] as string;
    if (file.startsWith("node:") || /[\\/]node_modules[\\/]/.test(file)) continue;
    if (file.startsWith("file:")) {
      try {
        file = fileURLToPath(file);
      } catch {
        continue;
      }
    }
    if (!file.startsWith("/") && !/^[A-Za-z]:[\\/]/.test(file)) continue;
    return `${file}:${m[2]}:${m[3]}`;
  }
  return undefined;
}

/** Put before the first line of every ES module the child loads: none of their code can run. */
const NO_RUN_PREFIX = "throw 0;";

/**
 * A module loader hook for the child of {@link syntaxErrorLocation}: each ES module's source starts
 * with {@link NO_RUN_PREFIX} on its first line (a `#!` line made a comment), so line numbers stay
 * and only first-line columns move, by the prefix's length.
 */
const NO_RUN_HOOK = `export async function load(url, context, next) {
  const loaded = await next(url, context);
  if (loaded.format !== "module" || loaded.source == null) return loaded;
  let source = typeof loaded.source === "string" ? loaded.source : new TextDecoder().decode(loaded.source);
  if (source.startsWith("#!")) source = "//" + source.slice(2);
  return { ...loaded, source: ${JSON.stringify(NO_RUN_PREFIX)} + source };
}`;

/** Node's report of where code does not parse: `<file>:<line>`, the source line, a caret under the place. */
const ARROW = /^(.+):(\d+)\n(.*)\n( *)\^/m;

/**
 * The config inside a module-interop wrapper: jiti's `interopDefault` hands a TypeScript module
 * that exports `config` (and no default) over as `{ config }`, and CommonJS compiled from
 * TypeScript as `{ default }`.
 */
function unwrapExport(value: unknown): unknown {
  let v = value;
  for (let depth = 0; depth < 3; depth++) {
    if (typeof v !== "object" || v === null || "targets" in v || isThenable(v)) return v;
    const inner =
      (v as { default?: unknown; config?: unknown }).default ?? (v as { config?: unknown }).config;
    if (inner === undefined) return v;
    v = inner;
  }
  return v;
}

/**
 * Keys of a config that `run` does not read: a misspelled one (`maxConcurent`, `outdir`) leaves
 * its default in force, so each gets a warning. (Not an error: a config built by spreading a
 * shared object may carry keys of its own.)
 */
export function unknownConfigKeys(config: object): string[] {
  return Object.keys(config).filter((key) => !CONFIG_KEYS.includes(key));
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/**
 * `fastrag-bench run <config>`: runs every target of the config and saves `<outDir>/<name>.json`.
 *
 * Each target keeps a checkpoint journal in `<outDir>/.journal/` while it runs: after a crash or
 * Ctrl-C, running the same command again resumes where it stopped. The journal is deleted once
 * the result is saved. `--fresh` discards an old journal instead.
 */
export async function runCommand(
  givenPath: string | undefined,
  options: RunCommandOptions,
  io: Io,
  signal: AbortSignal,
  stop: AbortSignal = signal,
): Promise<number> {
  const c = colors(io);
  let configPath: string;
  if (givenPath === undefined) {
    const found = findConfig(resolve(io.cwd));
    configPath = relative(resolve(io.cwd), found.path) || found.path;
    if (found.others.length > 0) {
      writeLine(
        io.stderr,
        c.dim(`note: running ${configPath} (also found: ${found.others.join(", ")})`),
      );
    }
  } else configPath = givenPath;
  const path = resolve(io.cwd, configPath);
  const shard = options.shard === undefined ? undefined : parseShard(options.shard);
  const maxErrored =
    options.maxErrored === undefined ? undefined : parseMaxErrored(options.maxErrored);
  const limit = options.limit === undefined ? undefined : parseSampleLimit(options.limit);
  if (options.fresh && options.force) {
    throw new UsageError(
      "--fresh and --force contradict each other: --fresh discards the journal, --force resumes from it; pass one",
      { option: "--force" },
    );
  }
  const config = await loadConfig(path);
  const base = dirname(path);
  const warmupSetting: unknown = config.warmup;
  if (warmupSetting !== undefined && typeof warmupSetting !== "boolean") {
    throw new UsageError(
      `${configPath}: warmup must be true or false, found ${shown(warmupSetting)}`,
      { option: "warmup" },
    );
  }
  const warmup = options.warmup === true || warmupSetting === true;
  // Asked for before anything runs: the names --only picks must be the config's.
  const allNames = Object.keys(config.targets);
  const only = selectTargets(allNames, options.only);
  // Provenance, known before any target runs: the config's hash and the commit it is run at.
  const hash = await configHash(path);
  const commit = await gitCommit(base);
  const params = new Map<string, Readonly<Record<string, unknown>> | undefined>();
  for (const name of only ?? allNames)
    params.set(name, targetParams(configPath, name, config.targets[name]));
  const fullDataset = await loadConfigDataset(config, base, configPath);
  const allSamples = (fullDataset as { samples?: unknown }).samples;
  const fullSamples = (
    Array.isArray(allSamples) ? allSamples : fullDataset
  ) as readonly EvalSample[];
  const fullSize = Array.isArray(fullSamples) ? fullSamples.length : 0;
  // The first n samples, as a dataset of their own: its fingerprint is theirs, so neither a
  // journal nor a result of a --limit run can be taken for the whole dataset's.
  const dataset: DatasetLike =
    limit === undefined || !Array.isArray(fullSamples) ? fullDataset : fullSamples.slice(0, limit);
  if (config.keepChunkText !== undefined && typeof config.keepChunkText !== "boolean") {
    throw new UsageError(
      `${configPath}: keepChunkText must be true or false, found ${shown(config.keepChunkText)}`,
    );
  }
  if (config.outDir !== undefined && typeof config.outDir !== "string") {
    throw new UsageError(
      `${configPath}: outDir must be a path (a string), found ${typeof config.outDir}`,
    );
  }
  // Checked here, naming the config, before anything is made: the runner would refuse them
  // only once a target starts, in its own terms (`Benchmark.run: …`), after the journal exists.
  const timeout: unknown = config.timeoutMs;
  if (timeout !== undefined && !isTimeoutMs(timeout)) {
    throw new UsageError(
      `${configPath}: timeoutMs must be a positive number of milliseconds (at most ${MAX_TIMER_MS}), found ${shown(timeout)}`,
    );
  }
  const concurrent: unknown = config.maxConcurrent;
  if (
    concurrent !== undefined &&
    !(Number.isSafeInteger(concurrent) && (concurrent as number) >= 1)
  ) {
    throw new UsageError(
      `${configPath}: maxConcurrent must be a positive integer, found ${shown(concurrent)}`,
    );
  }
  const useCache: unknown = config.cache;
  if (useCache !== undefined && typeof useCache !== "boolean") {
    throw new UsageError(`${configPath}: cache must be true or false, found ${shown(useCache)}`);
  }
  checkRetries(configPath, config.retries);
  const trials = trialsOf(configPath, config.trials, options.trials);
  const rateLimit = rateLimitOf(configPath, config.rateLimit, options);
  const warnings = (fullDataset as { warnings?: readonly string[] }).warnings ?? [];
  for (const key of unknownConfigKeys(config)) {
    writeLine(
      io.stderr,
      c.yellow(
        `warning: ${configPath}: config key ${JSON.stringify(key)} is not one run reads, so it is ignored; the keys are ${CONFIG_KEYS.join(", ")}`,
      ),
    );
  }
  for (const w of warnings) writeLine(io.stderr, c.yellow(`warning: ${w}`));
  let benchmark: Benchmark;
  try {
    benchmark = new Benchmark({
      dataset,
      metrics: config.metrics,
      ...(config.maxConcurrent !== undefined ? { maxConcurrent: config.maxConcurrent } : {}),
      ...(rateLimit !== undefined ? { rateLimit } : {}),
      ...(trials > 1 ? { trials } : {}),
    });
  } catch (error) {
    // A bad rateLimit field is the config's (or a flag's): say so in its terms.
    if (
      ConfigurationError.isInstance(error) &&
      error.kind === "invalid-option" &&
      (error.option === "rateLimit" || error.option?.startsWith("rateLimit.") === true)
    ) {
      // A field a flag set is the flag's: the error names the flag (in `option` too).
      const flag = (
        {
          "rateLimit.requestsPerMinute": options.rpm !== undefined ? "--rpm" : undefined,
          "rateLimit.tokensPerMinute": options.tpm !== undefined ? "--tpm" : undefined,
          "rateLimit.adaptive": options.adaptive ? "--adaptive" : undefined,
        } as Record<string, string | undefined>
      )[error.option as string];
      const said = error.message.replace(/^Benchmark: /, "");
      if (flag !== undefined) {
        throw new UsageError(`${flag}: ${said.replace(error.option as string, flag)}`, {
          option: flag,
        });
      }
      throw new UsageError(`${configPath}: ${said}`, { option: error.option as string });
    }
    throw error;
  }
  const baseOutDir =
    options.outDir !== undefined
      ? resolve(io.cwd, options.outDir)
      : resolve(base, config.outDir ?? "results");
  // A smoke test's results go apart, so they never replace a full run's results, nor are resumed
  // or compared as one (their dataset is the first n samples: `compare` refuses to pair them with
  // a full run's).
  const outDir = limit === undefined ? baseOutDir : join(baseOutDir, `limit-${limit}`);
  const names = Object.keys(config.targets);
  // Two names that map to one file would silently overwrite each other's result: also two that
  // differ only in case, on a case-insensitive file system (macOS's and Windows' by default).
  const byFile = new Map<string, string>();
  for (const name of names) {
    const file = fileSafe(name);
    if (file.length > MAX_FILE_NAME) {
      const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
      throw new ConfigurationError(
        `${path}: target ${JSON.stringify(shown)} has a name too long for its result file (${file.length} characters once file-safe; at most ${MAX_FILE_NAME}); shorten it`,
      );
    }
    // `<name>.shard-N-of-COUNT` is where shard N of COUNT of `<name>` is saved (and journaled):
    // a target named so would overwrite that shard's result, or be merged as one.
    const shardLike = SHARD_SUFFIX.exec(file);
    if (shardLike !== null) {
      throw new ConfigurationError(
        `${path}: target ${JSON.stringify(name)} ends like a shard's result file (.shard-N-of-COUNT): its result would overwrite shard ${shardLike[1]} of ${shardLike[2]} of target ${JSON.stringify(file.slice(0, shardLike.index))}; rename it`,
      );
    }
    const other = byFile.get(file.toLowerCase());
    if (other !== undefined) {
      const where =
        fileSafe(other) === file ? "" : " on a case-insensitive file system (macOS, Windows)";
      throw new ConfigurationError(
        `${path}: targets "${other}" and "${name}" would both be saved as ${file}.json${where}; rename one`,
      );
    }
    byFile.set(file.toLowerCase(), name);
  }
  await checkOutDir(
    outDir,
    options.outDir !== undefined ? "--out-dir" : `${configPath}: outDir`,
    options.outDir !== undefined ? "--out-dir" : "outDir",
  );
  // Every target is checked before the first one runs: a bad last target must not cost the
  // minutes (and API calls) of the ones before it only to fail at the end.
  // In a config with a QueryEngine, a Retriever target is scored without the metrics that need
  // an answer: they do not apply to it (its table cells read `—`), they are no failure of it. A
  // config of Retrievers alone with such a metric is still refused (nothing could score it).
  // Over every target, so that a target run alone (--only) is scored as in a run of them all.
  const hasEngine = names.some((name) => isEngine(config.targets[name]));
  const selected = only ?? names;
  const answerMetrics = benchmark.metrics.filter((m) => m.needsAnswer);
  let retrieverBenchmark: Benchmark | undefined;
  if (hasEngine && answerMetrics.length > 0) {
    const rest = config.metrics.filter((m) => !m.needsAnswer);
    if (rest.length > 0) {
      retrieverBenchmark = new Benchmark({
        dataset,
        metrics: rest,
        ...(config.maxConcurrent !== undefined ? { maxConcurrent: config.maxConcurrent } : {}),
        ...(rateLimit !== undefined ? { rateLimit } : {}),
        ...(trials > 1 ? { trials } : {}),
      });
    }
  }
  const benchmarks = selected.map((name) =>
    retrieverBenchmark !== undefined && !isEngine(config.targets[name])
      ? retrieverBenchmark
      : benchmark,
  );
  for (const [t, name] of selected.entries()) {
    checkTarget(path, name, config.targets[name], (benchmarks[t] as Benchmark).metrics);
  }
  if (retrieverBenchmark !== undefined) {
    const retrievers = selected.filter((_, t) => benchmarks[t] === retrieverBenchmark);
    if (retrievers.length > 0) {
      writeLine(
        io.stderr,
        c.dim(
          `note: ${answerMetrics.map((m) => m.name).join(", ")} ${answerMetrics.length === 1 ? "needs" : "need"} an answer, so ${retrievers.map((n) => printable(n)).join(", ")} (${retrievers.length === 1 ? "a Retriever" : "Retrievers"}) ${retrievers.length === 1 ? "is" : "are"} scored without ${answerMetrics.length === 1 ? "it" : "them"}`,
        ),
      );
    }
  }
  const suffix = shard ? `.shard-${shard.index + 1}-of-${shard.count}` : "";
  const paths = selected.map((name) => targetPaths(outDir, name, suffix));
  // No other run may run these targets into this directory meanwhile (see TargetLocks).
  let locks: TargetLocks;
  try {
    locks = await TargetLocks.acquire(
      selected.map((name, t) => ({ name, lock: (paths[t] as TargetPaths).lock })),
      (message) => writeLine(io.stderr, c.yellow(`note: ${message}`)),
      undefined,
      // The first Ctrl-C: waiting for a lock costs no call, so it stops at once.
      stop,
    );
  } catch (error) {
    // Ctrl-C while another machine's lock was watched: stop now, as during a run.
    if (error instanceof LockWaitInterruptedError) {
      writeLine(io.stderr, c.yellow(error.message));
      return 130;
    }
    throw error;
  }
  let results: BenchmarkResult[] | number;
  let cache: SqliteCache | undefined;
  try {
    // A resume under a changed config would mix two pipelines' samples in one result: every
    // target is checked before the first one runs. --fresh discards the journals (in runTargets);
    // --force resumes them, saying so.
    if (!options.fresh) {
      for (const [t, name] of selected.entries()) {
        const p = paths[t] as TargetPaths;
        const changed = await changedSince(p, hash);
        if (changed === undefined) continue;
        if (!options.force) throw changedConfigError(configPath, name, changed, hash, p.journal);
        writeLine(
          io.stderr,
          c.yellow(
            `warning: ${printable(name)}: resuming ${changed.what}, made under another version of ${configPath} (config hash ${shortHash(changed.hash)}, now ${shortHash(hash)}), as --force asks; ${changed.source === "journal" ? "the result records the config as it is now" : "it is kept as it is"}`,
          ),
        );
      }
    }
    // Shared by every target, by shards running at once on this machine, and by --limit runs.
    if (options.cache === true || options.refresh === true || useCache === true) {
      cache = openCache(join(baseOutDir, ".cache"));
    }
    results = await runTargets(
      config,
      benchmarks,
      selected,
      paths,
      options,
      shard,
      io,
      signal,
      stop,
      cache,
      {
        configPath,
        hash,
        commit,
        params,
        warmup,
        limit: limit === undefined ? undefined : { n: limit, of: fullSize },
      },
    );
  } finally {
    cache?.close();
    await locks.release();
  }
  if (typeof results === "number") return results;
  await rmdir(join(outDir, ".journal")).catch(() => {});
  if (!shard) {
    const comparison = Comparison.of(results);
    const table = comparison.toMarkdown(
      results.length > 1 ? { baseline: 0, test: "randomization" } : {},
    );
    writeLine(io.stdout);
    io.stdout.write(table.endsWith("\n") ? table : `${table}\n`);
  }
  return failedTargets(results, maxErrored, io);
}

/**
 * The exit code of a finished run: 1 when a target errored on every sample (a run that did
 * nothing must not pass for one that worked), or on more samples than `--max-errored` allows;
 * each such target is named on stderr. Else 0.
 */
function failedTargets(
  results: readonly BenchmarkResult[],
  maxErrored: ReturnType<typeof parseMaxErrored> | undefined,
  io: Io,
): number {
  const c = colors(io);
  let code = 0;
  for (const r of results) {
    const { errored } = r.status;
    const total = r.status.successful + errored + r.status.incomplete;
    if (total === 0 || errored === 0) continue;
    if (maxErrored !== undefined) {
      const limit = erroredLimit(maxErrored, total);
      if (errored > limit) {
        const given =
          maxErrored.percent === undefined ? "" : ` (${maxErrored.percent}% of ${total})`;
        writeLine(
          io.stderr,
          c.red(
            `error: ${printable(r.name)}: ${errored} of ${total} samples errored, more than --max-errored allows: ${limit}${given}`,
          ),
        );
        code = 1;
      }
    } else if (errored === total) {
      writeLine(
        io.stderr,
        c.red(
          `error: ${printable(r.name)}: every sample errored (${total} of ${total}); nothing was measured. Allow it with --max-errored 100%`,
        ),
      );
      code = 1;
    }
  }
  return code;
}

/**
 * The config's dataset: loaded from its path (relative to the config's folder), or awaited.
 *
 * @throws {UsageError} when it is missing or resolves to nothing.
 */
export async function loadConfigDataset(
  config: BenchConfig,
  base: string,
  configPath: string,
): Promise<DatasetLike> {
  const rawDataset = config.dataset;
  awaiting(
    `${configPath}: the config's dataset is a promise that never settles`,
    "Make it resolve to a QADataset or an array of samples (or reject).",
  );
  const dataset =
    typeof rawDataset === "string"
      ? await QADataset.load(resolve(base, rawDataset))
      : await rawDataset;
  doneAwaiting();
  if (dataset === undefined || dataset === null) {
    // An async loader that forgot its `return` resolves to undefined.
    throw new UsageError(
      `${configPath}: dataset is ${dataset === null ? "null" : "missing (or a promise of undefined)"}; expected a QADataset, an array of samples, a path, or a promise of one`,
    );
  }
  return dataset;
}

/**
 * Runs the targets one after another, resuming or keeping what an interrupted command left:
 * their results, or the exit code when a target was stopped.
 */
async function runTargets(
  config: BenchConfig,
  benchmarks: readonly Benchmark[],
  names: readonly string[],
  paths: readonly TargetPaths[],
  options: RunCommandOptions,
  shard: ShardSpec | undefined,
  io: Io,
  signal: AbortSignal,
  stop: AbortSignal,
  cache: SqliteCache | undefined,
  run: RunContext,
): Promise<BenchmarkResult[] | number> {
  const c = colors(io);
  const results: BenchmarkResult[] = [];
  if (options.fresh) {
    for (const p of paths) {
      await rm(p.journal, { force: true });
      await rm(p.marker, { force: true });
      await rm(p.config, { force: true });
    }
  }
  for (const [t, name] of names.entries()) {
    const target = config.targets[name];
    const benchmark = benchmarks[t] as Benchmark;
    const trials = benchmark.trials;
    const { file, journal, marker } = paths[t] as TargetPaths;
    // A target that finished before an interruption of this command keeps its saved result: a
    // resume must not spend its calls again, nor overwrite the file.
    if (!options.retryErrored && existsSync(marker)) {
      const kept = await keptResult(file, name, benchmark, shard, trials);
      if (kept) {
        writeLine(
          io.stderr,
          `${kept.status.errored > 0 ? c.yellow("!") : c.green("✓")} ${printable(name)}: finished before the interruption; kept ${file} (--fresh runs it again)`,
        );
        for (const line of problems(kept, file, options.verbose))
          writeLine(io.stderr, c.yellow(`  ${line}`));
        results.push(kept);
        continue;
      }
    }
    await rm(marker, { force: true });
    const statePaths = paths[t] as TargetPaths;
    let seededNow = false;
    if (options.retryErrored) {
      // After a finished run (no journal): its saved result seeds one, errored samples left out.
      const seeded = await seedFromResult(statePaths, name, benchmark, shard, {
        path: run.configPath,
        hash: run.hash,
        force: options.force === true,
      });
      if (seeded !== undefined && seeded.errored === 0) {
        writeLine(
          io.stderr,
          `${c.green("✓")} ${printable(name)}: no sample of ${file} errored; kept it as it is`,
        );
        results.push(seeded.result);
        continue;
      }
      if (seeded !== undefined) {
        seededNow = true;
        writeLine(
          io.stderr,
          c.dim(
            `${printable(name)}: running the ${plural(seeded.errored, "errored sample")} of ${file} again; its other ${plural(seeded.result.samples.length - seeded.errored, "sample")} are kept`,
          ),
        );
      }
    }
    const resuming = existsSync(journal);
    if (resuming && !seededNow)
      writeLine(io.stderr, c.dim(`${printable(name)}: resuming from ${journal}`));
    // Which config this journal is written under, so that a resume under another one is refused.
    if (!resuming || options.force === true || (await journalConfigHash(statePaths)) === undefined)
      await writeJournalConfigHash(statePaths, run.hash, run.configPath).catch(() => {});
    if (run.warmup && !stop.aborted) {
      const warm = await warmUp(target, benchmark, {
        name,
        first: shard ? shard.index : 0,
        signal,
        timeoutMs: config.timeoutMs,
        cache:
          cache === undefined ? undefined : { store: cache, refresh: options.refresh === true },
      });
      if (!warm.called) {
        writeLine(
          io.stderr,
          c.dim(
            `${printable(name)}: no warm-up call (${warm.reason === "cached" ? "the cache answers" : "no sample to run"})`,
          ),
        );
      } else if (warm.error !== undefined) {
        writeLine(
          io.stderr,
          c.yellow(
            `warning: ${printable(name)}: the warm-up call failed (${printable(errorMessage(warm.error))}); running the samples anyway`,
          ),
        );
      }
    }
    const total = shard
      ? Math.max(0, Math.ceil((benchmark.samples.length - shard.index) / shard.count))
      : benchmark.samples.length;
    const progress = startProgress(io, name, total, benchmark.rateLimit !== undefined, trials);
    let finished = 0;
    const onProgress = (p: Progress) => {
      finished = p.done;
      progress.update(p);
    };
    awaiting(
      () =>
        `target ${JSON.stringify(printable(name))}: ${finished} of ${total} samples finished, and the rest wait on a target call or a metric whose promise never settles`,
      `Finished samples are kept in ${journal}. Make every call settle (timeoutMs in the config bounds each target call), then run the same command again to resume.`,
    );
    let result: BenchmarkResult;
    try {
      result = await benchmark.run(target as never, {
        name,
        signal,
        stop,
        checkpoint: journal,
        onProgress,
        ...(config.timeoutMs !== undefined ? { timeoutMs: config.timeoutMs } : {}),
        ...(config.retries !== undefined ? { retries: config.retries } : {}),
        ...(shard ? { shard } : {}),
        ...(options.retryErrored ? { retryErrored: true } : {}),
        ...(cache !== undefined ? { cache, refresh: options.refresh === true } : {}),
        ...(options.continueWithoutJournal ? { continueWithoutJournal: true } : {}),
        onWarning: (message) => {
          progress.stop();
          writeLine(io.stderr, c.yellow(`warning: ${message}`));
        },
        ...(options.keepChunkText || config.keepChunkText === true ? { keepChunkText: true } : {}),
        provenance: provenanceOf(run.hash, run.commit, run.params.get(name)),
      });
    } catch (error) {
      progress.stop();
      if (JournalWriteError.isInstance(error)) {
        // The runner's words are the library's; a user of the command resumes with the command.
        throw new ConfigurationError(
          error.message
            .replace(
              "a run with the same checkpoint resumes from them",
              "the same command run again resumes from them",
            )
            .replace(
              "pass continueWithoutJournal: true to go on without a journal",
              "run again with --continue-without-journal to go on without a journal",
            ),
          { cause: error },
        );
      }
      if (RunAbortedError.isInstance(error)) {
        writeLine(
          io.stderr,
          c.yellow(
            `${printable(name)}: stopped; finished samples are kept in ${journal}. Run the same command again to resume.`,
          ),
        );
        return 130;
      }
      if (
        ConfigurationError.isInstance(error) &&
        error.path === journal &&
        (error.kind === "journal-unusable" ||
          error.kind === "journal-in-use" ||
          error.kind === "invalid-input")
      ) {
        // The journal is another run's or damaged: the CLI's way out is --fresh.
        throw new ConfigurationError(
          `${error.message}. To run ${JSON.stringify(name)} from the start, delete ${journal}; to run every target from the start: fastrag-bench run --fresh`,
          { cause: error },
        );
      }
      throw error;
    }
    progress.stop();
    doneAwaiting();
    try {
      await result.save(file);
    } catch (error) {
      // The journal is kept (it is removed only once every result is saved): say so, and how on.
      if (!ConfigurationError.isInstance(error)) throw error;
      throw new ConfigurationError(
        `${error.message}. ${JSON.stringify(printable(name))} was not saved; its ${plural(result.samples.length, "finished sample")} ${result.samples.length === 1 ? "is" : "are"} kept in ${journal}, and the same command run again saves the result from it without calling the target again`,
        {
          kind: error.kind,
          ...(error.path !== undefined ? { path: error.path } : {}),
          cause: error,
        },
      );
    }
    // The journal stays until every target is done: should a later target be interrupted, the
    // marker says this one's result is saved, and the resume keeps it. A marker that cannot be
    // written costs nothing but that: the resume then reads this target's journal again.
    await mkdir(dirname(marker), { recursive: true })
      .then(() => writeFile(marker, `${JSON.stringify({ result: file })}\n`))
      .catch(() => rm(marker, { force: true }).catch(() => {}));
    const s = result.status;
    let fromCache = "";
    if (cache !== undefined) {
      let n = 0;
      for (const sample of result.samples) if (sample.cached === true) n++;
      fromCache = `, ${n.toLocaleString("en-US")} from the cache`;
    }
    const status = `successful ${s.successful}, incomplete ${s.incomplete}, errored ${s.errored}${fromCache}`;
    const each = result.trials > 1 ? ` × ${result.trials} trials` : "";
    const smoke =
      run.limit === undefined
        ? ""
        : run.limit.n < run.limit.of
          ? `; --limit ${run.limit.n}: a smoke test of the first ${run.limit.n} of ${run.limit.of} samples, not a benchmark`
          : `; --limit ${run.limit.n}: all ${run.limit.of} samples`;
    writeLine(
      io.stderr,
      `${s.errored > 0 ? c.yellow("!") : c.green("✓")} ${printable(name)}: ${plural(result.samples.length, "sample")}${each} in ${result.durationS.toFixed(1)} s (${status}${smoke}) → ${file}`,
    );
    const limited = result.rateLimit;
    if (limited !== undefined) {
      writeLine(
        io.stderr,
        c.dim(
          `  rate limit: ${plural(limited.rateLimitedCalls, "call")} rate-limited (each waited and ran again); concurrency ${limited.concurrencyFinal} at the end, ${limited.concurrencyMin} at the lowest`,
        ),
      );
    }
    for (const line of problems(result, file, options.verbose))
      writeLine(io.stderr, c.yellow(`  ${line}`));
    results.push(result);
  }
  for (const p of paths) {
    await rm(p.journal, { force: true });
    await rm(p.marker, { force: true });
    await rm(p.config, { force: true });
  }
  return results;
}

/** What `runTargets` records and does beyond the config and the flags. */
interface RunContext {
  /** The config as given (for messages). */
  readonly configPath: string;
  /** The config file's hash (`sha256:…`), recorded in each result and beside each journal. */
  readonly hash: string;
  readonly commit: string | undefined;
  /** Each target's declared params, checked. */
  readonly params: ReadonlyMap<string, Readonly<Record<string, unknown>> | undefined>;
  readonly warmup: boolean;
  /** `--limit`: n of the dataset's samples run. */
  readonly limit: { readonly n: number; readonly of: number } | undefined;
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * What a finished target's summary line cannot say: why samples errored (the first distinct
 * messages; every one is in the result file), and metrics that scored no sample at all (a
 * dataset without what they need: expected answers, relevant ids).
 */
function problems(result: BenchmarkResult, file: string, verbose = false): string[] {
  const lines: string[] = [];
  if (verbose) {
    // Every error in full, with its stack when the result keeps one (result format 2).
    for (const sample of result.samples) {
      if (sample.error === null) continue;
      const stack = (sample as { errorStack?: string | null }).errorStack;
      const id = sample.sampleId === undefined ? "" : `${printable(sample.sampleId)}: `;
      lines.push(`${sample.status} ${id}${printable(sample.error)}`);
      if (typeof stack === "string" && stack !== "") {
        for (const frame of stack.split("\n")) lines.push(`    ${printable(frame)}`);
      }
    }
  }
  // Errored samples: the pipeline failed. Incomplete ones with an error: a metric threw.
  const errored = { count: 0, examples: [] as string[] };
  const metricErrors = { count: 0, examples: [] as string[] };
  for (const sample of result.samples) {
    if (sample.error === null) continue;
    const group = sample.status === "errored" ? errored : metricErrors;
    group.count++;
    // One line each: a multi-line message would break the indented summary.
    const flat = sample.error.replace(/\s*\n\s*/g, " ");
    const text = flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
    if (group.examples.length < 2 && !group.examples.includes(text)) group.examples.push(text);
  }
  const n = result.samples.length;
  if (errored.count > 0) {
    const who = errored.count === n && n > 1 ? "every sample" : plural(errored.count, "sample");
    lines.push(`${who} errored, e.g. ${errored.examples.join("; or ")}`);
  }
  if (metricErrors.count > 0) {
    lines.push(
      `a metric failed on ${plural(metricErrors.count, "sample")}, e.g. ${metricErrors.examples.join("; or ")}`,
    );
  }
  if (errored.count + metricErrors.count > errored.examples.length + metricErrors.examples.length) {
    lines.push(`every error is in ${file}`);
  }
  for (const [metric, summary] of Object.entries(result.summary)) {
    if (summary.count > 0 || errored.count === n) continue;
    // A metric that threw on every sample has said why above; one that returned null everywhere
    // found nothing to score.
    const failed = result.samples.some(
      (s) => s.status === "incomplete" && s.error?.includes(`${metric}: `),
    );
    lines.push(
      failed
        ? `${metric} scored no sample: it failed on them (see above)`
        : `${metric} scored no sample: does the dataset have what it needs (expected answers for answer metrics, relevant ids for retrieval metrics)?`,
    );
  }
  return lines;
}

/**
 * Checks a config's `retries` as `Benchmark.run` would, but naming the config, before anything is
 * made: `{ attempts, backoffMs?, maxBackoffMs?, retryOn }`.
 */
function checkRetries(configPath: string, retries: unknown): void {
  if (retries === undefined) return;
  const expected = "{ attempts, backoffMs?, maxBackoffMs?, retryOn }";
  if (typeof retries !== "object" || retries === null || Array.isArray(retries)) {
    throw new UsageError(`${configPath}: retries must be ${expected}, found ${shown(retries)}`);
  }
  const r = retries as Record<string, unknown>;
  for (const key of Object.keys(r)) {
    if (!["attempts", "backoffMs", "maxBackoffMs", "retryOn"].includes(key)) {
      throw new UsageError(
        `${configPath}: retries has an unknown field ${JSON.stringify(key)}; expected ${expected}`,
      );
    }
  }
  if (!(Number.isSafeInteger(r.attempts) && (r.attempts as number) >= 1)) {
    throw new UsageError(
      `${configPath}: retries.attempts must be a positive integer (attempts per sample, the first included), found ${r.attempts === undefined ? "none" : shown(r.attempts)}`,
    );
  }
  if (typeof r.retryOn !== "function") {
    throw new UsageError(
      `${configPath}: retries.retryOn must be a function (error) => boolean that marks transient errors, found ${r.retryOn === undefined ? "none" : shown(r.retryOn)}`,
    );
  }
  for (const key of ["backoffMs", "maxBackoffMs"]) {
    const v = r[key];
    if (v !== undefined && !(typeof v === "number" && Number.isFinite(v) && v >= 0)) {
      throw new UsageError(
        `${configPath}: retries.${key} must be a non-negative number of milliseconds, found ${shown(v)}`,
      );
    }
  }
}

/** The run's `rateLimit`: the config's, with `--rpm`, `--tpm` and `--adaptive` over it. */
function rateLimitOf(
  configPath: string,
  configured: unknown,
  options: RunCommandOptions,
): RateLimitOptions | undefined {
  const rpm = options.rpm === undefined ? undefined : perMinute("--rpm", options.rpm);
  const tpm = options.tpm === undefined ? undefined : perMinute("--tpm", options.tpm);
  if (configured !== undefined && (typeof configured !== "object" || configured === null)) {
    throw new UsageError(
      `${configPath}: rateLimit must be { requestsPerMinute?, tokensPerMinute?, adaptive?, isRateLimit?, maxWaits? }, found ${shown(configured)}`,
    );
  }
  if (configured === undefined && rpm === undefined && tpm === undefined && !options.adaptive) {
    return undefined;
  }
  return {
    ...(configured as RateLimitOptions | undefined),
    ...(rpm !== undefined ? { requestsPerMinute: rpm } : {}),
    ...(tpm !== undefined ? { tokensPerMinute: tpm } : {}),
    ...(options.adaptive ? { adaptive: true } : {}),
  };
}

/**
 * The run's trials per sample: `--trials`, else the config's `trials`, else 1; a positive
 * integer, refused in the flag's or the config's terms before anything runs.
 */
function trialsOf(configPath: string, configured: unknown, flag: string | undefined): number {
  if (flag !== undefined) {
    const n = /^\s*\d+\s*$/.test(flag) ? Number(flag) : Number.NaN;
    if (!(Number.isSafeInteger(n) && n >= 1)) {
      throw new UsageError(
        `--trials "${flag}": expected a positive integer (runs of every sample), e.g. --trials 5`,
      );
    }
    return n;
  }
  if (configured === undefined) return 1;
  if (!(Number.isSafeInteger(configured) && (configured as number) >= 1)) {
    throw new UsageError(
      `${configPath}: trials must be a positive integer (runs of every sample), found ${shown(configured)}`,
    );
  }
  return configured as number;
}

/** `--rpm 500`, `--tpm 90000`: a positive number per minute. */
function perMinute(flag: string, value: string): number {
  const n = Number(value.trim());
  if (value.trim() === "" || !Number.isFinite(n) || n <= 0) {
    throw new UsageError(
      `${flag} "${value}": expected a positive number per minute, e.g. ${flag} 500`,
      { option: flag },
    );
  }
  return n;
}

/** A config value in a message: a number or string as written, anything else by its type. */
function shown(value: unknown): string {
  if (typeof value === "number") return String(value);
  if (typeof value === "string")
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

/**
 * Refuses an output directory that is a file, or lies under one, before any lock or target: the
 * first write into it would fail only then, with the file system's word for it.
 */
async function checkOutDir(outDir: string, given: string, option: string): Promise<void> {
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

interface TargetPaths extends StatePaths {
  /** The saved result. */
  readonly file: string;
  /** The checkpoint journal of the target's finished samples. */
  readonly journal: string;
  /** Written once the result is saved; removed when the whole command finishes. */
  readonly marker: string;
  /** Held while a command runs the target (see {@link TargetLocks}). */
  readonly lock: string;
}

function targetPaths(outDir: string, name: string, suffix: string): TargetPaths {
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
 * The result a target saved before this command was interrupted, when it is still this config's:
 * same name, dataset, metrics and shard. Anything else (a missing, unreadable or other file) runs
 * the target again, from its journal.
 */
async function keptResult(
  file: string,
  name: string,
  benchmark: Benchmark,
  shard: ShardSpec | undefined,
  trials: number,
): Promise<BenchmarkResult | undefined> {
  let result: BenchmarkResult;
  try {
    result = await BenchmarkResult.load(file);
  } catch {
    return undefined;
  }
  const metrics = benchmark.metrics.map((m) => m.name).sort();
  const same =
    result.name === name &&
    result.dataset?.fingerprint === benchmark.fingerprint &&
    result.dataset.size === benchmark.samples.length &&
    Object.keys(result.higherIsBetter).sort().join("\n") === metrics.join("\n") &&
    result.shard?.index === shard?.index &&
    result.shard?.count === shard?.count &&
    result.trials === trials;
  return same ? result : undefined;
}

interface ProgressHandle {
  readonly update: (p: Progress) => void;
  readonly stop: () => void;
}

/**
 * A progress bar on a terminal; in CI logs, nothing per sample (one line per target instead), and
 * with a rate limit a line at each tenth of the samples, with the concurrency in force and the
 * calls rate-limited so far.
 */
function startProgress(
  io: Io,
  name: string,
  total: number,
  limited: boolean,
  trials: number,
): ProgressHandle {
  const target = printable(name);
  if (!io.stderr.isTTY) {
    // With trials a run takes n times as long: a line at each tenth of the trials says how far.
    if (!limited && trials === 1) return { update: () => {}, stop: () => {} };
    let tenth = 0;
    return {
      update: (p) => {
        const of = trials > 1 ? (p.trialsDone ?? 0) / (p.trialsTotal ?? 1) : p.done / p.total;
        const reached = p.total === 0 ? 10 : Math.floor(of * 10);
        if (reached <= tenth) return;
        tenth = reached;
        const trialsPart = trials > 1 ? ` | trials ${p.trialsDone ?? 0}/${p.trialsTotal ?? 0}` : "";
        const ratePart = limited
          ? ` | concurrency ${p.concurrency ?? "?"} | rate-limited ${p.rateLimited ?? 0}`
          : "";
        writeLine(
          io.stderr,
          `${target}: ${p.done}/${p.total}${trialsPart} | errored ${p.errored}${ratePart}`,
        );
      },
      stop: () => {},
    };
  }
  const rate = limited ? " | concurrency {concurrency} | rate-limited {rateLimited}" : "";
  if (trials > 1) {
    // The bar moves with trials (n per sample); the text says whole samples too.
    const bar = new cliProgress.SingleBar(
      {
        format: `{target} [{bar}] {value}/{total} trials | samples {samples}/${total} | errored {errored}${rate} | ETA {eta_formatted}`,
        stream: io.stderr as NodeJS.WritableStream,
        hideCursor: true,
        clearOnComplete: true,
        etaBuffer: 50,
        noTTYOutput: false,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total * trials, 0, {
      errored: 0,
      target,
      samples: 0,
      concurrency: "",
      rateLimited: 0,
    });
    return {
      update: (p) =>
        bar.update(p.trialsDone ?? 0, {
          errored: p.errored,
          target,
          samples: p.done,
          concurrency: p.concurrency ?? "",
          rateLimited: p.rateLimited ?? 0,
        }),
      stop: () => bar.stop(),
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      // The name goes in as a value: in the format string, a name such as "{eta}" would be replaced.
      format: `{target} [{bar}] {value}/{total} | errored {errored}${rate} | ETA {eta_formatted}`,
      stream: io.stderr as NodeJS.WritableStream,
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 50,
      noTTYOutput: false,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { errored: 0, target, concurrency: "", rateLimited: 0 });
  return {
    update: (p) =>
      bar.update(p.done, {
        errored: p.errored,
        target,
        concurrency: p.concurrency ?? "",
        rateLimited: p.rateLimited ?? 0,
      }),
    stop: () => bar.stop(),
  };
}

/** Whether a config's target is a QueryEngine (it has `query()`). */
function isEngine(target: unknown): boolean {
  return (
    typeof target === "object" &&
    target !== null &&
    typeof (target as { query?: unknown }).query === "function"
  );
}

/**
 * The checks `Benchmark.run` makes before any sample runs, made for every target of the config
 * up front: a QueryEngine has `query()`, a Retriever `retrieve()`, and a bare Retriever cannot
 * feed a metric that needs an answer.
 */
function checkTarget(
  path: string,
  name: string,
  target: unknown,
  metrics: readonly { readonly name: string; readonly needsAnswer: boolean }[],
): void {
  if (name.trim() === "") {
    throw new ConfigurationError(
      `${path}: a target has an empty name (${JSON.stringify(name)}); its result would have no name to compare by`,
    );
  }
  const t =
    typeof target === "object" && target !== null ? (target as Record<string, unknown>) : {};
  // Checked here, in the config's terms: the runner would name its own option (`Benchmark.run`).
  if (t.cacheKey !== undefined && (typeof t.cacheKey !== "string" || t.cacheKey === "")) {
    throw new ConfigurationError(
      `${path}: target "${name}" has a cacheKey of ${shown(t.cacheKey)}; expected a non-empty string that names the pipeline's version in the response cache`,
      { kind: "invalid-option", option: `targets.${name}.cacheKey` },
    );
  }
  if (typeof t.query === "function") return;
  if (typeof t.retrieve !== "function") {
    throw new ConfigurationError(
      `${path}: target "${name}" is neither a QueryEngine (an object with query(question, { signal, sample })) nor a Retriever (an object with retrieve(query, { signal, sample }))`,
    );
  }
  const needy = metrics.filter((m) => m.needsAnswer).map((m) => m.name);
  if (needy.length > 0) {
    throw new ConfigurationError(
      `${path}: target "${name}" is a Retriever (it has retrieve() but no query()), and ${needy.join(", ")} ${needy.length === 1 ? "needs" : "need"} an answer. Make it a QueryEngine or drop ${needy.length === 1 ? "that metric" : "those metrics"}`,
    );
  }
}
