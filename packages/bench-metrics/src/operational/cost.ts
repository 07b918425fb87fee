import { type Metric, type MetricInput, MetricUnavailableError } from "@fastrag/bench-core";
import { usageOf } from "../internal/input.js";
import { describeValue } from "../internal/options.js";
import { expectMetricName, expectOptions } from "../kit.js";
import type { OperationalMetricOptions } from "./latency.js";

/**
 * `cost`: the cost a query engine reports for one question (`usage.cost`, in the caller's unit,
 * e.g. USD; lower is better). `null` when the engine reports none, never 0.
 */
export class Cost implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = false;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = false;
  /** The metric contract this class implements (see `Metric.specificationVersion`). */
  readonly specificationVersion = "v1" as const;

  /** @throws {ConfigurationError} for a bad `name`. */
  constructor(options?: OperationalMetricOptions) {
    const o = expectOptions("Cost", options, {
      required: false,
      known: ["name"],
    }) as OperationalMetricOptions;
    this.name = expectMetricName("Cost", o.name, "cost");
  }

  /**
   * @throws {MetricUnavailableError} when `usage.cost` is not a non-negative number.
   * @throws {ConfigurationError} when the input is not an object, or its `usage` is neither an
   *   object nor absent (the runner never passes such a one).
   */
  score(input: MetricInput): number | null {
    const cost: unknown = usageOf("Cost", input)?.cost;
    if (cost === undefined || cost === null) return null;
    if (typeof cost !== "number" || !Number.isFinite(cost) || cost < 0) {
      throw new MetricUnavailableError(
        `usage.cost must be a non-negative number, found ${describeValue(cost)}`,
      );
    }
    return cost;
  }
}
