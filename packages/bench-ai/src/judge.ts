import type { CallLimiter, JudgeReply, Usage } from "@fastrag/bench-core";
import { ConfigurationError } from "@fastrag/bench-core";
import {
  describeValue,
  numberOption,
  objectOption,
  optionsObject,
  stringOption,
} from "@fastrag/bench-core/internal";
import {
  generateObject,
  generateText,
  type JSONSchema7,
  jsonSchema,
  type LanguageModel,
  NoObjectGeneratedError,
} from "ai";
import { costOf, limiterOption, runModelCall, tokens } from "./internal/call.js";
import { modelName, settingsKey } from "./internal/model.js";
import {
  isStructuredOutputUnsupported,
  lacksStructuredOutput,
  schemaName,
  schemaValidator,
} from "./internal/structured.js";
import type { AiCallOptions, AiJudgeCallOptions } from "./types.js";

/** Prices of a language model, per million tokens, in the currency unit you report costs in. */
export interface ModelPricing {
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
}

/**
 * How {@link aiJudge} asks for a reply when the metric gives the step's `schema`:
 * - `"auto"` (the default): as the AI SDK's structured output (`generateObject` with the schema),
 *   except for a model that says it has none (`supportsStructuredOutputs: false`, as
 *   `@ai-sdk/openai-compatible` models have unless created with `supportsStructuredOutputs:
 *   true`); when the provider refuses structured output for this model, the call is asked again
 *   as plain text, and so is every later call of this judge;
 * - `"always"`: always as structured output; a refusal is the call's error;
 * - `"never"`: always as plain text (the prompt carries its own reply instructions).
 */
export type StructuredOutputMode = "auto" | "always" | "never";

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
  /** Provider-specific options, passed to `generateText` (or `generateObject`) as they are. */
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
  /**
   * Whether a step's `schema` is sent as structured output: `"auto"` (default), `"always"` or
   * `"never"`; see {@link StructuredOutputMode}. Calls without a schema are plain text in every
   * mode.
   */
  readonly structuredOutput?: StructuredOutputMode;
  /** Replaces the computed {@link AiJudge.cacheKey} (e.g. to bump it after a provider change). */
  readonly cacheKey?: string;
}

/**
 * A judge function (core's `JudgeFunction`) made by {@link aiJudge}, with the key that the run's
 * cache and core's `cached()` store its replies under. A call without `schema` replies with the
 * model's text; a call with one replies with the parsed object, or with text when the call was
 * asked as text (a model without structured output) or the structured reply did not parse or
 * match the schema (the metric's parser then reports it).
 */
export interface AiJudge {
  /** Without a schema: the reply text, as before structured output existed. */
  (prompt: string, options?: AiCallOptions & { readonly schema?: undefined }): Promise<string>;
  /** With a step's schema: the parsed reply object, or text (see {@link AiJudge}). */
  (prompt: string, options?: AiJudgeCallOptions): Promise<JudgeReply>;
  /**
   * `"<provider>:<modelId>"` (the model id itself for a string model), with `#` and a digest of
   * the settings when `system`, `temperature`, `maxOutputTokens` or `providerOptions` differ from
   * the defaults: replies of one prompt are the same only under the same key. `structuredOutput`
   * is not part of it: it changes how reliably a reply parses, not the verdict a parsed reply
   * holds, and only parsed replies are kept.
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
  "structuredOutput",
  "cacheKey",
];

const MODES: readonly StructuredOutputMode[] = ["auto", "always", "never"];

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
        { kind: "invalid-option", option: `pricing.${f}` },
      );
    }
    out[f] = numberOption(where, `pricing.${f}`, o[f], 0, Number.POSITIVE_INFINITY) as number;
  }
  return out;
}

/**
 * Turns a Vercel AI SDK language model into a judge (core's `JudgeFunction`) for the judge
 * metrics of `@fastrag/bench-metrics` (`Faithfulness`, `ContextRecall`, `AnswerCorrectness`, …).
 *
 * Each call runs `generateText` with the prompt, the run's `signal` as its abort signal and
 * temperature 0 (unless set), and returns the reply text. When the metric gives the step's
 * `schema` (DESIGN §11), the call runs `generateObject` with that schema instead and returns the
 * parsed object; see {@link StructuredOutputMode} for models without structured output. A
 * structured reply that does not parse, or does not match the schema, comes back as its raw text
 * (the metric's parser then reports it and the sample is incomplete, never scored). It reports
 * the call's tokens (and cost, with `pricing`) through the metric's `reportUsage`, so the
 * result's `judge_usage` counts them, and runs through the run's `limiter` when there is one. A
 * provider's 429 that outlives the retries is a {@link RateLimitError}.
 *
 * @throws {ConfigurationError} when `model` is not an AI SDK language model or a model id, or an
 * option is unknown or malformed; a call throws it for a prompt that is not a string or a schema
 * that is not an object.
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
  const settings = judgeSettings(model, options);
  // "auto" asks in text, from the first refusal on, a model that has no structured output.
  let textOnly =
    settings.mode === "never" || (settings.mode === "auto" && lacksStructuredOutput(model));
  const judge = async (
    prompt: string,
    callOptions: AiJudgeCallOptions = {},
  ): Promise<JudgeReply> => {
    const schema = expectCall(prompt, callOptions);
    const estimated = Math.ceil((prompt.length + (settings.system?.length ?? 0)) / 4);
    let outcome: Outcome;
    if (schema === undefined || textOnly) {
      outcome = await askText(settings, prompt, callOptions, estimated);
    } else {
      // The schema travels with the request, and providers bill it as input.
      const withSchema = estimated + Math.ceil(JSON.stringify(schema).length / 4);
      try {
        outcome = await askObject(settings, prompt, callOptions, schema, withSchema);
      } catch (error) {
        if (settings.mode !== "auto" || !isStructuredOutputUnsupported(error)) throw error;
        textOnly = true;
        outcome = await askText(settings, prompt, callOptions, estimated);
      }
    }
    if (outcome.reply === undefined) throw outcome.error;
    return outcome.reply;
  };
  return Object.assign(judge, { cacheKey: settings.cacheKey }) as AiJudge;
}

/** {@link aiJudge}'s model and options, checked once. */
interface JudgeSettings {
  readonly model: LanguageModel;
  /** The model's name, for messages and the cache key. */
  readonly name: string;
  readonly temperature: number | null;
  readonly system: string | undefined;
  readonly maxOutputTokens: number | undefined;
  readonly providerOptions: AiJudgeOptions["providerOptions"] | undefined;
  readonly pricing: Record<string, number> | undefined;
  readonly maxRetries: number | undefined;
  readonly ownLimiter: CallLimiter | undefined;
  readonly mode: StructuredOutputMode;
  readonly cacheKey: string;
}

const WHERE = "aiJudge";

/** Checks {@link aiJudge}'s model and options. */
function judgeSettings(model: LanguageModel, options: AiJudgeOptions | undefined): JudgeSettings {
  const where = WHERE;
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
  const cacheKey =
    stringOption(where, "cacheKey", o.cacheKey) ??
    settingsKey(name, [
      system,
      temperature === 0 ? undefined : temperature,
      maxOutputTokens,
      providerOptions,
    ]);
  return {
    model,
    name,
    temperature,
    system,
    maxOutputTokens,
    providerOptions,
    pricing: pricingOption(where, o.pricing, ["inputPerMillion", "outputPerMillion"]),
    maxRetries: numberOption(where, "maxRetries", o.maxRetries, 0, 100, true),
    ownLimiter: limiterOption(where, o.limiter),
    mode: modeOption(where, o.structuredOutput),
    cacheKey,
  };
}

/** Checks one call's prompt and schema; returns the schema. */
function expectCall(
  prompt: unknown,
  callOptions: AiJudgeCallOptions,
): Readonly<Record<string, unknown>> | undefined {
  if (typeof prompt !== "string") {
    throw new ConfigurationError(
      `${WHERE}: the prompt must be a string, found ${describeValue(prompt)}`,
      { kind: "invalid-option", option: "prompt" },
    );
  }
  const schema = callOptions.schema;
  if (
    schema !== undefined &&
    (typeof schema !== "object" || schema === null || Array.isArray(schema))
  ) {
    throw new ConfigurationError(
      `${WHERE}: the call's schema must be a JSON Schema object, found ${describeValue(schema)}`,
      { kind: "invalid-option", option: "schema" },
    );
  }
  return schema;
}

/** A call's tokens, and its cost when the judge has prices. */
function judgeUsage(outcome: Outcome, pricing: Record<string, number> | undefined): Usage {
  const u = outcome.usage as
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
}

/** The settings both kinds of call send. */
function sentSettings(
  s: JudgeSettings,
  retriesDefault: number | undefined,
  signal: AbortSignal | undefined,
) {
  const retries = s.maxRetries ?? retriesDefault;
  return {
    ...(s.system === undefined ? {} : { system: s.system }),
    ...(s.temperature === null ? {} : { temperature: s.temperature }),
    ...(s.maxOutputTokens === undefined ? {} : { maxOutputTokens: s.maxOutputTokens }),
    ...(s.providerOptions === undefined ? {} : { providerOptions: s.providerOptions }),
    ...(retries === undefined ? {} : { maxRetries: retries }),
    ...(signal === undefined ? {} : { abortSignal: signal }),
  };
}

/** What {@link runModelCall} needs of one judge call. */
function modelCall(s: JudgeSettings, callOptions: AiCallOptions, estimatedTokens: number) {
  return {
    model: s.name,
    context: callOptions,
    ownLimiter: s.ownLimiter,
    estimatedTokens,
    usageOf: (outcome: Outcome) => judgeUsage(outcome, s.pricing),
  };
}

/** Asks for a reply as text (`generateText`). */
function askText(
  s: JudgeSettings,
  prompt: string,
  callOptions: AiCallOptions,
  estimated: number,
): Promise<Outcome> {
  return runModelCall(modelCall(s, callOptions, estimated), async (retriesDefault) => {
    const reply = await generateText({
      model: s.model,
      prompt,
      ...sentSettings(s, retriesDefault, callOptions.signal),
    } as Parameters<typeof generateText>[0]);
    return { reply: reply.text, usage: reply.totalUsage ?? reply.usage };
  });
}

/** Asks for a reply as an object of `schema` (`generateObject`, the AI SDK's structured output). */
function askObject(
  s: JudgeSettings,
  prompt: string,
  callOptions: AiJudgeCallOptions,
  schema: Readonly<Record<string, unknown>>,
  estimated: number,
): Promise<Outcome> {
  const named = schemaName(callOptions.step);
  return runModelCall(modelCall(s, callOptions, estimated), async (retriesDefault) => {
    try {
      const reply = await generateObject({
        model: s.model,
        prompt,
        schema: jsonSchema<Record<string, unknown>>(schema as JSONSchema7, {
          validate: schemaValidator(schema),
        }),
        ...(named === undefined ? {} : { schemaName: named }),
        ...sentSettings(s, retriesDefault, callOptions.signal),
      } as Parameters<typeof generateObject>[0]);
      return { reply: reply.object as Record<string, unknown>, usage: reply.usage };
    } catch (error) {
      // The model answered, but not with an object of the schema: the tokens were paid, and the
      // text goes to the metric, whose parser says what is wrong with it. No text at all (an
      // empty response) is this call's error.
      if (!NoObjectGeneratedError.isInstance(error)) throw error;
      return typeof error.text === "string"
        ? { reply: error.text, usage: error.usage }
        : { error, usage: error.usage };
    }
  });
}

/** What one model call gave: a reply and its usage, or (paid for, with no reply) an error. */
interface Outcome {
  readonly reply?: JudgeReply;
  readonly error?: unknown;
  readonly usage: unknown;
}

/** Validates `structuredOutput`. */
function modeOption(where: string, value: unknown): StructuredOutputMode {
  if (value === undefined) return "auto";
  if (!MODES.includes(value as StructuredOutputMode)) {
    throw new ConfigurationError(
      `${where}: option structuredOutput must be "auto", "always" or "never", found ${describeValue(value)}`,
      { kind: "invalid-option", option: "structuredOutput" },
    );
  }
  return value as StructuredOutputMode;
}
