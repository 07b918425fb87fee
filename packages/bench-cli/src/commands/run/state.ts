// What `run` keeps between invocations besides results and journals: which config a journal was
// written under (so that a resume never mixes two pipelines' samples silently), and a finished
// result seeded back into a journal for `--retry-errored`.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import {
  type Benchmark,
  BenchmarkResult,
  ConfigurationError,
  type ShardSpec,
} from "@fastrag/bench-core";
import { seedJournal } from "@fastrag/bench-core/internal";
import { printable } from "../../internal/printable.js";

/** Where `run` keeps one target's state (see `targetPaths` in target-files.ts). */
export interface StatePaths {
  readonly file: string;
  readonly journal: string;
  readonly marker: string;
  /** The config hash the journal (or the saved-before-interruption result) was made under. */
  readonly config: string;
}

/** The config hash recorded beside a target's journal, or `undefined` when there is none. */
export async function journalConfigHash(paths: StatePaths): Promise<string | undefined> {
  try {
    const parsed = JSON.parse(await readFile(paths.config, "utf8")) as { config_hash?: unknown };
    return typeof parsed.config_hash === "string" ? parsed.config_hash : undefined;
  } catch {
    return undefined;
  }
}

/** Records that the target's journal is being written under the config of `hash`. */
export async function writeJournalConfigHash(
  paths: StatePaths,
  hash: string,
  configPath: string,
): Promise<void> {
  await mkdir(dirname(paths.config), { recursive: true });
  await writeFile(paths.config, `${JSON.stringify({ config_hash: hash, config: configPath })}\n`);
}

/**
 * A target's resumable state made under another config than the one run now: a journal whose
 * recorded hash differs, or a result saved before an interruption (kept on resume) whose
 * provenance does. `undefined` when there is nothing to resume or it is this config's. (A journal
 * left by a version of `run` that recorded no hash cannot be checked, and resumes as before.)
 */
export async function changedSince(
  paths: StatePaths,
  hash: string,
): Promise<{ what: string; hash: string; source: "result" | "journal" } | undefined> {
  if (existsSync(paths.marker)) {
    const kept = await BenchmarkResult.load(paths.file).catch(() => undefined);
    const was = kept?.provenance?.configHash;
    if (was !== undefined && was !== hash)
      return { what: `the result ${paths.file}`, hash: was, source: "result" };
  }
  if (existsSync(paths.journal)) {
    const was = await journalConfigHash(paths);
    if (was !== undefined && was !== hash)
      return { what: `the journal ${paths.journal}`, hash: was, source: "journal" };
  }
  return undefined;
}

/** `sha256:0123456789ab…`: enough of a hash to tell two apart in a message. */
export function shortHash(hash: string): string {
  const m = /^([a-z0-9]+:)?([0-9a-f]+)$/.exec(hash);
  if (m === null) return printable(hash);
  return `${m[1] ?? ""}${(m[2] as string).slice(0, 12)}`;
}

/**
 * The error for resuming under a changed config: one line naming what was made under which config,
 * and the two ways out. Exit code 2 (a `ConfigurationError`, kind `journal-unusable`).
 */
export function changedConfigError(
  configPath: string,
  name: string,
  changed: { what: string; hash: string },
  now: string,
  path: string,
): ConfigurationError {
  return new ConfigurationError(
    `target ${JSON.stringify(printable(name))}: ${changed.what} was made under another version of ${configPath} (config hash ${shortHash(changed.hash)}; the file now hashes to ${shortHash(now)}), and resuming would mix two pipelines' samples in one result. Run with --fresh to start over (the journal is discarded), or --force to resume anyway`,
    { kind: "journal-unusable", path, option: "--fresh" },
  );
}

/**
 * `--retry-errored` after a finished run: when the target has no journal but a saved result of
 * this config (same name, dataset, metrics and shard), a journal is seeded from it, so that the
 * run resumes from it: the samples that did not error are kept without calling the target, the
 * errored ones run again, and the merged result replaces the file. Returns the number of errored
 * samples to re-run, or `undefined` when there is no such result (the target then runs as usual).
 *
 * @throws {ConfigurationError} (option `--retry-errored`) when the result file is another run's:
 * re-running every sample is not what was asked.
 */
export async function seedFromResult(
  paths: StatePaths,
  name: string,
  benchmark: Benchmark,
  shard: ShardSpec | undefined,
  config: { readonly path: string; readonly hash: string; readonly force: boolean },
): Promise<{ result: BenchmarkResult; errored: number } | undefined> {
  if (existsSync(paths.journal) || !existsSync(paths.file)) return undefined;
  let result: BenchmarkResult;
  try {
    result = await BenchmarkResult.load(paths.file);
  } catch (error) {
    throw new ConfigurationError(
      `--retry-errored: ${paths.file} cannot be read as a result (${ConfigurationError.isInstance(error) ? error.message : String(error)}); run without --retry-errored to run ${JSON.stringify(printable(name))} again`,
      { kind: "invalid-option", option: "--retry-errored", path: paths.file, cause: error },
    );
  }
  const total = benchmark.samples.length;
  const positions: number[] = [];
  if (shard) for (let i = shard.index; i < total; i += shard.count) positions.push(i);
  else for (let i = 0; i < total; i++) positions.push(i);
  const metrics = benchmark.metrics.map((m) => m.name);
  const mismatch =
    result.name !== name
      ? `its run is named ${JSON.stringify(printable(result.name))}`
      : result.dataset?.fingerprint !== benchmark.fingerprint || result.dataset.size !== total
        ? "it was run on another dataset"
        : Object.keys(result.higherIsBetter).sort().join("\n") !== [...metrics].sort().join("\n")
          ? `its metrics (${Object.keys(result.higherIsBetter).join(", ")}) are not the config's (${metrics.join(", ")})`
          : result.shard?.index !== shard?.index || result.shard?.count !== shard?.count
            ? "it is of another shard"
            : result.samples.length !== positions.length
              ? `it holds ${result.samples.length} of the ${positions.length} samples`
              : result.trials !== benchmark.trials
                ? `it ran ${result.trials} trials per sample, the config ${benchmark.trials}`
                : undefined;
  if (mismatch !== undefined) {
    throw new ConfigurationError(
      `--retry-errored: ${paths.file} is not a finished run of this config's ${JSON.stringify(printable(name))} (${mismatch}), so there is nothing to retry in it; run without --retry-errored to run the target again`,
      { kind: "invalid-option", option: "--retry-errored", path: paths.file },
    );
  }
  const was = result.provenance?.configHash;
  if (was !== undefined && was !== config.hash && !config.force) {
    throw changedConfigError(
      config.path,
      name,
      { what: `the result ${paths.file}`, hash: was },
      config.hash,
      paths.file,
    );
  }
  let errored = 0;
  for (const s of result.samples) if (s.status === "errored") errored++;
  if (errored === 0) return { result, errored };
  await seedJournal(
    paths.journal,
    {
      name,
      fingerprint: benchmark.fingerprint,
      size: total,
      metrics,
      shard: shard ? { index: shard.index, count: shard.count } : null,
      ...(benchmark.trials > 1 ? { trials: benchmark.trials } : {}),
    },
    result.samples.map((s, j) => [positions[j] as number, s] as const),
  );
  return { result, errored };
}
