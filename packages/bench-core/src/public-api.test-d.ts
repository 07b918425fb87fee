import { describe, expectTypeOf, it } from "vitest";
import {
  Benchmark,
  type BenchmarkResult,
  cached,
  type DistributionSummary,
  type EmbedFunction,
  type EvalSample,
  type JudgeFunction,
  type JudgeReply,
  MemoryCache,
  type Metric,
  type QueryEngine,
  type RetrievedChunk,
  type Retriever,
} from "./index.js";

describe("public types", () => {
  it("carries a sample's metadata type through metrics and targets", () => {
    type Meta = { difficulty: "easy" | "hard" };
    const samples: EvalSample<Meta>[] = [
      { question: "q", expectedAnswers: [], relevantIds: ["d"], metadata: { difficulty: "easy" } },
    ];
    const byDifficulty: Metric<Meta> = {
      name: "hard",
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: false,
      score: ({ sample }) => {
        expectTypeOf(sample.metadata?.difficulty).toEqualTypeOf<"easy" | "hard" | undefined>();
        return sample.metadata?.difficulty === "hard" ? 1 : 0;
      },
    };
    const engine: QueryEngine<Meta> = {
      async query(question, { signal, sample }) {
        expectTypeOf(question).toBeString();
        expectTypeOf(signal).toEqualTypeOf<AbortSignal>();
        expectTypeOf(sample.metadata).toEqualTypeOf<Meta | undefined>();
        return { answer: "a" };
      },
    };
    const b = new Benchmark({ dataset: samples, metrics: [byDifficulty] });
    expectTypeOf(b.run(engine, { name: "x" })).resolves.toEqualTypeOf<BenchmarkResult>();
  });

  it("types retrievers, chunks and summaries", () => {
    expectTypeOf<Retriever["retrieve"]>().returns.resolves.toEqualTypeOf<
      readonly RetrievedChunk[]
    >();
    expectTypeOf<DistributionSummary["mean"]>().toEqualTypeOf<number | null>();
    expectTypeOf<Metric["score"]>().returns.toEqualTypeOf<number | null | Promise<number | null>>();
  });

  it("rejects a metric without a name at compile time", () => {
    // @ts-expect-error: name is required
    const _bad: Metric = {
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: false,
      score: () => 1,
    };
  });
});

describe("cached()", () => {
  it("gives back a function of the judge's or the embedder's own type", () => {
    const cache = new MemoryCache();
    const judge: JudgeFunction = async (prompt) => prompt;
    const embed: EmbedFunction = (texts) => texts.map(() => new Float32Array(3));
    const cachedJudge = cached(judge, { cache, key: "m" });
    const cachedEmbed = cached(embed, { cache, key: "e" });
    expectTypeOf(cachedJudge).toExtend<JudgeFunction>();
    expectTypeOf(cachedEmbed).toExtend<EmbedFunction>();
    expectTypeOf(cachedJudge).returns.toEqualTypeOf<Promise<JudgeReply>>();
    expectTypeOf(cachedEmbed).returns.toEqualTypeOf<Promise<readonly number[][]>>();
    // @ts-expect-error: a function of another shape is not a model function.
    cached((n: number) => n, { cache, key: "x" });
  });
});
