/**
 * `@fastrag/bench-core/internal`: what the fastrag bench packages share with each other and
 * users should not build on. Semver does not cover it: it changes with the sibling packages,
 * which depend on core's matching version. The user's API is the root entry.
 *
 * @packageDocumentation
 */
export { makeDirectory, writeFileAtomic } from "./internal/atomic-write.js";
export { fingerprintSamples } from "./internal/fingerprint.js";
export { schemaProblem } from "./internal/json-schema.js";
export type { JournalHeader } from "./internal/journal.js";
export {
  numberOption,
  objectOption,
  optionsObject,
  stringOption,
} from "./internal/options.js";
export { decodeUtf8, firstInvalidUtf8, shortText } from "./internal/text.js";
export { isTimeoutMs, MAX_TIMER_MS } from "./internal/timer.js";
export { setOwn } from "./internal/validate.js";
export { forEachConcurrently } from "./internal/worker-pool.js";
export { trialStd, trialsDisagree } from "./result/trials.js";
export { detectTarget, type TargetKind } from "./runner/check-output.js";
export { seedJournal } from "./runner/checkpoint.js";
export { describeValue } from "./runner/describe-value.js";
export { expectRateLimit, type RateLimitNames } from "./runner/rate-limit-options.js";
export { usageTokens } from "./runner/rate-limiter.js";
export { meanOfValues, summarizeValues } from "./summary.js";
