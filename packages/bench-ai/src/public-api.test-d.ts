import type { EmbedFunction, JudgeFunction, JudgeReply } from "@fastrag/bench-core";
import { describe, expectTypeOf, it } from "vitest";
import { type AiEmbed, type AiJudge, aiEmbed, aiJudge } from "./index.js";

/** A judge as metrics took it before structured output: text in, text out. */
type TextJudge = (
  prompt: string,
  options: { readonly signal?: AbortSignal },
) => Promise<string> | string;

describe("public types", () => {
  it("an AiJudge is a JudgeFunction (and a text judge) and an AiEmbed an EmbedFunction", () => {
    expectTypeOf<AiJudge>().toExtend<JudgeFunction>();
    expectTypeOf<AiJudge>().toExtend<TextJudge>();
    expectTypeOf<AiEmbed>().toExtend<EmbedFunction>();
    expectTypeOf<AiJudge["cacheKey"]>().toEqualTypeOf<string>();
  });

  it("a call without a schema is text; with one, a JudgeReply", () => {
    const judge = aiJudge("openai/gpt-4o-mini");
    expectTypeOf(judge("p")).toEqualTypeOf<Promise<string>>();
    expectTypeOf(judge("p", { signal: new AbortController().signal })).toEqualTypeOf<
      Promise<string>
    >();
    expectTypeOf(judge("p", { schema: { type: "object" } })).toEqualTypeOf<Promise<JudgeReply>>();
    const options = {} as Parameters<JudgeFunction>[1];
    expectTypeOf(judge("p", options)).toEqualTypeOf<Promise<JudgeReply>>();
  });

  it("takes AI SDK models and model id strings, and a structured-output mode", () => {
    expectTypeOf(aiJudge).toBeCallableWith("openai/gpt-4o-mini");
    expectTypeOf(aiJudge).toBeCallableWith("openai/gpt-4o-mini", { structuredOutput: "never" });
    expectTypeOf(aiEmbed).toBeCallableWith("openai/text-embedding-3-small");
    // @ts-expect-error: a number is no model
    aiJudge(42);
    // @ts-expect-error: not a mode
    aiJudge("openai/gpt-4o-mini", { structuredOutput: "sometimes" });
  });
});
