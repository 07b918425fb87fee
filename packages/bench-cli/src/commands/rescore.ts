import { basename, dirname, join, resolve } from "node:path";
import { openCache } from "@fastrag/bench-cache";
import { BenchmarkResult, ConfigurationError } from "@fastrag/bench-core";
import { loadConfig, loadConfigDataset } from "../config/load.js";
import { fieldsOf } from "../internal/error-fields.js";
import { expandPaths } from "../internal/files.js";
import { cliPath, colors, type Io, writeLine } from "../internal/io.js";
import { printable } from "../internal/printable.js";

export interface RescoreCommandOptions {
  /** Where the rescored files go (default: beside each input, replacing it). */
  readonly outDir?: string;
  /** Use the response cache at `<outDir>/.cache/` for judge steps (also `cache: true` in the config). */
  readonly cache?: boolean;
  /** Ask every judge step again and overwrite the cache (implies `cache`). */
  readonly refresh?: boolean;
  /** Ask every judge step again rather than replaying kept judgments. */
  readonly rejudge?: boolean;
}

/** The reason of the abort that makes `rescore` run its checks and stop before scoring. */
const CHECK_ONLY = Symbol("check only");

/**
 * `fastrag-bench rescore <config> <result.json>...`: scores the saved outputs of each result with
 * the config's metrics (no target call) and writes `<name>.json` beside each input, atomically
 * replacing it, or into `--out-dir`. Every input is loaded and checked (a metric reading what a
 * file did not keep, samples missing from the config's dataset) before any is scored.
 */
export async function rescoreCommand(
  configPath: string,
  files: readonly string[],
  options: RescoreCommandOptions,
  io: Io,
  signal: AbortSignal,
): Promise<number> {
  const path = resolve(io.cwd, configPath);
  const config = await loadConfig(path);
  const dataset = await loadConfigDataset(config, dirname(path), configPath);
  const metrics = config.metrics;
  const inputs = await expandPaths(files, io.cwd);
  const outDir = options.outDir === undefined ? undefined : cliPath(io, options.outDir);
  const outputs = inputs.map((input) => join(outDir ?? dirname(input), basename(input)));
  const seen = new Map<string, string>();
  for (const [i, out] of outputs.entries()) {
    const other = seen.get(out);
    if (other !== undefined) {
      throw new ConfigurationError(
        `--out-dir: ${other} and ${inputs[i]} would both be written to ${out}; rescore them into different directories`,
        { kind: "invalid-option", option: "--out-dir", path: out },
      );
    }
    seen.set(out, inputs[i] as string);
  }
  const results = await Promise.all(inputs.map((p) => BenchmarkResult.load(p)));
  // Every file checked before any is scored: rescore runs its checks, then stops at the abort.
  for (const [i, result] of results.entries()) {
    try {
      await result.rescore(metrics, { dataset, signal: AbortSignal.abort(CHECK_ONLY) });
    } catch (error) {
      if (error === CHECK_ONLY) continue;
      if (ConfigurationError.isInstance(error)) {
        throw new ConfigurationError(`${inputs[i]}: ${error.message}`, {
          ...fieldsOf(error),
          path: inputs[i] as string,
          cause: error,
        });
      }
      throw error;
    }
  }
  const c = colors(io);
  // The store `run --cache` fills: the config's outDir (or results/ beside the config).
  const cache =
    options.cache === true || options.refresh === true || config.cache === true
      ? openCache(join(resolve(dirname(path), config.outDir ?? "results"), ".cache"))
      : undefined;
  try {
    for (const [i, result] of results.entries()) {
      let rescored: BenchmarkResult;
      try {
        rescored = await result.rescore(metrics, {
          dataset,
          ...(config.maxConcurrent !== undefined ? { maxConcurrent: config.maxConcurrent } : {}),
          signal,
          ...(cache !== undefined ? { cache, refresh: options.refresh === true } : {}),
          judgments: options.rejudge === true ? "ask" : "replay",
        });
      } catch (error) {
        if (!signal.aborted) throw error;
        writeLine(
          io.stderr,
          c.yellow(`stopped; ${inputs[i]} and the files after it are unchanged`),
        );
        return 130;
      }
      await saveRescored(result, rescored, inputs[i] as string, outputs[i] as string, io);
    }
  } finally {
    cache?.close();
  }
  return 0;
}

/** Writes one rescored result and says what changed. */
async function saveRescored(
  result: BenchmarkResult,
  rescored: BenchmarkResult,
  input: string,
  out: string,
  io: Io,
): Promise<void> {
  const c = colors(io);
  {
    await rescored.save(out);
    writeLine(io.stderr, `${c.green("✓")} ${printable(result.name)}: ${input} → ${out}`);
    for (const line of changes(result, rescored)) writeLine(io.stderr, `  ${line}`);
    const judge = rescored.judgeUsage;
    if (judge !== undefined) {
      const cost = judge.cost === undefined ? "" : `, cost ${judge.cost}`;
      const tokens = judge.totalTokens === undefined ? "" : `, ${judge.totalTokens} tokens`;
      writeLine(io.stderr, `  judge calls: ${judge.calls}${tokens}${cost}`);
    } else if (rescored.samples.some((s) => s.judgments !== undefined)) {
      writeLine(io.stderr, "  judge calls: 0 (kept judgments replayed, or the cache answered)");
    }
  }
}

/** What changed between a result and its rescore: metrics added, removed, and means moved. */
function changes(before: BenchmarkResult, after: BenchmarkResult): string[] {
  const out: string[] = [];
  const added = after.metrics.filter((m) => !before.metrics.includes(m));
  const removed = before.metrics.filter((m) => !after.metrics.includes(m));
  if (added.length > 0) out.push(`added: ${added.map((m) => `${m} ${mean(after, m)}`).join(", ")}`);
  if (removed.length > 0) out.push(`removed: ${removed.join(", ")}`);
  const moved: string[] = [];
  const same: string[] = [];
  for (const m of after.metrics) {
    if (!before.metrics.includes(m)) continue;
    const a = before.stat(m);
    const b = after.stat(m);
    if (Object.is(a, b) && before.summary[m]?.count === after.summary[m]?.count) same.push(m);
    else moved.push(`${m} ${mean(before, m)} → ${mean(after, m)}`);
  }
  if (moved.length > 0) out.push(`changed: ${moved.join(", ")}`);
  if (same.length > 0) out.push(`unchanged: ${same.join(", ")}`);
  return out;
}

function mean(r: BenchmarkResult, metric: string): string {
  const v = r.stat(metric);
  return v === null || v === undefined ? "—" : String(Number(v.toFixed(4)));
}
