// A config file to a checked `BenchConfig`: imported (TypeScript through jiti), unwrapped from
// module interop, awaited, and its required keys checked; and its dataset loaded.
import { existsSync } from "node:fs";
import { extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigurationError, type DatasetLike, errorMessage } from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";
import { QADataset } from "@fastrag/bench-datasets";
import { awaiting, doneAwaiting } from "../internal/activity.js";
import { UsageError } from "../internal/io.js";
import type { BenchConfig } from "./define-config.js";
import { formatLocation, syntaxErrorLocation, thrownAt } from "./syntax-error-location.js";

/** The suffixes a config file may have. */
const CONFIG_SUFFIXES = [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"];

/**
 * Loads a config module: TypeScript through jiti, JavaScript through a native import. A config
 * exported as a promise is awaited; `dataset`, `metrics` and `targets` must be there.
 *
 * @throws {UsageError} for a path that is no config file or does not exist.
 * @throws {ConfigurationError} for a config that does not parse, throws, rejects, has no default
 *   export, or lacks targets or metrics (naming where, `file:line:column`, when known).
 */
export async function loadConfig(path: string): Promise<BenchConfig> {
  const ext = extname(path);
  if (!CONFIG_SUFFIXES.includes(ext)) {
    throw new UsageError(`${path}: a config must be a ${CONFIG_SUFFIXES.join(", ")} file`, {
      option: "<config>",
      path,
    });
  }
  if (!existsSync(path)) {
    throw new UsageError(`${path}: no such config file`, { option: "<config>", path });
  }
  const mod = await importConfig(path);
  const config = await defaultExport(mod, path);
  // `dataset: QADataset.load(…)` is already loading: should a check below refuse the config, its
  // rejection must not surface later as an unhandled one (a stack trace and exit 1). It is
  // still awaited, and reported, when the config is fine.
  if (isThenable(config.dataset)) config.dataset.then(undefined, () => {});
  expectTargetsAndMetrics(config, path);
  return config;
}

/** The config module, imported: TypeScript through jiti, JavaScript natively. */
async function importConfig(path: string): Promise<Record<string, unknown>> {
  const ext = extname(path);
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
      `${path}: could not load the config: ${where === undefined ? "" : `${formatLocation(where)}: `}${errorMessage(error)}`,
      {
        kind: "invalid-input",
        ...(where === undefined
          ? { path }
          : { path: where.file, line: where.line, column: where.column }),
        cause: error,
      },
    );
  }
  return mod;
}

/**
 * The config the module exports (`default`, or `config`), unwrapped from module interop and
 * awaited when it is a promise: an object, or a `ConfigurationError` saying what was found.
 */
async function defaultExport(mod: Record<string, unknown>, path: string): Promise<BenchConfig> {
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
          kind: "invalid-input",
          path,
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
      { kind: "invalid-input", path },
    );
  }
  if (typeof config !== "object" || config === null) {
    throw new ConfigurationError(
      `${path}: expected a default export made with defineConfig({ dataset, metrics, targets }), found ${describeValue(config)}`,
      { kind: "invalid-input", path },
    );
  }
  return config;
}

/** `targets`, an object naming at least one target, and `metrics`, a non-empty array. */
function expectTargetsAndMetrics(config: BenchConfig, path: string): void {
  if (Array.isArray(config.targets)) {
    throw new ConfigurationError(
      `${path}: targets must be an object of name → target, e.g. targets: { bm25: retriever }, not an array (its results would be named 0, 1, …)`,
      { kind: "invalid-option", option: "targets", path },
    );
  }
  if (
    typeof config.targets !== "object" ||
    config.targets === null ||
    Object.keys(config.targets).length === 0
  ) {
    throw new ConfigurationError(
      `${path}: targets must name at least one target, e.g. targets: { bm25: retriever }`,
      { kind: "invalid-option", option: "targets", path },
    );
  }
  if (!Array.isArray(config.metrics) || config.metrics.length === 0) {
    throw new ConfigurationError(
      `${path}: metrics must be a non-empty array of Metric objects, e.g. metrics: [new Recall({ k: 5 })]`,
      { kind: "invalid-option", option: "metrics", path },
    );
  }
}

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

/** Whether `value` is a promise or another thenable. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
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
      { option: "dataset", path: configPath },
    );
  }
  return dataset;
}
