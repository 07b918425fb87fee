import { ConfigurationError } from "@fastrag/bench-core/internal/base";

const BRAND = Symbol.for("fastrag.bench.error.target-locked");

/**
 * Another live run holds a target's lock (`run-lock.ts`): kind `journal-in-use`, `path` the lock
 * file. Its message says itself what to do (wait, another `--out-dir`, or delete the lock), so
 * `main` adds no hint. A module of its own, so that `main` knows it without loading the lock code.
 */
export class TargetLockedError extends ConfigurationError {
  declare readonly path: string;

  constructor(message: string, fields: { readonly path: string }) {
    super(message, { kind: "journal-in-use", path: fields.path });
    this.name = "TargetLockedError";
    Object.defineProperty(this, BRAND, { value: true, enumerable: false });
  }

  /** True for a `TargetLockedError` from any copy of this package. */
  static override isInstance(error: unknown): error is TargetLockedError {
    return (
      typeof error === "object" &&
      error !== null &&
      (error as Record<symbol, unknown>)[BRAND] === true
    );
  }
}
