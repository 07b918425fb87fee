import {
  Benchmark,
  type CallLimiter,
  ConfigurationError,
  type EvalSample,
  type Usage,
} from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import {
  type AnyModel,
  languageModel,
  type ResponseFormat,
  SPEC,
  systemText,
} from "./__fixtures__/mock-models.js";
import { VERDICTS_SCHEMA, VerdictsMetric } from "./__fixtures__/verdicts-metric.js";
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

  it("scores a judge metric in a Benchmark run, its tokens counted in judge_usage", async () => {
    const model = languageModel({
      // In text (no schema would be sent here only with structuredOutput "never").
      reply: (prompt) =>
        prompt.includes("In Paris.")
          ? '{"verdicts": [{"statement": "In Paris.", "reason": "stated", "verdict": 1}, {"statement": "Since 1889.", "reason": "not stated", "verdict": 0}]}'
          : "",
      inputTokens: 50,
      outputTokens: 20,
    });
    const judge = aiJudge(model, { structuredOutput: "never" });
    const dataset: EvalSample[] = [
      {
        id: "q1",
        question: "Where is the Eiffel Tower?",
        expectedAnswers: ["Paris"],
        relevantIds: [],
      },
    ];
    const result = await new Benchmark({ dataset, metrics: [new VerdictsMetric(judge)] }).run(
      {
        query: async () => ({
          answer: "In Paris. Since 1889.",
          chunks: [{ id: "c1", text: "The Eiffel Tower is in Paris." }],
        }),
      },
      { name: "mock" },
    );
    expect(result.samples[0]?.scores).toEqual({ supported: 0.5 });
    expect(result.samples[0]?.judgeUsage).toEqual({
      inputTokens: 50,
      outputTokens: 20,
      totalTokens: 70,
      calls: 1,
    });
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(formats(model)).toEqual(["text"]);
  });
});

/** A reply object of the `verdicts` step. */
const VERDICTS = {
  verdicts: [{ statement: "In Paris.", reason: "the context says so", verdict: 1 }],
};

/** What each call asked for: `"json"` (structured output) or `"text"`. */
function formats(model: AnyModel): string[] {
  return model.doGenerateCalls.map((c: { responseFormat?: ResponseFormat }) =>
    c.responseFormat?.type === "json" ? "json" : "text",
  );
}

/** A model that answers a structured call with `json` and a plain one with `text`. */
function twoFaced(json: string, text: string, extra: { supportsStructuredOutputs?: boolean } = {}) {
  return languageModel({
    reply: (_prompt, format: ResponseFormat | undefined) => (format?.type === "json" ? json : text),
    inputTokens: 300,
    outputTokens: 40,
    ...extra,
  });
}

describe(`aiJudge with a step's schema (AI SDK test models, spec ${SPEC})`, () => {
  it("sends the schema as structured output, named by the step, and returns the parsed object", async () => {
    const model = twoFaced(JSON.stringify(VERDICTS), "prose");
    const judge = aiJudge(model, { system: "You are strict.", maxOutputTokens: 200 });
    const controller = new AbortController();
    const reply = await judge("Judge: In Paris.", {
      signal: controller.signal,
      step: "verdicts",
      metric: "faithfulness",
      input: { context: "Paris", statements: ["In Paris."] },
      schema: VERDICTS_SCHEMA,
      attempt: 0,
    });
    expect(reply).toEqual(VERDICTS);
    const call = model.doGenerateCalls[0];
    expect(call.responseFormat).toEqual({
      type: "json",
      schema: VERDICTS_SCHEMA,
      name: "verdicts",
    });
    expect(call.temperature).toBe(0);
    expect(call.maxOutputTokens).toBe(200);
    expect(systemText(call.prompt)).toBe("You are strict.");
    controller.abort();
    expect(call.abortSignal.aborted).toBe(true);
  });

  it("reports a structured call's tokens and cost once, and runs it through the limiter with the schema in the estimate", async () => {
    const model = twoFaced(JSON.stringify(VERDICTS), "prose");
    const seen: { estimatedTokens?: number; usage?: Usage }[] = [];
    const limiter: CallLimiter = {
      async run(call, options) {
        const value = await call();
        seen.push({
          ...(options?.estimatedTokens === undefined
            ? {}
            : { estimatedTokens: options.estimatedTokens }),
          ...(options?.usage === undefined ? {} : { usage: options.usage(value) }),
        });
        return value;
      },
    };
    const reported: Usage[] = [];
    const judge = aiJudge(model, { pricing: { inputPerMillion: 2.5, outputPerMillion: 10 } });
    const prompt = "x".repeat(400);
    await judge(prompt, {
      schema: VERDICTS_SCHEMA,
      limiter,
      reportUsage: (u) => reported.push(u),
    });
    // 300 × 2.5 / 10⁶ + 40 × 10 / 10⁶ = 0.00075 + 0.0004
    const usage = { inputTokens: 300, outputTokens: 40, totalTokens: 340, cost: 0.00115 };
    expect(reported).toEqual([usage]);
    expect(seen).toEqual([
      {
        estimatedTokens: 100 + Math.ceil(JSON.stringify(VERDICTS_SCHEMA).length / 4),
        usage,
      },
    ]);
  });

  it("without a schema, asks in plain text whatever the mode", async () => {
    for (const mode of ["auto", "always", "never"] as const) {
      const model = twoFaced(JSON.stringify(VERDICTS), "the text reply");
      const text: string = await aiJudge(model, { structuredOutput: mode })("p");
      expect(text).toBe("the text reply");
      expect(formats(model)).toEqual(["text"]);
    }
  });

  it('"auto" asks a model with supportsStructuredOutputs: false in plain text', async () => {
    const model = twoFaced(JSON.stringify(VERDICTS), '```json\n{"verdicts": []}\n```', {
      supportsStructuredOutputs: false,
    });
    const judge = aiJudge(model);
    expect(await judge("p", { schema: VERDICTS_SCHEMA })).toBe('```json\n{"verdicts": []}\n```');
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(formats(model)).toEqual(["text"]);
    // "always" sends the schema even so (the provider decides what to do with it).
    const always = twoFaced(JSON.stringify(VERDICTS), "prose", {
      supportsStructuredOutputs: false,
    });
    expect(
      await aiJudge(always, { structuredOutput: "always" })("p", { schema: VERDICTS_SCHEMA }),
    ).toEqual(VERDICTS);
    expect(formats(always)).toEqual(["json"]);
  });

  it('"auto" falls back to text when the provider refuses structured output, once for the judge', async () => {
    const { UnsupportedFunctionalityError } = await import("ai");
    const model = languageModel({
      reply: () => '{"verdicts": []}',
      before: async () => {
        const format = model.doGenerateCalls.at(-1)?.responseFormat as ResponseFormat | undefined;
        if (format?.type === "json") {
          throw new UnsupportedFunctionalityError({ functionality: "JSON response format" });
        }
      },
    });
    const judge = aiJudge(model);
    const reported: Usage[] = [];
    const options = { schema: VERDICTS_SCHEMA, reportUsage: (u: Usage) => reported.push(u) };
    expect(await judge("p1", options)).toBe('{"verdicts": []}');
    expect(await judge("p2", options)).toBe('{"verdicts": []}');
    // One refused structured call, then text only: the refusal is not paid again.
    expect(formats(model)).toEqual(["json", "text", "text"]);
    expect(reported).toHaveLength(2); // the refused call cost nothing and reports nothing
    // "always" does not fall back: the refusal is the call's error.
    const strict = languageModel({
      reply: () => "",
      before: async () => {
        throw new UnsupportedFunctionalityError({ functionality: "JSON response format" });
      },
    });
    await expect(
      aiJudge(strict, { structuredOutput: "always" })("p", { schema: VERDICTS_SCHEMA }),
    ).rejects.toThrow(/JSON response format/);
    expect(strict.doGenerateCalls).toHaveLength(1);
  });

  it('"auto" does not fall back on other errors: they are the call\'s', async () => {
    const { UnsupportedFunctionalityError } = await import("ai");
    const model = languageModel({
      reply: () => "",
      before: async () => {
        throw new UnsupportedFunctionalityError({ functionality: "image parts" });
      },
    });
    const judge = aiJudge(model);
    await expect(judge("p", { schema: VERDICTS_SCHEMA })).rejects.toThrow(/image parts/);
    await expect(judge("p", { schema: VERDICTS_SCHEMA })).rejects.toThrow(/image parts/);
    // Both calls were structured: nothing was remembered.
    expect(formats(model)).toEqual(["json", "json"]);
  });

  it('"never" asks in plain text even with a schema', async () => {
    const model = twoFaced(JSON.stringify(VERDICTS), "text");
    expect(
      await aiJudge(model, { structuredOutput: "never" })("p", { schema: VERDICTS_SCHEMA }),
    ).toBe("text");
    expect(formats(model)).toEqual(["text"]);
  });

  it("returns the raw text of a structured reply that does not parse or does not match the schema, and reports its tokens", async () => {
    const cases = [
      'Here you go: {"verdicts": []}', // prose around the object
      '{"verdicts": [{"statement": "a", "reason": "b", "verdict": 1}', // truncated
      '{"verdicts": [{"statement": "a", "reason": "b", "verdict": 2}]}', // parses, wrong value
      '{"verdicts": "all supported"}', // parses, wrong type
    ];
    for (const text of cases) {
      const model = twoFaced(text, "unused");
      const reported: Usage[] = [];
      const reply = await aiJudge(model)("p", {
        schema: VERDICTS_SCHEMA,
        reportUsage: (u) => reported.push(u),
      });
      // Never an object: the metric's parser decides, and reports the problem.
      expect(reply).toBe(text);
      expect(reported).toEqual([{ inputTokens: 300, outputTokens: 40, totalTokens: 340 }]);
      expect(model.doGenerateCalls).toHaveLength(1); // not asked again in text
    }
  });

  it("throws the SDK's NoObjectGeneratedError when a structured call returns no text, after reporting its tokens", async () => {
    const empty = languageModel({ reply: () => null, inputTokens: 12, outputTokens: 0 });
    const { NoObjectGeneratedError } = await import("ai");
    const reported: Usage[] = [];
    const error = await aiJudge(empty)("p", {
      schema: VERDICTS_SCHEMA,
      reportUsage: (u) => reported.push(u),
    }).catch((e: unknown) => e);
    expect(NoObjectGeneratedError.isInstance(error)).toBe(true);
    expect(reported).toEqual([{ inputTokens: 12, outputTokens: 0, totalTokens: 12 }]);
  });

  it("aborts a structured call when the run's signal aborts", async () => {
    const model = languageModel({
      reply: () => JSON.stringify(VERDICTS),
      before: (signal) =>
        new Promise((_resolve, reject) => {
          if (signal?.aborted) reject(signal.reason);
          signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
        }),
    });
    const controller = new AbortController();
    const pending = aiJudge(model)("p", { signal: controller.signal, schema: VERDICTS_SCHEMA });
    setTimeout(() => controller.abort(new Error("run aborted")), 20);
    await expect(pending).rejects.toThrow("run aborted");
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(formats(model)).toEqual(["json"]);
  });

  it("keeps one cache key across modes, and refuses a bad mode or schema", async () => {
    const model = languageModel({ reply: () => "", provider: "openai.chat", modelId: "m" });
    for (const mode of ["auto", "always", "never"] as const) {
      expect(aiJudge(model, { structuredOutput: mode }).cacheKey).toBe("openai.chat:m");
    }
    expect(() => aiJudge(model, { structuredOutput: "sometimes" as never })).toThrow(
      /option structuredOutput must be "auto", "always" or "never", found the string "sometimes"/,
    );
    const error = await aiJudge(model)("p", { schema: [] as never }).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/the call's schema must be a JSON Schema object/);
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it("scores a Benchmark run from structured replies; a reply off the schema leaves the sample incomplete", async () => {
    const model = languageModel({
      reply: (prompt, format) => {
        if (format?.type !== "json") return "text was not expected";
        if (prompt.includes("In Rome.")) return '{"verdicts": [{"statement": "In Rome."}]}';
        return JSON.stringify({
          verdicts: [
            { statement: "In Paris.", reason: "stated", verdict: 1 },
            { statement: "Since 1889.", reason: "not stated", verdict: 0 },
          ],
        });
      },
      inputTokens: 80,
      outputTokens: 30,
    });
    const judge = aiJudge(model);
    const dataset: EvalSample[] = [
      { id: "paris", question: "Where?", expectedAnswers: [], relevantIds: [] },
      { id: "rome", question: "Where else?", expectedAnswers: [], relevantIds: [] },
    ];
    const result = await new Benchmark({ dataset, metrics: [new VerdictsMetric(judge)] }).run(
      {
        query: async (question) => ({
          answer: question === "Where?" ? "In Paris. Since 1889." : "In Rome.",
          chunks: [{ id: "c1", text: "The Eiffel Tower is in Paris." }],
        }),
      },
      { name: "structured" },
    );
    const [paris, rome] = result.samples;
    expect(paris?.scores).toEqual({ supported: 0.5 });
    expect(paris?.status).toBe("successful");
    expect(rome?.scores).toEqual({ supported: null });
    expect(rome?.status).toBe("incomplete");
    expect(rome?.error).toMatch(/judge reply: reply\.verdicts\[0\]\.reason: missing/);
    // The failed reply was paid for, and counted.
    expect(rome?.judgeUsage).toEqual({
      inputTokens: 80,
      outputTokens: 30,
      totalTokens: 110,
      calls: 1,
    });
    expect(formats(model)).toEqual(["json", "json"]);
  });
});
