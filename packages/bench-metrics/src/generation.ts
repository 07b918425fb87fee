/**
 * Generation metrics, importable alone: `@fastrag/bench-metrics/generation`.
 *
 * `ExactMatch` and `TokenF1` reproduce the official SQuAD v2.0 evaluation; `AnswerContains` and
 * `RougeL` are lexical; `SemanticSimilarity` asks a caller-supplied embedder. The judge metrics
 * are RAGAS's algorithms (DESIGN §11), asked step by step through a caller-supplied judge:
 * `Faithfulness`, `ContextPrecision` (and context utilization), `ContextRecall`,
 * `AnswerRelevancy`, `FactualCorrectness`, `NoiseSensitivity`, `AnswerCorrectness`.
 *
 * @module
 */
export { AnswerContains } from "./generation/answer-contains.js";
export {
  AnswerCorrectness,
  type AnswerCorrectnessOptions,
} from "./generation/answer-correctness.js";
export {
  AnswerRelevancy,
  type AnswerRelevancyOptions,
} from "./generation/answer-relevancy.js";
export {
  ContextPrecision,
  type ContextPrecisionOptions,
} from "./generation/context-precision.js";
export { ContextRecall, type ContextRecallOptions } from "./generation/context-recall.js";
export { ExactMatch } from "./generation/exact-match.js";
export {
  FactualCorrectness,
  type FactualCorrectnessOptions,
} from "./generation/factual-correctness.js";
export { Faithfulness, type FaithfulnessOptions } from "./generation/faithfulness.js";
export { DEFAULT_JUDGE_TIMEOUT_MS } from "./generation/judge/ask.js";
export { JUDGE_OPTIONS, type JudgeMetricOptions } from "./generation/judge/options.js";
export {
  type Attribution,
  type Classified,
  STEP_PROMPTS,
  STEP_SCHEMAS,
  type StepInputs,
  type StepName,
  type StepPrompt,
  type StepPrompts,
  type StepReplies,
  type Verdict,
} from "./generation/judge/steps.js";
export {
  type EmbedFunction,
  type JudgeFunction,
  type JudgeReply,
  type ModelCallOptions,
  parseJudgeObject,
} from "./generation/judge.js";
export {
  NoiseSensitivity,
  type NoiseSensitivityOptions,
} from "./generation/noise-sensitivity.js";
export type { GenerationMetricOptions } from "./generation/options.js";
export { RougeL, type RougeLOptions } from "./generation/rouge-l.js";
export {
  SemanticSimilarity,
  type SemanticSimilarityOptions,
} from "./generation/semantic-similarity.js";
export { TokenF1 } from "./generation/token-f1.js";
export { normalizeAnswer } from "./internal/squad.js";
