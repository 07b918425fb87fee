import { isAbsolute, resolve } from "node:path";
import type { ConfigurationError } from "@fastrag/bench-core/internal/base";
import { inputError, messageOf } from "../records/problems.js";

/**
 * The ConfigurationError (`unreadable-file`, `path`) for a file that cannot be opened or read;
 * the system's error is its `cause`, and its `code` decides the wording.
 */
export function fileError(path: string, error: unknown): ConfigurationError {
  const code = (error as { code?: unknown } | null)?.code;
  const fields = { kind: "unreadable-file", path, cause: error } as const;
  if (code === "ENOENT") {
    // A relative path is read from the working directory: say which file that was.
    const where = isAbsolute(path) ? "" : ` (looked for ${resolve(path)})`;
    return inputError(path, `no such file or directory${where}`, fields);
  }
  if (code === "EISDIR") return inputError(path, "is a directory, expected a file", fields);
  return inputError(path, `cannot read: ${messageOf(error)}`, fields);
}
