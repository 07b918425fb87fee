import { constants } from "node:buffer";
import type { ConfigurationError } from "@fastrag/bench-core";
import { inputError } from "../records/problems.js";

/**
 * The most UTF-16 code units one string can hold: V8's limit (Node 20: 0x1fffffe8, about 537
 * million). A reader that holds a whole file as one string cannot read a longer one. Tests lower
 * `maxChars` to reach the too-large paths without writing gigabytes.
 */
export const textLimit: { maxChars: number } = { maxChars: constants.MAX_STRING_LENGTH };

/** The fix for a file read whole that is too large, for readers that also take JSONL. */
export const WRITE_AS_JSONL = "write it as JSONL (one record per line), which is read line by line";

/** Error codes Node gives a file too large to become one Buffer or one string. */
const TOO_LARGE_CODES = new Set([
  "ERR_STRING_TOO_LONG",
  "ERR_BUFFER_TOO_LARGE",
  "ERR_FS_FILE_TOO_LARGE",
]);

/** True when `error` (or its cause) is Node's refusal to build a Buffer or string that large. */
export function isTooLarge(error: unknown): boolean {
  for (let e = error, depth = 0; e !== null && typeof e === "object" && depth < 3; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && TOO_LARGE_CODES.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * The error for a file too large to read as one string: `size` says how large it is (e.g.
 * `"2,900,000,000 bytes"`), `fix` what to do instead.
 */
export function tooLargeError(
  path: string,
  size: string,
  fix: string,
  cause?: unknown,
): ConfigurationError {
  return inputError(
    path,
    `too large to read as one string: ${size}, and a JavaScript string holds at most ${count(textLimit.maxChars)} characters; ${fix}`,
    cause === undefined ? { path } : { path, cause },
  );
}

/** `1234567` → `"1,234,567"`. */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}
