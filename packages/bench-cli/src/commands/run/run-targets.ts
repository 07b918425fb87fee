// The targets run one after another: each resumed, kept or seeded from what an earlier command
// left, warmed up, run with its journal and progress, saved, and summed up on stderr.
import { existsSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { SqliteCache } from "@fastrag/bench-cache";
import {
  type Benchmark,
  BenchmarkResult,
  ConfigurationError,
  errorMessage,
  JournalWriteError,
  type Progress,
  RunAbortedError,
  type ShardSpec,
} from "@fastrag/bench-core";
import type { BenchConfig } from "../../config/define-config.js";
import { awaiting, doneAwaiting } from "../../internal/activity.js";
import { fieldsOf } from "../../internal/error-fields.js";
import { colors, type Io, writeLine } from "../../internal/io.js";
import { printable } from "../../internal/printable.js";
import { provenanceOf } from "../../internal/provenance.js";
import type { RunCommandOptions } from "./options.js";
import { startProgress } from "./progress.js";
import { journalConfigHash, seedFromResult, writeJournalConfigHash } from "./state.js";
import { plural, problemLines } from "./summary-lines.js";
import type { TargetPaths } from "./target-files.js";
import { warmUp } from "./warmup.js";

/**
 * Runs the targets one after another, resuming or keeping what an interrupted command left:
 * their results, or the exit code when a target was stopped.
 */
export async function runTargets(
  run: RunPlan,
  io: Io,
  signal: AbortSignal,
  stop: AbortSignal,
): Promise<BenchmarkResult[] | number> {
  const results: BenchmarkResult[] = [];
  if (run.options.fresh) await removeState(run.paths);
  for (const [t, name] of run.names.entries()) {
    const one: OneTarget = {
      name,
      target: run.config.targets[name],
      benchmark: run.benchmarks[t] as Benchmark,
      paths: run.paths[t] as TargetPaths,
    };
    const earlier = await earlierResult(run, one, io);
    if (earlier.result !== undefined) {
      results.push(earlier.result);
      continue;
    }
    await startJournal(run, one, earlier.seeded, io);
    if (run.warmup && !stop.aborted) await warmUpTarget(run, one, signal, io);
    const result = await runTarget(run, one, { signal, stop }, io);
    if (typeof result === "number") return result;
    await saveTarget(result, one);
    reportFinished(run, one, result, io);
    results.push(result);
  }
  await removeState(run.paths);
  return results;
}

/** One target of the plan: its name, what the config gives, its `Benchmark` and its files. */
interface OneTarget {
  readonly name: string;
  readonly target: unknown;
  readonly benchmark: Benchmark;
  readonly paths: TargetPaths;
}

/** Every journal, marker and config-hash file of the targets: gone once all are saved, or for --fresh. */
async function removeState(paths: readonly TargetPaths[]): Promise<void> {
  for (const p of paths) {
    await rm(p.journal, { force: true });
    await rm(p.marker, { force: true });
    await rm(p.config, { force: true });
  }
}

/**
 * What an earlier command left of this target: a result saved before an interruption (kept, so
 * a resume spends no call again nor overwrites the file), or under `--retry-errored` a finished
 * result with no errored sample (kept as it is) or with some (seeded into the journal, `seeded`).
 */
async function earlierResult(
  run: RunPlan,
  { name, benchmark, paths }: OneTarget,
  io: Io,
): Promise<{ readonly result?: BenchmarkResult; readonly seeded: boolean }> {
  const { options, shard } = run;
  const c = colors(io);
  const { file, marker } = paths;
  if (!options.retryErrored && existsSync(marker)) {
    const kept = await keptResult(file, name, benchmark, shard, benchmark.trials);
    if (kept) {
      writeLine(
        io.stderr,
        `${kept.status.errored > 0 ? c.yellow("!") : c.green("✓")} ${printable(name)}: finished before the interruption; kept ${file} (--fresh runs it again)`,
      );
      for (const line of problemLines(kept, file, options.verbose))
        writeLine(io.stderr, c.yellow(`  ${line}`));
      return { result: kept, seeded: false };
    }
  }
  await rm(marker, { force: true });
  if (!options.retryErrored) return { seeded: false };
  // After a finished run (no journal): its saved result seeds one, errored samples left out.
  const seeded = await seedFromResult(paths, name, benchmark, shard, {
    path: run.configPath,
    hash: run.hash,
    force: options.force === true,
  });
  if (seeded === undefined) return { seeded: false };
  if (seeded.errored === 0) {
    writeLine(
      io.stderr,
      `${c.green("✓")} ${printable(name)}: no sample of ${file} errored; kept it as it is`,
    );
    return { result: seeded.result, seeded: false };
  }
  writeLine(
    io.stderr,
    c.dim(
      `${printable(name)}: running the ${plural(seeded.errored, "errored sample")} of ${file} again; its other ${plural(seeded.result.samples.length - seeded.errored, "sample")} are kept`,
    ),
  );
  return { seeded: true };
}

/** Says a resume, and records which config the journal is written under (a resume under another is refused). */
async function startJournal(run: RunPlan, { name, paths }: OneTarget, seeded: boolean, io: Io) {
  const resuming = existsSync(paths.journal);
  if (resuming && !seeded)
    writeLine(io.stderr, colors(io).dim(`${printable(name)}: resuming from ${paths.journal}`));
  if (!resuming || run.options.force === true || (await journalConfigHash(paths)) === undefined)
    await writeJournalConfigHash(paths, run.hash, run.configPath).catch(() => {});
}

/** `--warmup`: one call before the samples, its outcome said when it is not a plain success. */
async function warmUpTarget(
  run: RunPlan,
  { name, target, benchmark }: OneTarget,
  signal: AbortSignal,
  io: Io,
): Promise<void> {
  const { cache, options, shard } = run;
  const c = colors(io);
  const warm = await warmUp(target, benchmark, {
    name,
    first: shard ? shard.index : 0,
    signal,
    timeoutMs: run.config.timeoutMs,
    cache: cache === undefined ? undefined : { store: cache, refresh: options.refresh === true },
    rateLimit: benchmark.rateLimit,
    onBudgetWait: (ms) =>
      writeLine(
        io.stderr,
        c.dim(
          `${printable(name)}: the warm-up call counts against rateLimit; waiting ${(ms / 1000).toFixed(1)} s before the samples`,
        ),
      ),
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

/**
 * The target's run, with its journal and progress: its result, or 130 when it was stopped. The
 * runner's errors about the journal are given the command's way on.
 */
async function runTarget(
  run: RunPlan,
  { name, target, benchmark, paths }: OneTarget,
  { signal, stop }: { readonly signal: AbortSignal; readonly stop: AbortSignal },
  io: Io,
): Promise<BenchmarkResult | number> {
  const { config, options, shard, cache } = run;
  const c = colors(io);
  const journal = paths.journal;
  const total = shard
    ? Math.max(0, Math.ceil((benchmark.samples.length - shard.index) / shard.count))
    : benchmark.samples.length;
  const progress = startProgress(io, {
    name,
    total,
    limited: benchmark.rateLimit !== undefined,
    trials: benchmark.trials,
  });
  let finished = 0;
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
      onProgress: (p: Progress) => {
        finished = p.done;
        progress.update(p);
      },
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
    if (RunAbortedError.isInstance(error)) {
      writeLine(
        io.stderr,
        c.yellow(
          `${printable(name)}: stopped; finished samples are kept in ${journal}. Run the same command again to resume.`,
        ),
      );
      return 130;
    }
    throw journalAdvice(error, name, journal);
  }
  progress.stop();
  doneAwaiting();
  return result;
}

/**
 * The runner's error about the journal with the command's way on (the runner's advice is the
 * library's: a user of the command resumes, or starts over, with the command); any other as is.
 */
function journalAdvice(error: unknown, name: string, journal: string): unknown {
  if (JournalWriteError.isInstance(error)) {
    return new ConfigurationError(
      `${error.summary}, and the same command run again resumes from them${error.unjournaled}; or run again with --continue-without-journal to go on without a journal`,
      { ...fieldsOf(error), option: "--continue-without-journal", cause: error },
    );
  }
  if (
    ConfigurationError.isInstance(error) &&
    error.path === journal &&
    (error.kind === "journal-unusable" ||
      error.kind === "journal-in-use" ||
      error.kind === "invalid-input")
  ) {
    // The journal is another run's or damaged: the CLI's way out is --fresh.
    return new ConfigurationError(
      `${error.message}. To run ${JSON.stringify(name)} from the start, delete ${journal}; to run every target from the start: fastrag-bench run --fresh`,
      { ...fieldsOf(error), option: "--fresh", cause: error },
    );
  }
  return error;
}

/**
 * Saves the result, then the marker that says it is saved. The journal stays until every target
 * is done: should a later target be interrupted, the marker says this one's result is saved, and
 * the resume keeps it. A marker that cannot be written costs nothing but that: the resume then
 * reads this target's journal again.
 */
async function saveTarget(result: BenchmarkResult, { name, paths }: OneTarget): Promise<void> {
  const { file, journal, marker } = paths;
  try {
    await result.save(file);
  } catch (error) {
    // The journal is kept (it is removed only once every result is saved): say so, and how on.
    if (!ConfigurationError.isInstance(error)) throw error;
    throw new ConfigurationError(
      `${error.message}. ${JSON.stringify(printable(name))} was not saved; its ${plural(result.samples.length, "finished sample")} ${result.samples.length === 1 ? "is" : "are"} kept in ${journal}, and the same command run again saves the result from it without calling the target again`,
      { ...fieldsOf(error), cause: error },
    );
  }
  await mkdir(dirname(marker), { recursive: true })
    .then(() => writeFile(marker, `${JSON.stringify({ result: file })}\n`))
    .catch(() => rm(marker, { force: true }).catch(() => {}));
}

/** The target's lines once saved: samples, statuses, the cache and `--limit`, the rate limit, problems. */
function reportFinished(
  run: RunPlan,
  { name, paths }: OneTarget,
  result: BenchmarkResult,
  io: Io,
): void {
  const c = colors(io);
  const s = result.status;
  let fromCache = "";
  if (run.cache !== undefined) {
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
    `${s.errored > 0 ? c.yellow("!") : c.green("✓")} ${printable(name)}: ${plural(result.samples.length, "sample")}${each} in ${result.durationS.toFixed(1)} s (${status}${smoke}) → ${paths.file}`,
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
  for (const line of problemLines(result, paths.file, run.options.verbose))
    writeLine(io.stderr, c.yellow(`  ${line}`));
}

/** What `runTargets` runs: the targets, their files, and what it records and does for them. */
export interface RunPlan {
  readonly config: BenchConfig;
  /** Per target of `names`, its `Benchmark`. */
  readonly benchmarks: readonly Benchmark[];
  /** The targets to run, in order. */
  readonly names: readonly string[];
  /** Per target of `names`, its files. */
  readonly paths: readonly TargetPaths[];
  readonly options: RunCommandOptions;
  readonly shard: ShardSpec | undefined;
  /** The response cache, when the run uses one. */
  readonly cache: SqliteCache | undefined;
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
