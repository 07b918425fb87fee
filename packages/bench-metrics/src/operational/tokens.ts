import { type Metric, type MetricInput, MetricUnavailableError } from "@fastrag/bench-core";
import { usageOf } from "../internal/input.js";
import { describeValue } from "../internal/options.js";
import { expectMetricName, expectOptions } from "../kit.js";
import type { OperationalMetricOptions } from "./latency.js";

/**
 * `tokens`: the tokens a query engine reports using for one question (lower is better).
 *
 * `usage.totalTokens` when reported, else `inputTokens + outputTokens` (either may be absent and
 * counts 0 then). `null` when the engine reports no usage or no token count, never 0.
 */
export class Tokens implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = false;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = false;
  /** The metric contract this class implements (see `Metric.specificationVersion`). */
  readonly specificationVersion = "v1" as const;

  /** @throws {ConfigurationError} for a bad `name`. */
  constructor(options?: OperationalMetricOptions) {
    const o = expectOptions("Tokens", options, {
      required: false,
      known: ["name"],
    }) as OperationalMetricOptions;
    this.name = expectMetricName("Tokens", o.name, "tokens");
  }

  /**
   * @throws {MetricUnavailableError} when a reported count is not a non-negative number.
   * @throws {ConfigurationError} when the input is not an object, or its `usage` is neither an
   *   object nor absent (the runner never passes such a one).
   */
  score(input: MetricInput): number | null {
    const usage = usageOf("Tokens", input);
    if (usage === undefined) return null;
    const total = count(usage.totalTokens, "totalTokens");
    if (total !== undefined) return total;
    const inputTokens = count(usage.inputTokens, "inputTokens");
    const outputTokens = count(usage.outputTokens, "outputTokens");
    if (inputTokens === undefined && outputTokens === undefined) return null;
    return (inputTokens ?? 0) + (outputTokens ?? 0);
  }
}

function count(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new MetricUnavailableError(
      `usage.${field} must be a non-negative number, found ${describeValue(value)}`,
    );
  }
  return value;
}
