import type { CallLimiter, JsonSchema, Usage } from "@fastrag/bench-core";

/**
 * The second argument of an `AiJudge` or `AiEmbed` call: what a metric hands its judge or
 * embedder. Core's `EmbedCallOptions` fits it, so an `AiEmbed` is an `EmbedFunction`.
 */
export interface AiCallOptions {
  /** Aborts the model call (passed to the AI SDK as `abortSignal`). */
  readonly signal?: AbortSignal;
  /** Receives the call's usage once it succeeds (tokens, and cost with `pricing`). */
  readonly reportUsage?: (usage: Usage) => void;
  /** The run's rate limiter: the call runs through it, and a 429 waits there. */
  readonly limiter?: CallLimiter;
}

/**
 * The second argument of an `AiJudge` call: {@link AiCallOptions} plus what core's
 * `JudgeCallOptions` says about the step being asked (DESIGN §11), so an `AiJudge` is a
 * `JudgeFunction`. Only `schema` changes the call: with it, the reply is asked for as structured
 * output. `step` names the schema for the provider; `metric`, `input` and `attempt` are not sent
 * (the prompt already carries the input, and the run's cache tells attempts apart).
 */
export interface AiJudgeCallOptions extends AiCallOptions {
  /** The step being asked (`"statements"`, `"verdicts"`, …): the schema's name for the provider. */
  readonly step?: string;
  /** The name of the metric asking. */
  readonly metric?: string;
  /** The step's structured input (the values the prompt was rendered from). */
  readonly input?: Readonly<Record<string, unknown>>;
  /** The JSON Schema of the reply object: sent as the AI SDK's structured output. */
  readonly schema?: JsonSchema;
  /** 0, 1, … when the step is asked several times on purpose. */
  readonly attempt?: number;
}
