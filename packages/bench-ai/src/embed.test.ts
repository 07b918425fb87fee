import {
  type CallLimiter,
  ConfigurationError,
  type EvalSample,
  type Usage,
} from "@fastrag/bench-core";
import { SemanticSimilarity } from "@fastrag/bench-metrics/generation";
import { describe, expect, it } from "vitest";
import { embeddingModel, SPEC } from "./__fixtures__/mock-models.js";
import { aiEmbed } from "./index.js";

const axis: Record<string, number[]> = {
  "In Paris.": [1, 0],
  Paris: [0.6, 0.8],
  Rome: [0, 1],
};

describe(`aiEmbed (AI SDK test models, spec ${SPEC})`, () => {
  it("embeds the texts in order, reports tokens and cost once per call", async () => {
    const model = embeddingModel((t) => axis[t] ?? [0, 0], 8);
    const reported: Usage[] = [];
    const embed = aiEmbed(model, { pricing: { inputPerMillion: 0.02 } });
    const vectors = await embed(["Paris", "Rome"], { reportUsage: (u) => reported.push(u) });
    expect(vectors).toEqual([
      [0.6, 0.8],
      [0, 1],
    ]);
    // 8 tokens × 0.02 / 10⁶
    expect(reported).toEqual([{ inputTokens: 8, totalTokens: 8, cost: 1.6e-7 }]);
    expect(model.doEmbedCalls[0].values).toEqual(["Paris", "Rome"]);
  });

  it("reports an empty usage when the provider reports no tokens (the call still counts)", async () => {
    const reported: Usage[] = [];
    await aiEmbed(embeddingModel(() => [1], undefined))(["x"], {
      reportUsage: (u) => reported.push(u),
    });
    expect(reported).toEqual([{}]);
  });

  it("has a cache key of provider and model id", () => {
    const model = embeddingModel(() => [1], 1);
    expect(aiEmbed(model).cacheKey).toBe("mock-provider:embed-1");
    expect(aiEmbed(model, { providerOptions: { openai: { dimensions: 256 } } }).cacheKey).toMatch(
      /^mock-provider:embed-1#[0-9a-f]{16}$/,
    );
  });

  it("runs through the run's limiter and passes the signal", async () => {
    const model = embeddingModel(() => [1, 0], 3);
    const estimates: (number | undefined)[] = [];
    const limiter: CallLimiter = {
      run(call, options) {
        estimates.push(options?.estimatedTokens);
        return call();
      },
    };
    const controller = new AbortController();
    await aiEmbed(model)(["abcdefgh", "abcd"], { limiter, signal: controller.signal });
    expect(estimates).toEqual([3]); // 12 characters / 4
    controller.abort();
    expect(model.doEmbedCalls[0].abortSignal?.aborted).toBe(true);
  });

  it("drives SemanticSimilarity: the cosine of the answer and the closest reference", async () => {
    const embed = aiEmbed(embeddingModel((t) => axis[t] ?? [0, 0], 4));
    const sample: EvalSample = {
      question: "q",
      expectedAnswers: ["Paris", "Rome"],
      relevantIds: [],
    };
    const score = await new SemanticSimilarity({ embed }).score({
      sample,
      answer: "In Paris.",
      retrieved: [],
      latencyMs: 0,
    });
    // cos([1,0],[0.6,0.8]) = 0.6, cos([1,0],[0,1]) = 0: the closest is 0.6
    expect(score).toBeCloseTo(0.6, 12);
  });

  it("refuses what is not an embedding model and malformed options", () => {
    const model = embeddingModel(() => [1], 1);
    const cases: [() => unknown, RegExp][] = [
      [
        () => aiEmbed({ provider: "p", modelId: "m" } as never),
        /aiEmbed: expected an AI SDK embedding model/,
      ],
      [() => aiEmbed(model, { pricing: {} as never }), /pricing needs inputPerMillion/],
      [
        () => aiEmbed(model, { pricing: { inputPerMillion: 1, outputPerMillion: 2 } as never }),
        /unknown option "outputPerMillion"/,
      ],
      [
        () => aiEmbed(model, { maxRetries: -1 }),
        /option maxRetries must be an integer from 0 to 100, found the number -1/,
      ],
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
});
