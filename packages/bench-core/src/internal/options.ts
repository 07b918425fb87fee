// Option checks the integrations share (bench-ai, bench-langchain): one wording for "found …" and
// one refusal of unknown options. The metrics check theirs with bench-metrics' own kit, whose
// refusal lists the known options without "one of".

import { describeValue } from "../describe-value.js";
import { ConfigurationError } from "../errors.js";

/** Reads an options object that may be omitted; an unknown key is refused, not ignored. */
export function optionsObject(
  where: string,
  options: unknown,
  known: readonly string[],
): Record<string, unknown> {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new ConfigurationError(
      `${where}: expected an options object, found ${describeValue(options)}`,
      { kind: "invalid-option" },
    );
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new ConfigurationError(
        `${where}: unknown option ${JSON.stringify(key)}; expected one of ${known.join(", ")}`,
        { kind: "invalid-option", option: key },
      );
    }
  }
  return options as Record<string, unknown>;
}

/** An optional finite number in [min, max]. */
export function numberOption(
  where: string,
  name: string,
  value: unknown,
  min: number,
  max: number,
  integer = false,
): number | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== "number" ||
    !Number.isFinite(value) ||
    value < min ||
    value > max ||
    (integer && !Number.isInteger(value))
  ) {
    const kind = integer ? "an integer" : "a number";
    const range = max === Number.POSITIVE_INFINITY ? `≥ ${min}` : `from ${min} to ${max}`;
    throw new ConfigurationError(
      `${where}: option ${name} must be ${kind} ${range}, found ${describeValue(value)}`,
      { kind: "invalid-option", option: name },
    );
  }
  return value;
}

/** An optional non-empty string. */
export function stringOption(where: string, name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.trim() === "") {
    throw new ConfigurationError(
      `${where}: option ${name} must be a non-empty string, found ${describeValue(value)}`,
      { kind: "invalid-option", option: name },
    );
  }
  return value;
}

/** An optional plain object (passed on as is). */
export function objectOption(
  where: string,
  name: string,
  value: unknown,
): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigurationError(
      `${where}: option ${name} must be an object, found ${describeValue(value)}`,
      { kind: "invalid-option", option: name },
    );
  }
  return value as Record<string, unknown>;
}
