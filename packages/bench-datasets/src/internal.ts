/**
 * `@fastrag/bench-datasets/internal`: what the datasets package shares with its siblings and users
 * should not build on. Semver does not cover it. Today: the byte-level reading that
 * `fastrag-bench eval`'s columnar path shares with the TREC loaders (a file fed to a parser in
 * chunks, byte strings hashed, interned and read as numbers), so that both read bytes alike.
 *
 * @packageDocumentation
 */
export { type ByteLineParser, feedPlainFile } from "./io/byte-lines.js";
export { ByteSet, copyBytes, grow, hashBytes, parseSimpleDecimal } from "./io/byte-strings.js";
export { QidMatcher } from "./trec/query-filter.js";
