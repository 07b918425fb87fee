// How a found value is named in every package's messages ("expected …, found <describeValue>"):
// one wording, shared with the siblings through `@fastrag/bench-core/internal`.
import { shortText } from "./internal/text.js";

/** Strings longer than this are clipped, so that a whole file read as one cell stays out of a message. */
const MAX_SHOWN_CHARS = 60;

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * A short description of a value for messages: its type, and its text when that is short.
 * Strings are quoted (a string "4" must not read as the number 4) and clipped; containers say
 * their size; an object is named by its type, never printed.
 */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  switch (typeof value) {
    case "string":
      return `the string ${JSON.stringify(shortText(value, MAX_SHOWN_CHARS))}`;
    case "number":
      return `the number ${value}`;
    case "boolean":
      return `the boolean ${value}`;
    case "bigint":
      return `the integer ${value} (a bigint)`;
    case "function":
      return "a function";
    case "symbol":
      return "a symbol";
  }
  if (Array.isArray(value)) return `an array of ${count(value.length, "item", "items")}`;
  if (value instanceof Uint8Array) return `binary data (${count(value.length, "byte", "bytes")})`;
  if (value instanceof Map) return `a Map of ${count(value.size, "entry", "entries")}`;
  if (value instanceof Set) return `a Set of ${count(value.size, "item", "items")}`;
  if (value instanceof Date) {
    return Number.isNaN(value.getTime()) ? "an invalid Date" : `a Date (${value.toISOString()})`;
  }
  return "an object";
}
