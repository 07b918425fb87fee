import {
  Benchmark,
  type CallLimiter,
  ConfigurationError,
  type EvalSample,
  type Usage,
} from "@fastrag/bench-core";
import { AnswerCorrectness, Faithfulness } from "@fastrag/bench-metrics/generation";
import { describe, expect, it } from "vitest";
import { languageModel, SPEC, systemText } from "./__fixtures__/mock-models.js";
import { aiJudge, RateLimitError } from "./index.js";

describe(`aiJudge (AI SDK test models, spec ${SPEC})`, () => {
  it("returns the model's reply to the prompt, at temperature 0, with the call's signal", async () => {
    const model = languageModel({ reply: (p) => `echo: ${p}` });
    const judge = aiJudge(model);
    const controller = new AbortController();
    expect(await judge("Is the sky blue?", { signal: controller.signal })).toBe(
      "echo: Is the sky blue?",
    );
    const call = model.doGenerateCalls[0];
    expect(call.temperature).toBe(0);
    expect(call.abortSignal).toBeDefined();
    // The SDK hands the model a signal that follows ours.
    controller.abort();
    expect(call.abortSignal.aborted).toBe(true);
  });

  it("passes system, temperature and maxOutputTokens through", async () => {
    const model = languageModel({ reply: () => "ok" });
    await aiJudge(model, { system: "You are strict.", temperature: 0.3, maxOutputTokens: 64 })("p");
    const call = model.doGenerateCalls[0];
    expect(systemText(call.prompt)).toBe("You are strict.");
    expect(call.temperature).toBe(0.3);
    expect(call.maxOutputTokens).toBe(64);
    const none = languageModel({ reply: () => "ok" });
    await aiJudge(none, { temperature: null })("p");
    expect(none.doGenerateCalls[0].temperature).toBeUndefined();
  });

  it("reports the tokens of each call once, and the cost from prices per million tokens", async () => {
    const reported: Usage[] = [];
    const model = languageModel({ reply: () => "ok", inputTokens: 1200, outputTokens: 300 });
    const judge = aiJudge(model, { pricing: { inputPerMillion: 2.5, outputPerMillion: 10 } });
    await judge("a", { reportUsage: (u) => reported.push(u) });
    await judge("b", { reportUsage: (u) => reported.push(u) });
    // 1200 × 2.5 / 10⁶ + 300 × 10 / 10⁶ = 0.003 + 0.003
    expect(reported).toEqual([
      { inputTokens: 1200, outputTokens: 300, totalTokens: 1500, cost: 0.006 },
      { inputTokens: 1200, outputTokens: 300, totalTokens: 1500, cost: 0.006 },
    ]);
    const plain: Usage[] = [];
    await aiJudge(model)("c", { reportUsage: (u) => plain.push(u) });
    expect(plain).toEqual([{ inputTokens: 1200, outputTokens: 300, totalTokens: 1500 }]);
  });

  it("keys the cache by provider and model id, and by the settings that change replies", () => {
    const model = languageModel({
      reply: () => "",
      provider: "openai.chat",
      modelId: "gpt-4o-mini",
    });
    expect(aiJudge(model).cacheKey).toBe("openai.chat:gpt-4o-mini");
    expect(
      aiJudge(model, { temperature: 0, pricing: { inputPerMillion: 1, outputPerMillion: 1 } })
        .cacheKey,
    ).toBe("openai.chat:gpt-4o-mini");
    const strict = aiJudge(model, { system: "Be strict." }).cacheKey;
    const lenient = aiJudge(model, { system: "Be lenient." }).cacheKey;
    expect(strict).toMatch(/^openai\.chat:gpt-4o-mini#[0-9a-f]{16}$/);
    expect(lenient).toMatch(/^openai\.chat:gpt-4o-mini#[0-9a-f]{16}$/);
    expect(strict).not.toBe(lenient);
    expect(aiJudge(model, { temperature: 0.7 }).cacheKey).not.toBe("openai.chat:gpt-4o-mini");
    expect(aiJudge(model, { cacheKey: "judge-v2" }).cacheKey).toBe("judge-v2");
    expect(aiJudge("openai/gpt-4o-mini").cacheKey).toBe("openai/gpt-4o-mini");
  });

  it("runs each call through the run's limiter, with an estimate and a usage reader", async () => {
    const seen: { estimatedTokens?: number; signal?: AbortSignal; usage?: Usage }[] = [];
    const limiter: CallLimiter = {
      async run(call, options) {
        const value = await call();
        seen.push({
          ...(options?.estimatedTokens === undefined
            ? {}
            : { estimatedTokens: options.estimatedTokens }),
          ...(options?.signal === undefined ? {} : { signal: options.signal }),
          ...(options?.usage === undefined ? {} : { usage: options.usage(value) }),
        });
        return value;
      },
    };
    const model = languageModel({ reply: () => "ok", inputTokens: 40, outputTokens: 2 });
    const signal = new AbortController().signal;
    const own: CallLimiter = { run: () => Promise.reject(new Error("own limiter used")) };
    // The run's limiter (in the call's options) wins over the judge's own.
    expect(await aiJudge(model, { limiter: own })("x".repeat(400), { signal, limiter })).toBe("ok");
    expect(seen).toEqual([
      {
        estimatedTokens: 100,
        signal,
        usage: { inputTokens: 40, outputTokens: 2, totalTokens: 42 },
      },
    ]);
    await expect(aiJudge(model, { limiter: own })("y")).rejects.toThrow("own limiter used");
  });

  it("turns a 429 into a RateLimitError that a limiter can wait out, and the SDK does not retry under a limiter", async () => {
    let calls = 0;
    const model = languageModel({
      reply: () => "fine",
      before: async () => {
        calls++;
        if (calls <= 2) {
          const { APICallError } = await import("ai");
          throw new APICallError({
            message: "Too Many Requests",
            url: "http://127.0.0.1/v1/chat/completions",
            requestBodyValues: {},
            statusCode: 429,
            responseHeaders: { "retry-after": "3" },
            isRetryable: true,
          });
        }
      },
    });
    const waits: (number | undefined)[] = [];
    const limiter: CallLimiter = {
      async run(call) {
        for (;;) {
          try {
            return await call();
          } catch (error) {
            if (!RateLimitError.isInstance(error)) throw error;
            expect(error.statusCode).toBe(429);
            waits.push(error.retryAfterMs);
          }
        }
      },
    };
    expect(await aiJudge(model)("p", { limiter })).toBe("fine");
    expect(waits).toEqual([3000, 3000]);
    expect(calls).toBe(3); // one model call per limiter attempt: no SDK retry on top
  });

  it("refuses what is not a model, and malformed options, naming the option", () => {
    const model = languageModel({ reply: () => "" });
    const cases: [() => unknown, RegExp][] = [
      [() => aiJudge({} as never), /aiJudge: expected an AI SDK language model .* found an object/],
      [() => aiJudge(undefined as never), /found undefined/],
      [
        () => aiJudge(model, { temperature: 3 }),
        /option temperature must be a number from 0 to 2, found the number 3/,
      ],
      [() => aiJudge(model, { maxOutputTokens: 1.5 }), /option maxOutputTokens must be an integer/],
      [
        () => aiJudge(model, { pricing: { inputPerMillion: 1 } as never }),
        /pricing needs inputPerMillion and outputPerMillion .* found no outputPerMillion/,
      ],
      [
        () => aiJudge(model, { pricing: { inputPerMillion: -1, outputPerMillion: 1 } }),
        /pricing.inputPerMillion must be a number ≥ 0, found the number -1/,
      ],
      [() => aiJudge(model, { temprature: 0 } as never), /unknown option "temprature"/],
      [
        () => aiJudge(model, { limiter: {} as never }),
        /option limiter must be an object with a run/,
      ],
      [() => aiJudge(model, { system: "" }), /option system must be a non-empty string/],
    ];
    for (const [make, message] of cases) {
      let thrown: unknown;
      try {
        make();
      } catch (error) {
        thrown = error;
      }
      expect(ConfigurationError.isInstance(thrown), String(message)).toBe(true);
      expect((thrown as Error).message).toMatch(message);
    }
  });

  it("aborts the model call when the run's signal aborts", async () => {
    const model = languageModel({
      reply: () => "late",
      before: (signal) =>
        new Promise((_resolve, reject) => {
          if (signal?.aborted) reject(signal.reason);
          signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
        }),
    });
    const controller = new AbortController();
    const pending = aiJudge(model)("p", { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("run aborted")), 20);
    await expect(pending).rejects.toThrow("run aborted");
    expect(model.doGenerateCalls).toHaveLength(1); // the model got the call, then the abort
  });

  it("scores Faithfulness and AnswerCorrectness in a Benchmark run", async () => {
    const model = languageModel({
      reply: (prompt) =>
        prompt.includes("<passages>")
          ? '{"claims": [{"claim": "Paris", "supported": true}, {"claim": "1889", "supported": false}]}'
          : '{"score": 0.75, "reason": "partly right"}',
    });
    const judge = aiJudge(model);
    const dataset: EvalSample[] = [
      {
        id: "q1",
        question: "Where is the Eiffel Tower?",
        expectedAnswers: ["Paris"],
        relevantIds: [],
      },
    ];
    const result = await new Benchmark({
      dataset,
      metrics: [new Faithfulness({ judge }), new AnswerCorrectness({ judge })],
    }).run(
      {
        query: async () => ({
          answer: "In Paris, since 1889.",
          chunks: [{ id: "c1", text: "The Eiffel Tower is in Paris." }],
        }),
      },
      { name: "mock" },
    );
    expect(result.samples[0]?.scores).toEqual({ faithfulness: 0.5, answer_correctness: 0.75 });
    expect(model.doGenerateCalls).toHaveLength(2);
  });
});
