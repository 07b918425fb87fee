export { type AiEmbed, type AiEmbedOptions, aiEmbed, type EmbeddingPricing } from "./embed.js";
export { RateLimitError } from "./errors.js";
export {
  type AiJudge,
  type AiJudgeOptions,
  aiJudge,
  type ModelPricing,
} from "./judge.js";
export type { AiCallOptions } from "./types.js";
