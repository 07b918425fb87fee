/**
 * The models of the example: OpenAI's when `OPENAI_API_KEY` is set, else the offline fixture
 * server (`fixture-server.ts`) through `@ai-sdk/openai-compatible`, created with
 * `supportsStructuredOutputs: true` so that `aiJudge` sends each judge step's schema as
 * `response_format: {type: "json_schema", json_schema: {name: <step>, schema, strict}}`.
 *
 * Offline, `LLM_JUDGE_FIXTURE_LOG=<file>` appends a JSON line per request the fixture receives
 * (the example's test reads it to count judge requests by step).
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { EmbeddingModel, LanguageModel } from "ai";
import { startFixtureServer, statsLines } from "./fixture-server.js";
import type { Pricing } from "./rag.js";

export interface Models {
  readonly generator: LanguageModel;
  readonly judge: LanguageModel;
  /** Embeds texts for AnswerRelevancy and AnswerCorrectness. */
  readonly embedder: EmbeddingModel;
  /** gpt-4o-mini's list prices, USD per million tokens (also applied to the offline fixture). */
  readonly pricing: Pricing;
  /** text-embedding-3-small's list price, USD per million tokens. */
  readonly embeddingPricing: { readonly inputPerMillion: number };
  readonly offline: boolean;
}

const GPT_4O_MINI: Pricing = { inputPerMillion: 0.15, outputPerMillion: 0.6 };
const TEXT_EMBEDDING_3_SMALL = { inputPerMillion: 0.02 };

export async function models(env: NodeJS.ProcessEnv = process.env): Promise<Models> {
  if (env.OPENAI_API_KEY) {
    const { openai } = await import("@ai-sdk/openai");
    return {
      generator: openai("gpt-4o-mini"),
      judge: openai("gpt-4o-mini"),
      embedder: openai.embeddingModel("text-embedding-3-small"),
      pricing: GPT_4O_MINI,
      embeddingPricing: TEXT_EMBEDDING_3_SMALL,
      offline: false,
    };
  }
  const log = env.LLM_JUDGE_FIXTURE_LOG;
  const server = await startFixtureServer({
    rateLimitEvery: 7,
    ...(log === undefined || log === "" ? {} : { log }),
  });
  process.stderr.write(
    `llm-judge: no OPENAI_API_KEY, so the model is the offline fixture at ${server.url}\n`,
  );
  process.once("exit", () => {
    for (const line of statsLines(server.stats)) process.stderr.write(`llm-judge: ${line}\n`);
  });
  const fixture = createOpenAICompatible({
    name: "fixture",
    baseURL: server.url,
    apiKey: "offline",
    // The fixture answers judge steps as structured output only, as a vLLM server with guided
    // decoding would: without this, aiJudge would ask in text and every step would get a 400.
    supportsStructuredOutputs: true,
  });
  return {
    generator: fixture.chatModel("fixture-rag"),
    judge: fixture.chatModel("fixture-judge"),
    embedder: fixture.embeddingModel("fixture-embed"),
    pricing: GPT_4O_MINI,
    embeddingPricing: TEXT_EMBEDDING_3_SMALL,
    offline: true,
  };
}
