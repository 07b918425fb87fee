// Root exports kept for compatibility: what siblings share now lives in `@fastrag/bench-core/internal`.
import { writeFileAtomic as atomic } from "./internal/atomic-write.js";
import { fingerprintSamples as fingerprint } from "./internal/fingerprint.js";
import { firstInvalidUtf8 as invalidUtf8At } from "./internal/text.js";
import { setOwn as ownSet } from "./internal/validate.js";

/**
 * Writes a file atomically (a temporary file beside it, flushed, then renamed over the target).
 *
 * @deprecated Shared between the fastrag bench packages, not part of the user's API: import it
 * from `@fastrag/bench-core/internal`.
 */
export const writeFileAtomic: typeof atomic = atomic;

/**
 * A stable hash of what defines a dataset for scoring.
 *
 * @deprecated Shared between the fastrag bench packages, not part of the user's API: import it
 * from `@fastrag/bench-core/internal`.
 */
export const fingerprintSamples: typeof fingerprint = fingerprint;

/**
 * Offset of the first byte that is not valid UTF-8 (`buf.length` when all are).
 *
 * @deprecated Shared between the fastrag bench packages, not part of the user's API: import it
 * from `@fastrag/bench-core/internal`.
 */
export const firstInvalidUtf8: typeof invalidUtf8At = invalidUtf8At;

/**
 * Sets an own data property, even for the key `__proto__`.
 *
 * @deprecated Shared between the fastrag bench packages, not part of the user's API: import it
 * from `@fastrag/bench-core/internal`.
 */
export const setOwn: typeof ownSet = ownSet;
