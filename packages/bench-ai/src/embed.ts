import { type CallLimiter, ConfigurationError, type Usage } from "@fastrag/bench-core";
import {
  describeValue,
  numberOption,
  objectOption,
  optionsObject,
  stringOption,
} from "@fastrag/bench-core/internal";
import { type EmbeddingModel, embedMany } from "ai";
import { costOf, limiterOption, runModelCall, tokens } from "./internal/call.js";
import { modelName, settingsKey } from "./internal/model.js";
import type { AiCallOptions } from "./types.js";

/** The price of an embedding model's input, per million tokens. */
export interface EmbeddingPricing {
  readonly inputPerMillion: number;
}

/** Options of {@link aiEmbed}. */
export interface AiEmbedOptions {
  /** Provider-specific options (e.g. `{ openai: { dimensions: 512 } }`), passed to `embedMany`. */
  readonly providerOptions?: Record<string, Record<string, unknown>>;
  /** The price per million input tokens: each reported usage then carries `cost`. */
  readonly pricing?: EmbeddingPricing;
  /** Retries of the AI SDK itself; default the SDK's (2) without a limiter, 0 with one. */
  readonly maxRetries?: number;
  /** A limiter for calls made outside a run; the run's limiter takes precedence. */
  readonly limiter?: CallLimiter;
  /** Replaces the computed {@link AiEmbed.cacheKey}. */
  readonly cacheKey?: string;
}

/**
 * An embed function (`EmbedFunction` of `@fastrag/bench-metrics`) made by {@link aiEmbed}, with
 * the key that core's `cached()` stores its vectors under.
 */
export interface AiEmbed {
  (texts: readonly string[], options?: AiCallOptions): Promise<number[][]>;
  /** `"<provider>:<modelId>"`, with `#` and a digest of `providerOptions` when given. */
  readonly cacheKey: string;
}

const OPTIONS = ["providerOptions", "pricing", "maxRetries", "limiter", "cacheKey"];

/**
 * Turns a Vercel AI SDK embedding model into an embed function for `SemanticSimilarity`
 * (`@fastrag/bench-metrics`). Each call runs `embedMany` over the texts with the run's signal,
 * reports its tokens (and cost, with `pricing`) once through the metric's `reportUsage`, and
 * runs through the run's `limiter` when there is one.
 *
 * @throws {ConfigurationError} when `model` is not an AI SDK embedding model or a model id, or an
 * option is unknown or malformed.
 *
 * @example
 * ```ts
 * import { openai } from "@ai-sdk/openai";
 * import { aiEmbed } from "@fastrag/bench-ai";
 * import { SemanticSimilarity } from "@fastrag/bench-metrics/generation";
 *
 * const similarity = new SemanticSimilarity({
 *   embed: aiEmbed(openai.textEmbeddingModel("text-embedding-3-small")),
 * });
 * ```
 */
export function aiEmbed(model: EmbeddingModel, options?: AiEmbedOptions): AiEmbed {
  const where = "aiEmbed";
  const name = modelName(
    where,
    model,
    "doEmbed",
    'openai.textEmbeddingModel("text-embedding-3-small")',
  );
  const o = optionsObject(where, options, OPTIONS);
  const providerOptions = objectOption(where, "providerOptions", o.providerOptions);
  let inputPerMillion: number | undefined;
  if (o.pricing !== undefined) {
    const p = optionsObject(`${where}: option pricing`, o.pricing, ["inputPerMillion"]);
    inputPerMillion = numberOption(
      where,
      "pricing.inputPerMillion",
      p.inputPerMillion,
      0,
      Number.POSITIVE_INFINITY,
    );
    if (inputPerMillion === undefined) {
      throw new ConfigurationError(
        `${where}: option pricing needs inputPerMillion (the price per million tokens)`,
        { kind: "invalid-option", option: "pricing.inputPerMillion" },
      );
    }
  }
  const maxRetries = numberOption(where, "maxRetries", o.maxRetries, 0, 100, true);
  const ownLimiter = limiterOption(where, o.limiter);
  const cacheKey =
    stringOption(where, "cacheKey", o.cacheKey) ?? settingsKey(name, [providerOptions]);

  type Embedded = Awaited<ReturnType<typeof embedMany>>;
  const usageOf = (r: Embedded): Usage => {
    const n = tokens((r.usage as { tokens?: unknown } | undefined)?.tokens);
    if (n === undefined) return {};
    const cost = inputPerMillion === undefined ? undefined : costOf(n, 0, inputPerMillion, 0);
    return { inputTokens: n, totalTokens: n, ...(cost === undefined ? {} : { cost }) };
  };

  const embed = async (
    texts: readonly string[],
    callOptions: AiCallOptions = {},
  ): Promise<number[][]> => {
    if (!Array.isArray(texts) || texts.some((t) => typeof t !== "string")) {
      throw new ConfigurationError(
        `${where}: expected an array of strings to embed, found ${describeValue(texts)}`,
        { kind: "invalid-option", option: "texts" },
      );
    }
    let chars = 0;
    for (const t of texts) chars += t.length;
    const call = {
      model: name,
      context: callOptions,
      ownLimiter,
      estimatedTokens: Math.ceil(chars / 4),
      usageOf,
    };
    const r = await runModelCall(call, (retriesDefault) => {
      const retries = maxRetries ?? retriesDefault;
      return embedMany({
        model,
        values: [...texts],
        ...(providerOptions === undefined ? {} : { providerOptions }),
        ...(retries === undefined ? {} : { maxRetries: retries }),
        ...(callOptions.signal === undefined ? {} : { abortSignal: callOptions.signal }),
      } as Parameters<typeof embedMany>[0]);
    });
    return r.embeddings;
  };
  return Object.assign(embed, { cacheKey });
}
