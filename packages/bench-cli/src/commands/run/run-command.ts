// `fastrag-bench run`: the story of one command, stage by stage. Each stage is a module of this
// folder (options, benchmarks, target-files, state, run-targets, progress, summary-lines,
// exit-code); the config is found, loaded and checked in `../../config/`.
import { rmdir } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { openCache, type SqliteCache } from "@fastrag/bench-cache";
import { Comparison } from "@fastrag/bench-compare";
import type { BenchmarkResult, DatasetLike, EvalSample } from "@fastrag/bench-core";
import {
  CONFIG_KEYS,
  expectRunSettings,
  expectWarmup,
  unknownConfigKeys,
} from "../../config/check.js";
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
import { runTargets } from "./run-targets.js";
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
  expectFlagConflicts(options);
  const config = await loadConfig(path);
  const base = dirname(path);
  expectWarmup(configPath, config.warmup);
  const warmup = options.warmup === true || config.warmup === true;
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
  expectRunSettings(configPath, config);
  const trials = resolveTrials(configPath, config.trials, options.trials);
  const rateLimit = resolveRateLimit(configPath, config.rateLimit, options);
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
  const settings: RunSettings = {
    dataset,
    maxConcurrent: config.maxConcurrent,
    rateLimit,
    trials,
  };
  const benchmark = createRunBenchmark(configPath, config.metrics, settings, options);
  const baseOutDir =
    options.outDir !== undefined
      ? resolve(io.cwd, options.outDir)
      : resolve(base, config.outDir ?? "results");
  // A smoke test's results go apart, so they never replace a full run's results, nor are resumed
  // or compared as one (their dataset is the first n samples: `compare` refuses to pair them with
  // a full run's).
  const outDir = limit === undefined ? baseOutDir : join(baseOutDir, `limit-${limit}`);
  const names = Object.keys(config.targets);
  expectTargetFileNames(path, names);
  await expectOutDir(
    outDir,
    options.outDir !== undefined ? "--out-dir" : `${configPath}: outDir`,
    options.outDir !== undefined ? "--out-dir" : "outDir",
  );
  const selected = only ?? names;
  const { benchmarks, answerMetrics, retrievers } = targetBenchmarks(
    path,
    config,
    selected,
    benchmark,
    settings,
  );
  if (retrievers.length > 0) {
    writeLine(
      io.stderr,
      c.dim(
        `note: ${answerMetrics.map((m) => m.name).join(", ")} ${answerMetrics.length === 1 ? "needs" : "need"} an answer, so ${retrievers.map((n) => printable(n)).join(", ")} (${retrievers.length === 1 ? "a Retriever" : "Retrievers"}) ${retrievers.length === 1 ? "is" : "are"} scored without ${answerMetrics.length === 1 ? "it" : "them"}`,
      ),
    );
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
    if (options.cache === true || options.refresh === true || config.cache === true) {
      cache = openCache(join(baseOutDir, ".cache"));
    }
    results = await runTargets(
      {
        config,
        benchmarks,
        names: selected,
        paths,
        options,
        shard,
        cache,
        configPath,
        hash,
        commit,
        params,
        warmup,
        limit: limit === undefined ? undefined : { n: limit, of: fullSize },
      },
      io,
      signal,
      stop,
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
  return runExitCode(results, maxErrored, io);
}
