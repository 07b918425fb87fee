import type { CallLimiter, Usage } from "@fastrag/bench-core";
import { ConfigurationError } from "@fastrag/bench-core";
import { generateText, type LanguageModel } from "ai";
import { costOf, runModelCall, tokens } from "./internal/call.js";
import { modelName, settingsKey } from "./internal/model.js";
import {
  describeValue,
  numberOption,
  objectOption,
  optionsObject,
  stringOption,
} from "./internal/options.js";
import type { AiCallOptions } from "./types.js";

/** Prices of a language model, per million tokens, in the currency unit you report costs in. */
export interface ModelPricing {
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
}

/** Options of {@link aiJudge}. */
export interface AiJudgeOptions {
  /**
   * Sampling temperature. Default 0, for repeatable verdicts. `null` sends none, for models that
   * refuse the setting (some reasoning models).
   */
  readonly temperature?: number | null;
  /** A system prompt sent before each judge prompt. */
  readonly system?: string;
  /** A cap on the reply's tokens. Judge replies are short JSON objects; a cap bounds the cost. */
  readonly maxOutputTokens?: number;
  /** Provider-specific options, passed to `generateText` as they are. */
  readonly providerOptions?: Record<string, Record<string, unknown>>;
  /**
   * Prices per million tokens: each reported usage then carries `cost`
   * (`(input × inputPerMillion + output × outputPerMillion) / 10⁶`). Without it, usage has
   * tokens only.
   */
  readonly pricing?: ModelPricing;
  /**
   * Retries of the AI SDK itself (it waits as a 429's `Retry-After` says). Default: the SDK's
   * (2) without a limiter; 0 when a limiter runs the call, which then waits out rate limits.
   */
  readonly maxRetries?: number;
  /**
   * A limiter for calls made outside a run (or by a runner that supplies none). The run's
   * limiter, handed to the judge call by the metric, takes precedence.
   */
  readonly limiter?: CallLimiter;
  /** Replaces the computed {@link AiJudge.cacheKey} (e.g. to bump it after a provider change). */
  readonly cacheKey?: string;
}

/**
 * A judge function (`JudgeFunction` of `@fastrag/bench-metrics`) made by {@link aiJudge}, with the
 * key that core's `cached()` stores its replies under.
 */
export interface AiJudge {
  (prompt: string, options?: AiCallOptions): Promise<string>;
  /**
   * `"<provider>:<modelId>"` (the model id itself for a string model), with `#` and a digest of
   * the settings when `system`, `temperature`, `maxOutputTokens` or `providerOptions` differ from
   * the defaults: replies of one prompt are the same only under the same key.
   */
  readonly cacheKey: string;
}

const OPTIONS = [
  "temperature",
  "system",
  "maxOutputTokens",
  "providerOptions",
  "pricing",
  "maxRetries",
  "limiter",
  "cacheKey",
];

/** Validates `{ inputPerMillion, outputPerMillion }`. */
function pricingOption(
  where: string,
  value: unknown,
  fields: readonly string[],
): Record<string, number> | undefined {
  if (value === undefined) return undefined;
  const o = optionsObject(`${where}: option pricing`, value, fields);
  const out: Record<string, number> = {};
  for (const f of fields) {
    if (o[f] === undefined) {
      throw new ConfigurationError(
        `${where}: option pricing needs ${fields.join(" and ")} (prices per million tokens), found no ${f}`,
      );
    }
    out[f] = numberOption(where, `pricing.${f}`, o[f], 0, Number.POSITIVE_INFINITY) as number;
  }
  return out;
}

/** Validates a limiter: an object with a `run` method. */
export function limiterOption(where: string, value: unknown): CallLimiter | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== "object" ||
    value === null ||
    typeof (value as { run?: unknown }).run !== "function"
  ) {
    throw new ConfigurationError(
      `${where}: option limiter must be an object with a run(call, options) method, found ${describeValue(value)}`,
    );
  }
  return value as CallLimiter;
}

/**
 * Turns a Vercel AI SDK language model into a judge for the judge metrics of
 * `@fastrag/bench-metrics` (`Faithfulness`, `AnswerCorrectness`, `AnswerRelevance`).
 *
 * Each call runs `generateText` with the prompt, the run's `signal` as its abort signal and
 * temperature 0 (unless set), and returns the reply text. It reports the call's tokens (and
 * cost, with `pricing`) through the metric's `reportUsage`, so the result's `judge_usage`
 * counts them, and runs through the run's `limiter` when there is one. A provider's 429 that
 * outlives the retries is a {@link RateLimitError}.
 *
 * @throws {ConfigurationError} when `model` is not an AI SDK language model or a model id, or an
 * option is unknown or malformed.
 *
 * @example
 * ```ts
 * import { openai } from "@ai-sdk/openai";
 * import { aiJudge } from "@fastrag/bench-ai";
 * import { Faithfulness } from "@fastrag/bench-metrics/generation";
 *
 * const judge = aiJudge(openai("gpt-4o-mini"), {
 *   pricing: { inputPerMillion: 0.15, outputPerMillion: 0.6 },
 * });
 * const faithfulness = new Faithfulness({ judge });
 * ```
 */
export function aiJudge(model: LanguageModel, options?: AiJudgeOptions): AiJudge {
  const where = "aiJudge";
  const name = modelName(where, model, "doGenerate", 'openai("gpt-4o-mini")');
  const o = optionsObject(where, options, OPTIONS);
  const temperature =
    o.temperature === null ? null : (numberOption(where, "temperature", o.temperature, 0, 2) ?? 0);
  const system = stringOption(where, "system", o.system);
  const maxOutputTokens = numberOption(
    where,
    "maxOutputTokens",
    o.maxOutputTokens,
    1,
    Number.MAX_SAFE_INTEGER,
    true,
  );
  const providerOptions = objectOption(where, "providerOptions", o.providerOptions) as
    | AiJudgeOptions["providerOptions"]
    | undefined;
  const pricing = pricingOption(where, o.pricing, ["inputPerMillion", "outputPerMillion"]);
  const maxRetries = numberOption(where, "maxRetries", o.maxRetries, 0, 100, true);
  const ownLimiter = limiterOption(where, o.limiter);
  const cacheKey =
    stringOption(where, "cacheKey", o.cacheKey) ??
    settingsKey(name, [
      system,
      temperature === 0 ? undefined : temperature,
      maxOutputTokens,
      providerOptions,
    ]);

  type Reply = Awaited<ReturnType<typeof generateText>>;
  const usageOf = (reply: Reply): Usage => {
    const u = (reply.totalUsage ?? reply.usage) as
      | { inputTokens?: unknown; outputTokens?: unknown; totalTokens?: unknown }
      | undefined;
    const input = tokens(u?.inputTokens);
    const output = tokens(u?.outputTokens);
    const total =
      tokens(u?.totalTokens) ??
      (input !== undefined && output !== undefined ? input + output : undefined);
    const cost =
      pricing === undefined
        ? undefined
        : costOf(input, output, pricing.inputPerMillion ?? 0, pricing.outputPerMillion ?? 0);
    return {
      ...(input === undefined ? {} : { inputTokens: input }),
      ...(output === undefined ? {} : { outputTokens: output }),
      ...(total === undefined ? {} : { totalTokens: total }),
      ...(cost === undefined ? {} : { cost }),
    };
  };

  const judge = async (prompt: string, callOptions: AiCallOptions = {}): Promise<string> => {
    if (typeof prompt !== "string") {
      throw new ConfigurationError(
        `${where}: the prompt must be a string, found ${describeValue(prompt)}`,
      );
    }
    const estimated = Math.ceil((prompt.length + (system?.length ?? 0)) / 4);
    const reply = await runModelCall(
      name,
      callOptions,
      ownLimiter,
      estimated,
      (retriesDefault) => {
        const retries = maxRetries ?? retriesDefault;
        return generateText({
          model,
          prompt,
          ...(system === undefined ? {} : { system }),
          ...(temperature === null ? {} : { temperature }),
          ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
          ...(providerOptions === undefined ? {} : { providerOptions }),
          ...(retries === undefined ? {} : { maxRetries: retries }),
          ...(callOptions.signal === undefined ? {} : { abortSignal: callOptions.signal }),
        } as Parameters<typeof generateText>[0]);
      },
      usageOf,
    );
    return reply.text;
  };
  return Object.assign(judge, { cacheKey });
}
