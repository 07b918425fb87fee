// The light entry: `fastrag-bench eval` loads the retrieval metrics without the runner.
import {
  ConfigurationError,
  describeValue,
  isTimeoutMs,
  MAX_TIMER_MS,
} from "@fastrag/bench-core/internal/base";
import type { MatchLevel } from "./judgments.js";

/**
 * Reads an options argument that may be omitted; anything but an object is misuse. With `known`,
 * an option of another name is refused too: a misspelled `levl: "document"` would otherwise leave
 * the default in force without a word.
 */
export function optionsObject(
  metric: string,
  options: unknown,
  required: boolean,
  known?: readonly string[],
): object {
  if (options === undefined && !required) return {};
  if (options === undefined && known !== undefined) {
    // `new Recall()`: say what it takes.
    throw new ConfigurationError(
      `${metric}: expected options, e.g. new ${metric}({ ${known[0]}: … }); it takes ${known.join(", ")}`,
      { kind: "invalid-option" },
    );
  }
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new ConfigurationError(
      `${metric}: expected an options object, found ${describeValue(options)}`,
      { kind: "invalid-option" },
    );
  }
  if (known !== undefined) {
    for (const key of Object.keys(options)) {
      if (!known.includes(key)) {
        throw new ConfigurationError(
          `${metric}: unknown option ${JSON.stringify(key)}; expected ${known.join(", ")}`,
          { kind: "invalid-option", option: key },
        );
      }
    }
  }
  return options;
}

/** The options of the retrieval metrics with a cutoff. */
export const CUTOFF_OPTIONS: readonly string[] = ["k", "level", "name"];

/** A cutoff: a positive safe integer. */
export function cutoff(metric: string, k: unknown): number {
  if (typeof k !== "number" || !Number.isSafeInteger(k) || k < 1) {
    throw new ConfigurationError(
      `${metric}: option k must be a positive integer, found ${describeValue(k)}`,
      { kind: "invalid-option", option: "k" },
    );
  }
  return k;
}

/** The match level, `"chunk"` by default. */
export function matchLevel(metric: string, level: unknown): MatchLevel {
  if (level === undefined || level === "chunk") return "chunk";
  if (level === "document") return "document";
  throw new ConfigurationError(
    `${metric}: option level must be "chunk" or "document", found ${describeValue(level)}`,
    { kind: "invalid-option", option: "level" },
  );
}

/** A caller's name for the metric, or the default one. */
export function metricName(metric: string, name: unknown, fallback: string): string {
  if (name === undefined) return fallback;
  if (typeof name !== "string" || name.trim() === "") {
    throw new ConfigurationError(
      `${metric}: option name must be a non-empty string, found ${describeValue(name)}`,
      { kind: "invalid-option", option: "name" },
    );
  }
  return name;
}

/** A required function option (judge, embed). */
export function functionOption<F>(metric: string, option: string, value: unknown): F {
  if (typeof value !== "function") {
    throw new ConfigurationError(
      `${metric}: option ${option} must be a function, found ${describeValue(value)}`,
      { kind: "invalid-option", option },
    );
  }
  return value as F;
}

/**
 * The optional time limit on each model call (`timeoutMs`): a positive number of milliseconds,
 * at most 2147483647 (the longest `setTimeout` delay, as `Benchmark.run`'s own `timeoutMs`).
 */
export function timeoutOption(metric: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  // `!(value > 0)` also refuses NaN; the upper bound refuses Infinity.
  if (!isTimeoutMs(value)) {
    throw new ConfigurationError(
      `${metric}: option timeoutMs must be a positive number of milliseconds (at most ${MAX_TIMER_MS}), found ${describeValue(value)}`,
      { kind: "invalid-option", option: "timeoutMs" },
    );
  }
  return value;
}

/** A found value in a message: core's one wording, the same in every package. */
export { describeValue } from "@fastrag/bench-core/internal/base";
