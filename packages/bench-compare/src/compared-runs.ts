import { BenchmarkResult, ConfigurationError } from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";
import { sampleCountOf } from "./internal/columns.js";
import { type Alignment, alignRuns } from "./internal/common-samples.js";
import { runLabel } from "./internal/labels.js";
import { isResult } from "./internal/validate.js";
import { pairSamples, type SamplePairing } from "./pairing.js";
import type { RunRef } from "./table.js";

/**
 * The runs of one comparison, checked once: each is a result, and they agree on every metric's
 * direction. It finds a run by name, index or object, and pairs and aligns runs' samples, each
 * pairing computed once. `Comparison` and the modules that build its tables and tests share it.
 */
export class ComparedRuns {
  /** The results compared, in order. */
  readonly results: readonly BenchmarkResult[];
  /** Each metric's direction (`true`: higher is better), in first-seen order. */
  readonly direction: ReadonlyMap<string, boolean>;
  readonly #pairings = new Map<string, SamplePairing>();
  #aligned: Alignment | undefined;

  /**
   * @throws {ConfigurationError} when there are no results, an entry is not a result, or two runs
   * disagree on whether a metric is better higher or lower.
   */
  constructor(results: readonly BenchmarkResult[]) {
    if (results.length === 0) {
      throw new ConfigurationError(
        "Comparison: expected at least one result, found none (an empty comparison would answer nothing)",
        { kind: "invalid-option", option: "results" },
      );
    }
    this.results = results;
    this.direction = directionsOf(results);
  }

  /** Every metric name across the results, in first-seen order. */
  metrics(): string[] {
    return [...this.direction.keys()];
  }

  /** The samples of runs `i` and `j` paired, computed once per ordered pair. */
  pairing(i: number, j: number): SamplePairing {
    const key = `${i}:${j}`;
    let p = this.#pairings.get(key);
    if (p === undefined) {
      p = pairSamples(this.results[i] as BenchmarkResult, this.results[j] as BenchmarkResult);
      this.#pairings.set(key, p);
    }
    return p;
  }

  /** Every run's samples aligned on the first run's, computed once. */
  alignment(): Alignment {
    this.#aligned ??= alignRuns(this.results, (i, j) => this.pairing(i, j), sampleCountOf);
    return this.#aligned;
  }

  /**
   * The index of a run given by name, index or result object.
   *
   * @throws {ConfigurationError} for an index out of range, an unknown or ambiguous name, or a
   * value that names no run; the message starts with `where`.
   */
  expectRunIndex(run: RunRef, where: string): number {
    const results = this.results;
    if (typeof run === "number") {
      if (Number.isInteger(run) && run >= 0 && run < results.length) return run;
      throw new ConfigurationError(
        `${where}: run index ${run} is out of range; the comparison has ${results.length} run(s)`,
        { kind: "invalid-option", option: "run" },
      );
    }
    if (typeof run === "string") {
      let found = -1;
      for (let i = 0; i < results.length; i++) {
        if ((results[i] as BenchmarkResult).name !== run) continue;
        if (found >= 0) {
          throw new ConfigurationError(
            `${where}: run name "${run}" is ambiguous (runs ${runLabel(found)} and ${runLabel(i)}); pass its index instead`,
            { kind: "invalid-option", option: "run" },
          );
        }
        found = i;
      }
      if (found >= 0) return found;
      throw new ConfigurationError(
        `${where}: no run named "${run}"; runs are ${results.map((r) => `"${r.name}"`).join(", ")}`,
        { kind: "invalid-option", option: "run" },
      );
    }
    const i = results.indexOf(run);
    if (i >= 0) return i;
    throw new ConfigurationError(
      `${where}: expected a run name, index or one of the comparison's results, found ${describeValue(run)}`,
      { kind: "invalid-option", option: "run" },
    );
  }

  /**
   * A metric's direction (`true`: higher is better).
   *
   * @throws {ConfigurationError} for a metric no run has, listing the metrics the runs have.
   */
  expectDirection(metric: string, where: string): boolean {
    const higher = this.direction.get(metric);
    if (higher !== undefined) return higher;
    throw new ConfigurationError(
      `${where}: expected a metric of the runs (${this.metrics()
        .map((m) => `"${m}"`)
        .join(", ")}), found ${describeValue(metric)}`,
      { kind: "invalid-option", option: "metric" },
    );
  }
}

/**
 * Each metric's direction across the results, in first-seen order.
 *
 * @throws {ConfigurationError} for an entry that is not a result, or two runs that disagree on a
 * metric's direction.
 */
function directionsOf(results: readonly BenchmarkResult[]): Map<string, boolean> {
  const direction = new Map<string, boolean>();
  const owner = new Map<string, string>();
  for (let i = 0; i < results.length; i++) {
    const r = results[i];
    if (!isResult(r)) {
      throw new ConfigurationError(
        `Comparison: results[${i}]: expected a BenchmarkResult, found ${describeValue(r)}`,
        { kind: "invalid-option", option: "results" },
      );
    }
    for (const [metric, higher] of Object.entries(r.higherIsBetter)) {
      const known = direction.get(metric);
      if (known === undefined) {
        direction.set(metric, higher);
        owner.set(metric, r.name);
      } else if (known !== higher) {
        throw new ConfigurationError(
          `Comparison: runs disagree on the direction of "${metric}": "${owner.get(metric)}" says ${known ? "higher" : "lower"} is better, "${r.name}" says ${higher ? "higher" : "lower"}`,
          { kind: "invalid-input", field: "higher_is_better" },
        );
      }
    }
  }
  return direction;
}

/**
 * A copy of a result under another name, rebuilt in memory from its records (read from its file
 * if it was loaded lazily): `Comparison.renamed`.
 */
export function renamedResult(r: BenchmarkResult, name: string): BenchmarkResult {
  return new BenchmarkResult({
    name,
    createdAt: r.createdAt,
    durationS: r.durationS,
    samples: r.samples,
    higherIsBetter: r.higherIsBetter,
    summary: r.summary,
    status: r.status,
    ...(r.dataset !== undefined ? { dataset: r.dataset } : {}),
    ...(r.shard !== undefined ? { shard: r.shard } : {}),
  });
}
