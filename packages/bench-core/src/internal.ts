/**
 * `@fastrag/bench-core/internal`: what the fastrag bench packages share with each other and
 * users should not build on. Semver does not cover it: it changes with the sibling packages,
 * which depend on core's matching version. The user's API is the root entry.
 *
 * `/internal/base` is the light part, for paths that must load fast (the error classes and what
 * the retrieval metrics and `fastrag-bench eval` need): four of its names are exported here too
 * (`describeValue`, `isTimeoutMs`, `MAX_TIMER_MS`, `meanOfValues`) while sibling packages still
 * import them from here; once they import them from `/internal/base`, they go from this list.
 *
 * @packageDocumentation
 */

export { describeValue } from "./describe-value.js";
export { writeFileAtomic } from "./internal/atomic-write.js";
export { fingerprintSamples } from "./internal/fingerprint.js";
export type { JournalHeader } from "./internal/journal.js";
export { schemaProblem } from "./internal/json-schema.js";
export {
  numberOption,
  objectOption,
  optionsObject,
  stringOption,
} from "./internal/options.js";
export { isTimeoutMs, MAX_TIMER_MS } from "./internal/timer.js";
export { setOwn } from "./internal/validate.js";
export { forEachConcurrently } from "./internal/worker-pool.js";
export { trialStd, trialsDisagree } from "./result/trials.js";
export { detectTarget, type TargetKind } from "./runner/check-output.js";
export { seedJournal } from "./runner/checkpoint.js";
export { expectRateLimit, type RateLimitNames } from "./runner/rate-limit-options.js";
export { usageTokens } from "./runner/rate-limiter.js";
export { meanOfValues, summarizeValues } from "./summary.js";
