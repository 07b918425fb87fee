/**
 * Every metric of fastrag bench. Each group is also importable alone, so that a bundle carries
 * only what it uses: `@fastrag/bench-metrics/retrieval`, `/generation`, `/operational`.
 *
 * @module
 */
export {
  AnswerContains,
  AnswerCorrectness,
  type AnswerCorrectnessPromptParts,
  AnswerRelevance,
  type AnswerRelevancePromptParts,
  answerCorrectnessPrompt,
  answerRelevancePrompt,
  type EmbedFunction,
  ExactMatch,
  Faithfulness,
  type FaithfulnessPromptParts,
  faithfulnessPrompt,
  type GenerationMetricOptions,
  type JudgeFunction,
  type JudgeMetricOptions,
  type ModelCallOptions,
  normalizeAnswer,
  parseJudgeObject,
  parseJudgeScore,
  RougeL,
  type RougeLOptions,
  SemanticSimilarity,
  type SemanticSimilarityOptions,
  TokenF1,
} from "./generation.js";
export { Cost, Latency, type OperationalMetricOptions, Tokens } from "./operational.js";
export {
  type CutoffOptions,
  HitRate,
  MAP,
  type MatchLevel,
  MRR,
  NDCG,
  type OptionalCutoffOptions,
  Precision,
  Recall,
  type RetrievalMetricOptions,
  RPrecision,
} from "./retrieval.js";
