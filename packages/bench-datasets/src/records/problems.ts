import { ConfigurationError } from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";

/**
 * True for a number whose decimal form is the one in the file: finite, and not an integer beyond
 * 2^53. JSON and YAML numbers are read as doubles, so an id such as 12345678901234567890 arrives
 * rounded (…000), and would silently match nothing.
 */
export function isExactNumber(value: number): boolean {
  return Number.isFinite(value) && (Number.isSafeInteger(value) || !Number.isInteger(value));
}

/** What a message says after "found …" for a number that is not {@link isExactNumber}. */
export function describeInexact(value: number): string {
  return Number.isFinite(value)
    ? `the number ${value}, an integer beyond 2^53 that cannot be read exactly (it was rounded); write it as a string`
    : describeValue(value);
}

/** Builds a ConfigurationError whose message starts with the place it is about. */
export function inputError(where: string, message: string, cause?: unknown): ConfigurationError {
  return new ConfigurationError(
    `${where}: ${message}`,
    cause === undefined ? undefined : { cause },
  );
}

/** The message of any thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// One implementation, in core: keys such as `__proto__` stay plain data.
export { setOwn } from "@fastrag/bench-core/internal";

/**
 * True for a non-null object of named fields: not an array, bytes, a Map, a Set or a Date, whose
 * entries are no own properties (a `relevance` Map read as an object would be `{}`, its grades
 * lost without a word).
 */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Uint8Array) &&
    !(value instanceof Map) &&
    !(value instanceof Set) &&
    !(value instanceof Date)
  );
}

/**
 * An empty plain object for many data keys (docno → grade). It starts in V8's dictionary mode, so
 * adding thousands of distinct keys does not build a hidden-class transition per key (see
 * docs/decisions/datasets-reading.md); its prototype is the ordinary `Object.prototype`.
 */
export function newRecord<T>(): Record<string, T> {
  return Object.setPrototypeOf(Object.create(null), Object.prototype) as Record<string, T>;
}
