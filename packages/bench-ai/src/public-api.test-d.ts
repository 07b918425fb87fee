import type { EmbedFunction, JudgeFunction } from "@fastrag/bench-metrics/generation";
import { describe, expectTypeOf, it } from "vitest";
import { type AiEmbed, type AiJudge, aiEmbed, aiJudge } from "./index.js";

describe("public types", () => {
  it("an AiJudge is a JudgeFunction and an AiEmbed an EmbedFunction", () => {
    expectTypeOf<AiJudge>().toExtend<JudgeFunction>();
    expectTypeOf<AiEmbed>().toExtend<EmbedFunction>();
    expectTypeOf<AiJudge["cacheKey"]>().toEqualTypeOf<string>();
  });

  it("takes AI SDK models and model id strings", () => {
    expectTypeOf(aiJudge).toBeCallableWith("openai/gpt-4o-mini");
    expectTypeOf(aiEmbed).toBeCallableWith("openai/text-embedding-3-small");
    // @ts-expect-error: a number is no model
    aiJudge(42);
  });
});
