import type { QueryEngine, Retriever } from "@fastrag/bench-core";
import { RunnableLambda } from "@langchain/core/runnables";
import { describe, expectTypeOf, it } from "vitest";
import { fromRetriever, fromRunnable } from "./index.js";

describe("public types", () => {
  it("a chain on the question string needs no input option", () => {
    const chain = RunnableLambda.from((q: string) => ({ answer: q }));
    expectTypeOf(fromRunnable(chain, { answer: "answer" })).toEqualTypeOf<QueryEngine>();
  });

  it("a chain on another input needs an input option that builds it", () => {
    const chain = RunnableLambda.from((i: { question: string; product: string }) => ({
      answer: i.question,
    }));
    // @ts-expect-error: the chain does not take the question string
    fromRunnable(chain, { answer: "answer" });
    fromRunnable(chain, {
      answer: "answer",
      input: (question, sample) => ({ question, product: String(sample.metadata?.product) }),
    });
    // @ts-expect-error: input must build what the chain takes
    fromRunnable(chain, { answer: "answer", input: (question) => ({ question }) });
  });

  it("a retriever is a Retriever", () => {
    const r = fromRetriever({ invoke: async () => [] } as never);
    expectTypeOf(r).toEqualTypeOf<Retriever>();
  });
});
