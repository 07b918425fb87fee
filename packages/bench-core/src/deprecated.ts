// Root exports kept for compatibility: what siblings share now lives in `@fastrag/bench-core/internal`.
// Their types are written out (not `typeof` the internal function) so the API docs stand alone.
import { writeFileAtomic as atomic } from "./internal/atomic-write.js";
import { fingerprintSamples as fingerprint } from "./internal/fingerprint.js";
import { firstInvalidUtf8 as invalidUtf8At } from "./internal/text.js";
import { setOwn as ownSet } from "./internal/validate.js";
import type { EvalSample } from "./types.js";

/**
 * Writes a file atomically (a temporary file beside it, flushed, then renamed over the target).
 *
 * @deprecated Shared between the fastrag bench packages, not part of the user's API: import it
 * from `@fastrag/bench-core/internal`.
 */
export const writeFileAtomic: (
  path: string,
  chunks: () => Iterable<string> | AsyncIterable<string>,
) => Promise<void> = atomic;

/**
 * A stable hash of what defines a dataset for scoring.
 *
 * @deprecated Shared between the fastrag bench packages, not part of the user's API: import it
 * from `@fastrag/bench-core/internal`.
 */
export const fingerprintSamples: (samples: readonly EvalSample[]) => string = fingerprint;

/**
 * Offset of the first byte that is not valid UTF-8 (`buf.length` when all are).
 *
 * @deprecated Shared between the fastrag bench packages, not part of the user's API: import it
 * from `@fastrag/bench-core/internal`.
 */
export const firstInvalidUtf8: (buf: Uint8Array) => number = invalidUtf8At;

/**
 * Sets an own data property, even for the key `__proto__`.
 *
 * @deprecated Shared between the fastrag bench packages, not part of the user's API: import it
 * from `@fastrag/bench-core/internal`.
 */
export const setOwn: <T>(target: Record<string, T>, key: string, value: T) => void = ownSet;
