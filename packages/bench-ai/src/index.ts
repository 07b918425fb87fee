export { type AiEmbed, type AiEmbedOptions, aiEmbed, type EmbeddingPricing } from "./embed.js";
export { RateLimitError } from "./errors.js";
export {
  type AiJudge,
  type AiJudgeOptions,
  aiJudge,
  type ModelPricing,
  type StructuredOutputMode,
} from "./judge.js";
export type { AiCallOptions, AiJudgeCallOptions } from "./types.js";
