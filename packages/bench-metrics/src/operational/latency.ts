import type { Metric, MetricInput } from "@fastrag/bench-core";
import { inputOf, malformed } from "../internal/input.js";
import { expectMetricName, expectOptions } from "../kit.js";

/** Options of the operational metrics. */
export interface OperationalMetricOptions {
  /** Overrides the metric's name (the key in results). */
  readonly name?: string;
}

/**
 * `latency_ms`: the time of the pipeline call, as the runner measured it (lower is better).
 *
 * @example
 * ```ts
 * const result = await new Benchmark({ dataset, metrics: [new Latency()] }).run(engine, { name: "a" });
 * result.summary.latency_ms?.p95;
 * ```
 */
export class Latency implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = false;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = false;
  /** The metric contract this class implements (see `Metric.specificationVersion`). */
  readonly specificationVersion = "v1" as const;

  /** @throws {ConfigurationError} for a bad `name`. */
  constructor(options?: OperationalMetricOptions) {
    const o = expectOptions("Latency", options, {
      required: false,
      known: ["name"],
    }) as OperationalMetricOptions;
    this.name = expectMetricName("Latency", o.name, "latency_ms");
  }

  /**
   * `null` when the input carries no latency (`latencyMs` absent or `null`: a harness of your own
   * that does not time its calls), as a result records a latency that was never measured.
   *
   * @throws {ConfigurationError} when `latencyMs` is given but is not a non-negative number.
   */
  score(input: MetricInput): number | null {
    const latency: unknown = inputOf("Latency", input).latencyMs;
    if (latency === undefined || latency === null) return null;
    if (typeof latency !== "number" || !Number.isFinite(latency) || latency < 0) {
      throw malformed("Latency", "latencyMs", "a non-negative number of milliseconds", latency);
    }
    return latency;
  }
}
