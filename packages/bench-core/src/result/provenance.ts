// Provenance: where a run came from (config hash, git commit, the target's params).

import { describeValue } from "../describe-value.js";
import { ConfigurationError } from "../errors.js";

/**
 * Where a run came from, recorded in its result (`config_hash`, `git_commit`, `params` on disk)
 * so that a result says which pipeline made it. The CLI fills it in from the config; a library
 * user passes it as `run(target, { provenance })`.
 */
export interface Provenance {
  /** A hash of the config the run was made from. */
  readonly configHash?: string;
  /** The git commit of the working tree the run was made in, when there is one. */
  readonly gitCommit?: string;
  /** The target's parameters as the user declared them (chunk size, model, top-k…): JSON values. */
  readonly params?: Readonly<Record<string, unknown>>;
}

/**
 * Checks a provenance given to `Benchmark.run` or `new BenchmarkResult`: an object whose
 * `configHash` and `gitCommit` are strings and whose `params` is a plain object of JSON values.
 *
 * @throws {ConfigurationError} naming `where` and the field.
 */
export function expectProvenance(p: unknown, where: string): asserts p is Provenance {
  if (typeof p !== "object" || p === null || Array.isArray(p)) {
    throw new ConfigurationError(
      `${where} must be { configHash?, gitCommit?, params? }, found ${describeValue(p)}`,
      { kind: "invalid-option", option: "provenance" },
    );
  }
  const o = p as Record<string, unknown>;
  for (const key of ["configHash", "gitCommit"] as const) {
    if (o[key] !== undefined && typeof o[key] !== "string") {
      throw new ConfigurationError(
        `${where}.${key} must be a string, found ${describeValue(o[key])}`,
        { kind: "invalid-option", option: `provenance.${key}` },
      );
    }
  }
  if (
    o.params !== undefined &&
    (typeof o.params !== "object" || o.params === null || Array.isArray(o.params))
  ) {
    throw new ConfigurationError(
      `${where}.params must be an object of the target's parameters, found ${describeValue(o.params)}`,
      { kind: "invalid-option", option: "provenance.params" },
    );
  }
}
