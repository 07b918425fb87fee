/**
 * End to end over real HTTP: an OpenAI-compatible server on 127.0.0.1 (started here, random
 * port) and `@ai-sdk/openai-compatible` as the provider, so the AI SDK's real client, its retries
 * on 429 with `Retry-After`, and a limiter are exercised as a user's run would exercise them.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { Benchmark, type CallLimiter, type EvalSample, type Usage } from "@fastrag/bench-core";
import { afterEach, describe, expect, it } from "vitest";
import { type FixtureServer, startFixtureServer } from "./__fixtures__/openai-server.js";
import { VERDICTS_SCHEMA, VerdictsMetric } from "./__fixtures__/verdicts-metric.js";
import { aiEmbed, aiJudge, RateLimitError } from "./index.js";

/** The judge's verdicts, by the question found in its prompt. */
const verdicts: Record<string, { faithfulness: string; correctness: string }> = {
  "Who wrote Hamlet?": {
    faithfulness: '{"claims": [{"claim": "Shakespeare wrote Hamlet", "supported": true}]}',
    correctness: '{"score": 1, "reason": "matches"}',
  },
  "When did Apollo 11 land?": {
    faithfulness:
      '```json\n{"claims": [{"claim": "in 1969", "supported": true}, {"claim": "on Mars", "supported": false}, {"claim": "with two crew", "supported": false}, {"claim": "in July", "supported": true}]}\n```',
    correctness: '{"score": 0.4, "reason": "wrong body"}',
  },
  "What is the boiling point of water?": {
    faithfulness: "I think it is mostly supported.",
    correctness: '{"score": 0.9}',
  },
};

function reply(prompt: string): string {
  for (const [question, v] of Object.entries(verdicts)) {
    if (prompt.includes(question))
      return prompt.includes("<passages>") ? v.faithfulness : v.correctness;
  }
  return "no verdict in the fixture";
}

let server: FixtureServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function provider(s: FixtureServer, supportsStructuredOutputs?: boolean) {
  return createOpenAICompatible({
    name: "fixture",
    baseURL: s.url,
    apiKey: "test-key",
    ...(supportsStructuredOutputs === undefined ? {} : { supportsStructuredOutputs }),
  });
}

/** A stub of the run's limiter: waits what a RateLimitError asks (or 10 ms), then runs again. */
function stubLimiter(log: { waits: (number | undefined)[]; usage: Usage[] }): CallLimiter {
  return {
    async run(call, options) {
      for (let attempt = 0; attempt < 10; attempt++) {
        try {
          const value = await call();
          const u = options?.usage?.(value);
          if (u !== undefined) log.usage.push(u);
          return value;
        } catch (error) {
          if (!RateLimitError.isInstance(error)) throw error;
          log.waits.push(error.retryAfterMs);
          await new Promise((r) => setTimeout(r, error.retryAfterMs ?? 10));
        }
      }
      throw new Error("stub limiter: gave up");
    },
  };
}

describe("aiJudge over HTTP (@ai-sdk/openai-compatible)", () => {
  it("answers from the server, reports the server's token counts and the cost", async () => {
    server = await startFixtureServer({
      reply,
      usage: { prompt_tokens: 250, completion_tokens: 40 },
    });
    const judge = aiJudge(provider(server).chatModel("judge-1"), {
      pricing: { inputPerMillion: 0.15, outputPerMillion: 0.6 },
    });
    expect(judge.cacheKey).toBe("fixture.chat:judge-1");
    const reported: Usage[] = [];
    const text = await judge("Who wrote Hamlet? Reply as JSON.", {
      reportUsage: (u) => reported.push(u),
    });
    expect(text).toBe('{"score": 1, "reason": "matches"}');
    // 250 × 0.15 / 10⁶ + 40 × 0.6 / 10⁶ = 3.75e-5 + 2.4e-5
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ inputTokens: 250, outputTokens: 40, totalTokens: 290 });
    expect(reported[0]?.cost).toBeCloseTo(6.15e-5, 15);
    const body = server.requests[0]?.body as { model: string; temperature: number };
    expect(body.model).toBe("judge-1");
    expect(body.temperature).toBe(0);
  });

  it("without a limiter, the SDK retries a 429 after the server's retry-after-ms", async () => {
    server = await startFixtureServer({
      reply,
      rateLimit: (n) => (n === 1 ? { retryAfterMs: 300, retryAfterSeconds: 5 } : undefined),
    });
    const judge = aiJudge(provider(server).chatModel("judge-1"));
    expect(await judge("Who wrote Hamlet?")).toBe('{"score": 1, "reason": "matches"}');
    const [first, second] = server.requests;
    expect(server.requests.map((r) => r.status)).toEqual([429, 200]);
    const gap = (second?.at ?? 0) - (first?.at ?? 0);
    expect(gap).toBeGreaterThanOrEqual(290); // the SDK waited what the header said…
    expect(gap).toBeLessThan(1900); // …not its own 2 s backoff, nor retry-after's 5 s
  });

  it("without a limiter, a 429 that outlasts the retries is a RateLimitError with the wait", async () => {
    server = await startFixtureServer({ reply, rateLimit: () => ({ retryAfterMs: 20 }) });
    const judge = aiJudge(provider(server).chatModel("judge-1"), { maxRetries: 1 });
    const error = await judge("Who wrote Hamlet?").catch((e: unknown) => e);
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ statusCode: 429, retryAfterMs: 20 });
    expect((error as Error).message).toBe(
      "fixture.chat:judge-1: rate limited (HTTP 429); retry after 20 ms",
    );
    expect(server.requests.map((r) => r.status)).toEqual([429, 429]);
  });

  it("with a limiter, every 429 reaches the limiter, which waits Retry-After (seconds) and runs again", async () => {
    server = await startFixtureServer({
      reply,
      // Requests 1 and 2 are refused with only `retry-after: 1`; then the server answers.
      rateLimit: (n) => (n <= 2 ? { retryAfterSeconds: 1 } : undefined),
    });
    const log = { waits: [] as (number | undefined)[], usage: [] as Usage[] };
    const judge = aiJudge(provider(server).chatModel("judge-1"));
    const reported: Usage[] = [];
    const text = await judge("When did Apollo 11 land? Reply as JSON.", {
      limiter: stubLimiter(log),
      reportUsage: (u) => reported.push(u),
    });
    expect(text).toBe('{"score": 0.4, "reason": "wrong body"}');
    expect(log.waits).toEqual([1000, 1000]);
    // One HTTP request per limiter attempt: the SDK did not retry on its own.
    expect(server.requests.map((r) => r.status)).toEqual([429, 429, 200]);
    const gaps = [1, 2].map(
      (i) => (server?.requests[i]?.at ?? 0) - (server?.requests[i - 1]?.at ?? 0),
    );
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(990);
    // The limiter read the call's usage, and the metric's sink got it once.
    expect(log.usage).toEqual([{ inputTokens: 100, outputTokens: 20, totalTokens: 120 }]);
    expect(reported).toEqual([{ inputTokens: 100, outputTokens: 20, totalTokens: 120 }]);
  });

  it("aborts the HTTP request when the run's signal aborts", async () => {
    server = await startFixtureServer({ reply, delayMs: () => 5_000 });
    const judge = aiJudge(provider(server).chatModel("judge-1"));
    const controller = new AbortController();
    const started = performance.now();
    const pending = judge("Who wrote Hamlet?", { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    // Well under the server's 5 s, with room for a loaded machine.
    expect(performance.now() - started).toBeLessThan(4_000);
    // The server sees the connection close a moment later (longer on a loaded machine); it
    // would close only after the 5 s answer had the request not been aborted.
    const seen = performance.now();
    while (server.requests[0]?.closed !== true && performance.now() - seen < 4_000) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(server.requests[0]?.closed).toBe(true);
    expect(server.requests[0]?.aborted).toBe(true);
  });

  it("scores a Benchmark run's judge metric from the server's replies, under 429s", async () => {
    const replies: Record<string, string> = {
      // A plain object, one fenced, and prose the strict rule refuses.
      "Shakespeare wrote it.":
        '{"verdicts": [{"statement": "Shakespeare wrote it.", "reason": "stated", "verdict": 1}]}',
      "In 1969. On Mars.":
        '```json\n{"verdicts": [{"statement": "In 1969.", "reason": "stated", "verdict": 1}, {"statement": "On Mars.", "reason": "the Moon", "verdict": 0}]}\n```',
      "At 100 °C.": "I think it is mostly supported.",
    };
    server = await startFixtureServer({
      reply: (prompt) =>
        // The prompt lists the answer's statements as "1. …", "2. …".
        Object.entries(replies).find(([answer]) =>
          prompt.includes(`1. ${answer.split(/(?<=\.) /)[0]}\n`),
        )?.[1] ?? "no reply in the fixture",
      // Every third request is refused, with a short retry-after-ms.
      rateLimit: (n) => (n % 3 === 0 ? { retryAfterMs: 30 } : undefined),
    });
    const judge = aiJudge(provider(server).chatModel("judge-1"));
    const answers = Object.keys(replies);
    const dataset: EvalSample[] = answers.map((_, i) => ({
      id: ["hamlet", "apollo", "water"][i] as string,
      question: `question ${i}`,
      expectedAnswers: [],
      relevantIds: [],
    }));
    const result = await new Benchmark({
      dataset,
      metrics: [new VerdictsMetric(judge)],
      maxConcurrent: 2,
    }).run(
      {
        query: async (question) => ({
          answer: answers[Number(question.slice(-1))] as string,
          chunks: [{ id: "c1", text: "A passage." }],
        }),
      },
      { name: "http" },
    );
    const scores = Object.fromEntries(result.samples.map((s) => [s.sampleId, s.scores]));
    expect(scores).toEqual({
      hamlet: { supported: 1 },
      apollo: { supported: 0.5 },
      water: { supported: null },
    });
    const water = result.samples.find((s) => s.sampleId === "water");
    expect(water?.status).toBe("incomplete");
    expect(water?.error).toMatch(/unparsable judge reply/);
    // 3 replies over 4 requests: request 3 was refused and retried by the SDK.
    expect(server.requests.map((r) => r.status)).toEqual([200, 200, 429, 200]);
    // The default provider has no structured output: "auto" asked in plain text.
    expect(server.requests.every((r) => r.body.response_format === undefined)).toBe(true);
  });
});

/** A reply object of the `verdicts` step. */
const VERDICTS = {
  verdicts: [{ statement: "Shakespeare wrote Hamlet.", reason: "stated", verdict: 1 }],
};

/** OpenAI's answer to `response_format: json_schema` for a model without structured output. */
const OPENAI_REFUSAL = {
  status: 400,
  body: {
    error: {
      message:
        "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
      type: "invalid_request_error",
      param: "response_format",
      code: null,
    },
  },
};

/** The kind of `response_format` a request asked for, or `"none"`. */
function formatOf(body: Record<string, unknown>): string {
  const format = body.response_format as { type?: string } | undefined;
  return format?.type ?? "none";
}

describe("aiJudge with a step's schema over HTTP (@ai-sdk/openai-compatible)", () => {
  it("sends response_format json_schema with the step's schema and name, and returns the parsed object with usage and cost", async () => {
    server = await startFixtureServer({
      reply: (_prompt, _system, body) =>
        formatOf(body) === "json_schema" ? JSON.stringify(VERDICTS) : "prose, not JSON",
      usage: { prompt_tokens: 420, completion_tokens: 35 },
    });
    const judge = aiJudge(provider(server, true).chatModel("judge-1"), {
      pricing: { inputPerMillion: 0.15, outputPerMillion: 0.6 },
    });
    const reported: Usage[] = [];
    const reply = await judge("Judge the statements. Reply as JSON.", {
      step: "verdicts",
      schema: VERDICTS_SCHEMA,
      reportUsage: (u) => reported.push(u),
    });
    expect(reply).toEqual(VERDICTS);
    const body = server.requests[0]?.body as {
      response_format: { type: string; json_schema: { name: string; schema: unknown } };
      temperature: number;
    };
    expect(body.response_format.type).toBe("json_schema");
    expect(body.response_format.json_schema.schema).toEqual(VERDICTS_SCHEMA);
    expect(body.response_format.json_schema.name).toBe("verdicts");
    expect(body.temperature).toBe(0);
    // 420 × 0.15 / 10⁶ + 35 × 0.6 / 10⁶ = 6.3e-5 + 2.1e-5
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ inputTokens: 420, outputTokens: 35, totalTokens: 455 });
    expect(reported[0]?.cost).toBeCloseTo(8.4e-5, 15);
  });

  it('"auto" asks a provider model without supportsStructuredOutputs in plain text: no response_format', async () => {
    server = await startFixtureServer({ reply: () => "```json\n{}\n```" });
    const judge = aiJudge(provider(server).chatModel("judge-1"));
    expect(await judge("p", { schema: VERDICTS_SCHEMA })).toBe("```json\n{}\n```");
    expect(server.requests.map((r) => formatOf(r.body))).toEqual(["none"]);
  });

  it('"auto" falls back to text after the server refuses json_schema, and does not ask structured again', async () => {
    server = await startFixtureServer({
      refuse: (body) => (formatOf(body) === "json_schema" ? OPENAI_REFUSAL : undefined),
      reply: () => JSON.stringify(VERDICTS),
    });
    const judge = aiJudge(provider(server, true).chatModel("judge-1"));
    const reported: Usage[] = [];
    const options = { schema: VERDICTS_SCHEMA, reportUsage: (u: Usage) => reported.push(u) };
    // The text reply comes back as text: the metric parses it.
    expect(await judge("p1", options)).toBe(JSON.stringify(VERDICTS));
    expect(await judge("p2", options)).toBe(JSON.stringify(VERDICTS));
    expect(server.requests.map((r) => [r.status, formatOf(r.body)])).toEqual([
      [400, "json_schema"],
      [200, "none"],
      [200, "none"],
    ]);
    expect(reported).toHaveLength(2);
  });

  it('"always" keeps the refusal as the call\'s error, and "auto" does not fall back on a 400 about the schema itself', async () => {
    server = await startFixtureServer({
      refuse: (body, n) =>
        formatOf(body) !== "json_schema"
          ? undefined
          : n === 1
            ? OPENAI_REFUSAL
            : {
                status: 400,
                body: {
                  error: {
                    message:
                      "Invalid schema for response_format 'verdicts': In context=('properties', 'verdicts'), 'minItems' is not permitted.",
                    type: "invalid_request_error",
                  },
                },
              },
      reply: () => "text",
    });
    const model = provider(server, true).chatModel("judge-1");
    await expect(
      aiJudge(model, { structuredOutput: "always" })("p", { schema: VERDICTS_SCHEMA }),
    ).rejects.toMatchObject({ statusCode: 400, message: expect.stringMatching(/not supported/) });
    const auto = aiJudge(model);
    await expect(auto("p", { schema: VERDICTS_SCHEMA })).rejects.toThrow(/Invalid schema/);
    await expect(auto("p", { schema: VERDICTS_SCHEMA })).rejects.toThrow(/Invalid schema/);
    // No request was ever sent without the schema.
    expect(server.requests.map((r) => [r.status, formatOf(r.body)])).toEqual([
      [400, "json_schema"],
      [400, "json_schema"],
      [400, "json_schema"],
    ]);
  });

  it("hands back the text of a structured reply that does not parse, with its usage", async () => {
    server = await startFixtureServer({
      reply: () => 'Sure! {"verdicts": [{"statement": "a", "reason": "b", "verdict": 1}',
      usage: { prompt_tokens: 60, completion_tokens: 9 },
    });
    const judge = aiJudge(provider(server, true).chatModel("judge-1"));
    const reported: Usage[] = [];
    const reply = await judge("p", {
      schema: VERDICTS_SCHEMA,
      reportUsage: (u) => reported.push(u),
    });
    expect(reply).toBe('Sure! {"verdicts": [{"statement": "a", "reason": "b", "verdict": 1}');
    expect(reported).toEqual([{ inputTokens: 60, outputTokens: 9, totalTokens: 69 }]);
    expect(server.requests).toHaveLength(1);
  });

  it("aborts a structured HTTP request when the run's signal aborts", async () => {
    server = await startFixtureServer({
      reply: () => JSON.stringify(VERDICTS),
      delayMs: () => 5_000,
    });
    const judge = aiJudge(provider(server, true).chatModel("judge-1"));
    const controller = new AbortController();
    const started = performance.now();
    const pending = judge("p", { signal: controller.signal, schema: VERDICTS_SCHEMA });
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect(performance.now() - started).toBeLessThan(4_000);
    const seen = performance.now();
    while (server.requests[0]?.closed !== true && performance.now() - seen < 4_000) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(server.requests[0]?.aborted).toBe(true);
    expect(formatOf(server.requests[0]?.body ?? {})).toBe("json_schema");
  });
});

describe("aiEmbed over HTTP (@ai-sdk/openai-compatible)", () => {
  it("embeds through /embeddings and reports the server's tokens", async () => {
    server = await startFixtureServer({ embed: (t) => [t.length, 1] });
    const embed = aiEmbed(provider(server).textEmbeddingModel("embed-1"), {
      pricing: { inputPerMillion: 0.02 },
    });
    expect(embed.cacheKey).toBe("fixture.embedding:embed-1");
    const reported: Usage[] = [];
    const vectors = await embed(["one two", "three"], { reportUsage: (u) => reported.push(u) });
    expect(vectors).toEqual([
      [7, 1],
      [5, 1],
    ]);
    // the fixture counts words: 2 + 1 = 3 tokens; 3 × 0.02 / 10⁶ = 6e-8
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ inputTokens: 3, totalTokens: 3 });
    expect(reported[0]?.cost).toBeCloseTo(6e-8, 20);
  });
});
