// How values are named in the runner's messages.
import { shortText } from "../internal/text.js";

/** A short description of a value for messages: its type, and its text when that is short. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return `the number ${value}`;
  if (typeof value === "string") {
    // "found 4" for the string "4" would read as the number it is not.
    return `a string (${JSON.stringify(shortText(value, 40))})`;
  }
  if (typeof value === "boolean") return `the boolean ${value}`;
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
