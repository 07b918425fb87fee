/**
 * The models of the example: OpenAI's when `OPENAI_API_KEY` is set, else the offline fixture
 * server (`fixture-server.ts`) through `@ai-sdk/openai-compatible`.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { startFixtureServer } from "./fixture-server.js";
import type { Pricing } from "./rag.js";

export interface Models {
  readonly generator: LanguageModel;
  readonly judge: LanguageModel;
  /** gpt-4o-mini's list prices, USD per million tokens (also applied to the offline fixture). */
  readonly pricing: Pricing;
  readonly offline: boolean;
}

const GPT_4O_MINI: Pricing = { inputPerMillion: 0.15, outputPerMillion: 0.6 };

export async function models(env: NodeJS.ProcessEnv = process.env): Promise<Models> {
  if (env.OPENAI_API_KEY) {
    const { openai } = await import("@ai-sdk/openai");
    return {
      generator: openai("gpt-4o-mini"),
      judge: openai("gpt-4o-mini"),
      pricing: GPT_4O_MINI,
      offline: false,
    };
  }
  const server = await startFixtureServer({ rateLimitEvery: 7 });
  process.stderr.write(
    `llm-judge: no OPENAI_API_KEY, so the model is the offline fixture at ${server.url}\n`,
  );
  process.once("exit", () => {
    const { answered, rateLimited } = server.stats;
    process.stderr.write(
      `llm-judge: the fixture answered ${answered} requests and refused ${rateLimited} with HTTP 429 (each retried after its retry-after-ms)\n`,
    );
  });
  const fixture = createOpenAICompatible({
    name: "fixture",
    baseURL: server.url,
    apiKey: "offline",
  });
  return {
    generator: fixture.chatModel("fixture-rag"),
    judge: fixture.chatModel("fixture-judge"),
    pricing: GPT_4O_MINI,
    offline: true,
  };
}
