/**
 * Generation metrics, importable alone: `@fastrag/bench-metrics/generation`.
 *
 * `ExactMatch` and `TokenF1` reproduce the official SQuAD v2.0 evaluation; `AnswerContains` and
 * `RougeL` are lexical; `AnswerCorrectness`, `Faithfulness` and `AnswerRelevance` ask a
 * caller-supplied judge; `SemanticSimilarity` asks a caller-supplied embedder.
 *
 * @module
 */
export { AnswerContains } from "./generation/answer-contains.js";
export {
  AnswerCorrectness,
  type AnswerCorrectnessPromptParts,
  answerCorrectnessPrompt,
} from "./generation/answer-correctness.js";
export {
  AnswerRelevance,
  type AnswerRelevancePromptParts,
  answerRelevancePrompt,
} from "./generation/answer-relevance.js";
export { ExactMatch } from "./generation/exact-match.js";
export {
  Faithfulness,
  type FaithfulnessPromptParts,
  faithfulnessPrompt,
} from "./generation/faithfulness.js";
export {
  type JudgeFunction,
  type JudgeMetricOptions,
  type ModelCallOptions,
  parseJudgeObject,
  parseJudgeScore,
} from "./generation/judge.js";
export type { GenerationMetricOptions } from "./generation/options.js";
export { RougeL, type RougeLOptions } from "./generation/rouge-l.js";
export {
  type EmbedFunction,
  SemanticSimilarity,
  type SemanticSimilarityOptions,
} from "./generation/semantic-similarity.js";
export { TokenF1 } from "./generation/token-f1.js";
export { normalizeAnswer } from "./internal/squad.js";
