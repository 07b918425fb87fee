/**
 * The AI SDK's own test models (`ai/test`), for either major: AI SDK 6 ships `MockLanguageModelV3`
 * (structured usage), AI SDK 5 `MockLanguageModelV2`. The vitest project decides which `ai` is
 * imported; these helpers build the result shape of that version.
 */
import * as aiTest from "ai/test";

type Ctor = new (
  options: object,
) => {
  doGenerateCalls?: {
    prompt: unknown;
    abortSignal?: AbortSignal;
    temperature?: number;
    responseFormat?: unknown;
  }[];
  doEmbedCalls?: { values: string[]; abortSignal?: AbortSignal }[];
};
const mocks = aiTest as unknown as Record<string, Ctor | undefined>;
export const SPEC: "v2" | "v3" = mocks.MockLanguageModelV3 === undefined ? "v2" : "v3";

/** The text of the user messages of a `doGenerate` prompt. */
export function promptText(prompt: unknown): string {
  const out: string[] = [];
  for (const m of prompt as { role: string; content: unknown }[]) {
    if (m.role !== "user") continue;
    for (const p of m.content as { type: string; text?: string }[]) {
      if (p.type === "text") out.push(p.text ?? "");
    }
  }
  return out.join("\n");
}

/** The system message of a `doGenerate` prompt, if any. */
export function systemText(prompt: unknown): string | undefined {
  const m = (prompt as { role: string; content: unknown }[]).find((x) => x.role === "system");
  return m === undefined ? undefined : String(m.content);
}

/** What the model was asked for: `{ type: "json", schema, name }` for structured output. */
export type ResponseFormat =
  | { readonly type: "text" }
  | { readonly type: "json"; readonly schema?: unknown; readonly name?: string };

export interface MockOptions {
  /**
   * The reply text (`null`: no content at all); `format` is the call's `responseFormat` (absent
   * or `{ type: "text" }` for a plain text call).
   */
  readonly reply: (prompt: string, format: ResponseFormat | undefined) => string | null;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  /** Runs before the reply: may wait on the signal or throw. */
  readonly before?: (signal: AbortSignal | undefined) => Promise<void>;
  readonly provider?: string;
  readonly modelId?: string;
  /** Set as the model's `supportsStructuredOutputs` property (as provider models have it). */
  readonly supportsStructuredOutputs?: boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: the mock stands for either major's model type.
export type AnyModel = any;

export function languageModel(o: MockOptions): AnyModel {
  const Mock = (mocks.MockLanguageModelV3 ?? mocks.MockLanguageModelV2) as Ctor;
  const input = o.inputTokens ?? 10;
  const output = o.outputTokens ?? 5;
  const model = new Mock({
    provider: o.provider ?? "mock-provider",
    modelId: o.modelId ?? "judge-1",
    doGenerate: async (options: {
      prompt: unknown;
      abortSignal?: AbortSignal;
      responseFormat?: ResponseFormat;
    }) => {
      await o.before?.(options.abortSignal);
      const text = o.reply(promptText(options.prompt), options.responseFormat);
      return {
        content: text === null ? [] : [{ type: "text", text }],
        finishReason: SPEC === "v3" ? { unified: "stop", raw: "stop" } : "stop",
        usage:
          SPEC === "v3"
            ? {
                inputTokens: {
                  total: input,
                  noCache: input,
                  cacheRead: undefined,
                  cacheWrite: undefined,
                },
                outputTokens: { total: output, text: output, reasoning: undefined },
              }
            : { inputTokens: input, outputTokens: output, totalTokens: input + output },
        warnings: [],
      };
    },
  });
  if (o.supportsStructuredOutputs !== undefined) {
    Object.defineProperty(model, "supportsStructuredOutputs", {
      value: o.supportsStructuredOutputs,
    });
  }
  return model;
}

export function embeddingModel(
  embed: (text: string) => number[],
  tokens: number | undefined,
  before?: (signal: AbortSignal | undefined) => Promise<void>,
): AnyModel {
  const Mock = (mocks.MockEmbeddingModelV3 ?? mocks.MockEmbeddingModelV2) as Ctor;
  return new Mock({
    provider: "mock-provider",
    modelId: "embed-1",
    maxEmbeddingsPerCall: 100,
    doEmbed: async (options: { values: string[]; abortSignal?: AbortSignal }) => {
      await before?.(options.abortSignal);
      return {
        embeddings: options.values.map(embed),
        ...(tokens === undefined ? {} : { usage: { tokens } }),
        warnings: [],
      };
    },
  });
}
