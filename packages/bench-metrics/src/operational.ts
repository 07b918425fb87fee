/**
 * Operational metrics, importable alone: `@fastrag/bench-metrics/operational`.
 *
 * @module
 */
export { Cost } from "./operational/cost.js";
export { Latency, type OperationalMetricOptions } from "./operational/latency.js";
export { Tokens } from "./operational/tokens.js";
