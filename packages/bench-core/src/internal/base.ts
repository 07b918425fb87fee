/**
 * `@fastrag/bench-core/internal/base`: the few modules of core that a sibling package's light
 * paths need (the error classes, the summaries, `describeValue`, the timer bounds, strict UTF-8),
 * without the runner, results, cache and journal that the root and `/internal` entries load:
 * `fastrag-bench eval` reached its first line of work after 65 of core's modules, now after 6
 * (docs/decisions/eval-reading.md). Semver does not cover it, as `/internal`.
 *
 * @packageDocumentation
 */

export { describeValue } from "../describe-value.js";
export * from "../errors.js";
export { meanOfValues } from "../summary.js";
export { expectSpecificationVersion } from "./specification-version.js";
export {
  decodeUtf8,
  firstInvalidUtf8,
  hasBom,
  invalidUtf8,
  type Utf8Origin,
} from "./text.js";
export { isTimeoutMs, MAX_TIMER_MS } from "./timer.js";
