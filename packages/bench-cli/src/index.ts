export { main } from "./cli.js";
export { DEFAULT_EVAL_METRICS } from "./commands/eval-defaults.js";
export {
  type BenchConfig,
  type ConfigDataset,
  type ConfigTarget,
  defineConfig,
  type JsonValue,
} from "./config/define-config.js";
export type { Io, OutputStream } from "./internal/io.js";
