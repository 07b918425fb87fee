import type { CallLimiter, Usage } from "@fastrag/bench-core";

/**
 * The second argument of an `AiJudge` or `AiEmbed` call: what a metric hands its
 * judge or embedder. `ModelCallOptions` of `@fastrag/bench-metrics` fits it, so an `AiJudge` is
 * a `JudgeFunction` and an `AiEmbed` an `EmbedFunction`.
 */
export interface AiCallOptions {
  /** Aborts the model call (passed to the AI SDK as `abortSignal`). */
  readonly signal?: AbortSignal;
  /** Receives the call's usage once it succeeds (tokens, and cost with `pricing`). */
  readonly reportUsage?: (usage: Usage) => void;
  /** The run's rate limiter: the call runs through it, and a 429 waits there. */
  readonly limiter?: CallLimiter;
}
