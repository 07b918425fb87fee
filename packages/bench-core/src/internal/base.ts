/**
 * `@fastrag/bench-core/internal/base`: the few modules of core that a sibling package's light
 * paths need (the error classes, `describeValue`, the mean the eval command prints, the timer
 * bounds, strict UTF-8, the contract-version check: 7 modules), without the runner, results,
 * cache and journal that the root and `/internal` entries load (`/internal`: 32). It earns its
 * place by load time: `fastrag-bench eval` reached its first line of work after 65 of core's
 * modules, then after 6 (docs/decisions/eval-reading.md), and the retrieval metrics load through
 * it alone. Semver does not cover it, as `/internal`; the names both entries export are listed
 * in `/internal`'s header.
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
