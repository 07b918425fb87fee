// The message a record keeps for whatever a target or a metric threw.
import { FastragBenchError } from "./errors.js";

/**
 * The message to keep for a thrown value, whatever was thrown. It never throws itself: a value
 * whose message, name or text cannot be read (a getter or `toString` that throws, a revoked
 * Proxy) is described as such, so that the sample it failed is recorded as errored instead of
 * failing the whole run.
 */
export function errorMessage(error: unknown): string {
  try {
    return describeThrown(error);
  } catch {
    return "an error was thrown whose message cannot be read (reading its message, name or text threw)";
  }
}

function describeThrown(error: unknown): string {
  if (error instanceof Error) {
    // A message or name set to a non-string (a number, an object) still becomes text: the record's
    // `error` is a string in every result file.
    const message: unknown = error.message;
    const name: unknown = error.name;
    const text = typeof message === "string" ? message : message == null ? "" : String(message);
    const label = typeof name === "string" ? name : "";
    const msg = text || label;
    // Our own errors carry a reason meant to be read as is; others keep their name (TypeError…).
    const ours: boolean = FastragBenchError.isInstance(error);
    if (ours) return msg;
    return label && label !== "Error" && !msg.startsWith(label) ? `${label}: ${msg}` : msg;
  }
  if (typeof error === "string") return error;
  try {
    const json = JSON.stringify(error);
    if (json !== undefined) return `non-Error thrown: ${json}`;
  } catch {
    // fall through
  }
  return `non-Error thrown: ${String(error)}`;
}
