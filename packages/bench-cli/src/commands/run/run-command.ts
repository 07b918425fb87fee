// `fastrag-bench run`: the story of one command, stage by stage. Each stage is a module of this
// folder (options, benchmarks, target-files, state, run-targets, progress, summary-lines,
// exit-code); the config is found, loaded and checked in `../../config/`.
import { rmdir } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { openCache, type SqliteCache } from "@fastrag/bench-cache";
import { Comparison } from "@fastrag/bench-compare";
import type {
  BenchmarkResult,
  DatasetLike,
  EvalSample,
  Metric,
  ShardSpec,
} from "@fastrag/bench-core";
import {
  CONFIG_KEYS,
  expectRunSettings,
  expectWarmup,
  unknownConfigKeys,
} from "../../config/check.js";
import type { BenchConfig } from "../../config/define-config.js";
import { findConfig } from "../../config/find.js";
import { loadConfig, loadConfigDataset } from "../../config/load.js";
import { colors, type Io, writeLine } from "../../internal/io.js";
import { printable } from "../../internal/printable.js";
import { configHash, gitCommit, targetParams } from "../../internal/provenance.js";
import { LockWaitInterruptedError, TargetLocks } from "../../internal/run-lock.js";
import { parseMaxErrored } from "../check.js";
import { createRunBenchmark, type RunSettings, targetBenchmarks } from "./benchmarks.js";
import { runExitCode } from "./exit-code.js";
import {
  expectFlagConflicts,
  parseSampleLimit,
  parseShard,
  type RunCommandOptions,
  resolveRateLimit,
  resolveTrials,
  selectTargets,
} from "./options.js";
import { type RunPlan, runTargets } from "./run-targets.js";
import { changedConfigError, changedSince, shortHash } from "./state.js";
import {
  expectOutDir,
  expectTargetFileNames,
  type TargetPaths,
  targetPaths,
} from "./target-files.js";

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
  const configPath = givenPath ?? foundConfig(io);
  const shard = options.shard === undefined ? undefined : parseShard(options.shard);
  const maxErrored =
    options.maxErrored === undefined ? undefined : parseMaxErrored(options.maxErrored);
  const limit = options.limit === undefined ? undefined : parseSampleLimit(options.limit);
  expectFlagConflicts(options);
  const plan = await planRun({ configPath, options, shard, limit }, io);
  // No other run may run these targets into this directory meanwhile (see TargetLocks).
  const locks = await lockTargets(plan, stop, io);
  if (locks === undefined) return 130;
  let results: BenchmarkResult[] | number;
  let cache: SqliteCache | undefined;
  try {
    if (!options.fresh) await expectUnchangedConfig(plan, io);
    // Shared by every target, by shards running at once on this machine, and by --limit runs.
    if (options.cache === true || options.refresh === true || plan.config.cache === true) {
      cache = openCache(join(plan.baseOutDir, ".cache"));
    }
    results = await runTargets({ ...plan, cache }, io, signal, stop);
  } finally {
    cache?.close();
    await locks.release();
  }
  if (typeof results === "number") return results;
  await rmdir(join(plan.outDir, ".journal")).catch(() => {});
  if (!shard) {
    const comparison = Comparison.of(results);
    const table = comparison.toMarkdown(
      results.length > 1 ? { baseline: 0, test: "randomization" } : {},
    );
    writeLine(io.stdout);
    io.stdout.write(table.endsWith("\n") ? table : `${table}\n`);
  }
  return runExitCode(results, maxErrored, io);
}

/** The config in the working directory when none is given, as a path relative to it. */
function foundConfig(io: Io): string {
  const found = findConfig(resolve(io.cwd));
  const configPath = relative(resolve(io.cwd), found.path) || found.path;
  if (found.others.length > 0) {
    writeLine(
      io.stderr,
      colors(io).dim(`note: running ${configPath} (also found: ${found.others.join(", ")})`),
    );
  }
  return configPath;
}

/** What `planRun` starts from: the config and the flags parsed. */
interface RunRequest {
  readonly configPath: string;
  readonly options: RunCommandOptions;
  readonly shard: ShardSpec | undefined;
  /** `--limit`: the first n samples. */
  readonly limit: number | undefined;
}

/** What the command runs, before any lock is taken: the plan, its output directories. */
interface PlannedRun extends Omit<RunPlan, "cache"> {
  /** The output directory the config or `--out-dir` names (the cache's home). */
  readonly baseOutDir: string;
  /** Where the results go: `baseOutDir`, or its `limit-<n>/` for a smoke test. */
  readonly outDir: string;
}

/**
 * The config loaded and every setting, target and file name checked, in the order a user fixes
 * them, before anything is locked or run.
 */
async function planRun(request: RunRequest, io: Io): Promise<PlannedRun> {
  const { configPath, options, shard, limit } = request;
  const path = resolve(io.cwd, configPath);
  const config = await loadConfig(path);
  const base = dirname(path);
  expectWarmup(configPath, config.warmup);
  // Asked for before anything runs: the names --only picks must be the config's.
  const names = Object.keys(config.targets);
  const selected = selectTargets(names, options.only) ?? names;
  // Provenance, known before any target runs: the config's hash and the commit it is run at.
  const hash = await configHash(path);
  const commit = await gitCommit(base);
  const params = new Map<string, Readonly<Record<string, unknown>> | undefined>();
  for (const name of selected)
    params.set(name, targetParams(configPath, name, config.targets[name]));
  const { dataset, fullSize, warnings } = await runDataset(config, base, configPath, limit);
  const settings = runSettings(configPath, config, options, dataset);
  for (const key of unknownConfigKeys(config)) {
    writeLine(
      io.stderr,
      colors(io).yellow(
        `warning: ${configPath}: config key ${JSON.stringify(key)} is not one run reads, so it is ignored; the keys are ${CONFIG_KEYS.join(", ")}`,
      ),
    );
  }
  for (const w of warnings) writeLine(io.stderr, colors(io).yellow(`warning: ${w}`));
  const benchmark = createRunBenchmark(configPath, config.metrics, settings, options);
  const baseOutDir =
    options.outDir !== undefined
      ? resolve(io.cwd, options.outDir)
      : resolve(base, config.outDir ?? "results");
  // A smoke test's results go apart, so they never replace a full run's results, nor are resumed
  // or compared as one (their dataset is the first n samples: `compare` refuses to pair them with
  // a full run's).
  const outDir = limit === undefined ? baseOutDir : join(baseOutDir, `limit-${limit}`);
  expectTargetFileNames(path, names);
  await expectOutDir(
    outDir,
    options.outDir !== undefined ? "--out-dir" : `${configPath}: outDir`,
    options.outDir !== undefined ? "--out-dir" : "outDir",
  );
  const { benchmarks, answerMetrics, retrievers } = targetBenchmarks(
    path,
    config,
    selected,
    benchmark,
    settings,
  );
  if (retrievers.length > 0)
    writeLine(io.stderr, colors(io).dim(retrieversNote(answerMetrics, retrievers)));
  const suffix = shard ? `.shard-${shard.index + 1}-of-${shard.count}` : "";
  return {
    config,
    benchmarks,
    names: selected,
    paths: selected.map((name) => targetPaths(outDir, name, suffix)),
    options,
    shard,
    configPath,
    hash,
    commit,
    params,
    warmup: options.warmup === true || config.warmup === true,
    limit: limit === undefined ? undefined : { n: limit, of: fullSize },
    baseOutDir,
    outDir,
  };
}

/**
 * The config's dataset, loaded; with `--limit n`, its first n samples as a dataset of their own:
 * its fingerprint is theirs, so neither a journal nor a result of a `--limit` run can be taken for
 * the whole dataset's. `fullSize` is the whole dataset's.
 */
async function runDataset(
  config: BenchConfig,
  base: string,
  configPath: string,
  limit: number | undefined,
): Promise<{ dataset: DatasetLike; fullSize: number; warnings: readonly string[] }> {
  const fullDataset = await loadConfigDataset(config, base, configPath);
  const allSamples = (fullDataset as { samples?: unknown }).samples;
  const fullSamples = (
    Array.isArray(allSamples) ? allSamples : fullDataset
  ) as readonly EvalSample[];
  const fullSize = Array.isArray(fullSamples) ? fullSamples.length : 0;
  const dataset: DatasetLike =
    limit === undefined || !Array.isArray(fullSamples) ? fullDataset : fullSamples.slice(0, limit);
  const warnings = (fullDataset as { warnings?: readonly string[] }).warnings ?? [];
  return { dataset, fullSize, warnings };
}

/** The run's settings, checked: the config's, with `--trials`, `--rpm`, `--tpm`, `--adaptive` over them. */
function runSettings(
  configPath: string,
  config: BenchConfig,
  options: RunCommandOptions,
  dataset: DatasetLike,
): RunSettings {
  expectRunSettings(configPath, config);
  const trials = resolveTrials(configPath, config.trials, options.trials);
  const rateLimit = resolveRateLimit(configPath, config.rateLimit, options);
  return { dataset, maxConcurrent: config.maxConcurrent, rateLimit, trials };
}

/** The note that Retrievers beside a QueryEngine are scored without the metrics that need an answer. */
function retrieversNote(answerMetrics: readonly Metric[], retrievers: readonly string[]): string {
  const one = (n: number, singular: string, several: string) => (n === 1 ? singular : several);
  return `note: ${answerMetrics.map((m) => m.name).join(", ")} ${one(answerMetrics.length, "needs", "need")} an answer, so ${retrievers.map((n) => printable(n)).join(", ")} (${one(retrievers.length, "a Retriever", "Retrievers")}) ${one(retrievers.length, "is", "are")} scored without ${one(answerMetrics.length, "it", "them")}`;
}

/**
 * The locks of the planned targets; `undefined` when the first Ctrl-C came while another
 * machine's lock was watched (said on stderr: nothing ran, as a stop during a run).
 */
async function lockTargets(
  plan: PlannedRun,
  stop: AbortSignal,
  io: Io,
): Promise<TargetLocks | undefined> {
  const c = colors(io);
  try {
    return await TargetLocks.acquire(
      plan.names.map((name, t) => ({ name, lock: (plan.paths[t] as TargetPaths).lock })),
      {
        onNote: (message) => writeLine(io.stderr, c.yellow(`note: ${message}`)),
        // The first Ctrl-C: waiting for a lock costs no call, so it stops at once.
        signal: stop,
      },
    );
  } catch (error) {
    if (error instanceof LockWaitInterruptedError) {
      writeLine(io.stderr, c.yellow(error.message));
      return undefined;
    }
    throw error;
  }
}

/**
 * A resume under a changed config would mix two pipelines' samples in one result: every target
 * is checked before the first one runs. (`--fresh` discards the journals, in `runTargets`;
 * `--force` resumes them, saying so.)
 */
async function expectUnchangedConfig(plan: PlannedRun, io: Io): Promise<void> {
  const { configPath, hash } = plan;
  for (const [t, name] of plan.names.entries()) {
    const p = plan.paths[t] as TargetPaths;
    const changed = await changedSince(p, hash);
    if (changed === undefined) continue;
    if (!plan.options.force) throw changedConfigError(configPath, name, changed, hash, p.journal);
    writeLine(
      io.stderr,
      colors(io).yellow(
        `warning: ${printable(name)}: resuming ${changed.what}, made under another version of ${configPath} (config hash ${shortHash(changed.hash)}, now ${shortHash(hash)}), as --force asks; ${changed.source === "journal" ? "the result records the config as it is now" : "it is kept as it is"}`,
      ),
    );
  }
}
