import { Benchmark, type EvalSample } from "@fastrag/bench-core";
import { Tokens } from "@fastrag/bench-metrics/operational";
import { Recall } from "@fastrag/bench-metrics/retrieval";
import type { Document } from "@langchain/core/documents";
import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import {
  RunnableLambda,
  RunnableMap,
  RunnablePassthrough,
  RunnableSequence,
} from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import { store, UsageChatModel } from "./__fixtures__/langchain.js";
import { fromRunnable } from "./index.js";

const sample: EvalSample = {
  id: "q1",
  question: "colosseum rome",
  expectedAnswers: [],
  relevantIds: ["c3"],
};
const call = (signal = new AbortController().signal) => ({ signal, sample });

const prompt = ChatPromptTemplate.fromMessages([
  ["system", "Answer from the context only.\n\n{context}"],
  ["human", "{question}"],
]);

/** An LCEL RAG chain: question → { question, context: Document[], answer: string }. */
async function ragChain(model: UsageChatModel) {
  const retriever = (await store(true)).asRetriever({ k: 2 });
  return RunnableMap.from<string>({
    question: new RunnablePassthrough<string>(),
    context: retriever,
  }).assign({
    answer: RunnableSequence.from([
      (i: { question: string; context: Document[] }) => ({
        question: i.question,
        context: i.context.map((d) => d.pageContent).join("\n"),
      }),
      prompt,
      model,
      new StringOutputParser(),
    ]),
  });
}

const answers = (text: string) =>
  text.includes("colosseum") ? "The Colosseum is in Rome." : "I do not know.";

describe("fromRunnable (an LCEL chain, @langchain/core)", () => {
  it("reads the answer and the documents by key, and the chat model's usage through the parser", async () => {
    const model = new UsageChatModel(answers, { input: 42, output: 7 });
    const engine = fromRunnable(await ragChain(model), {
      answer: "answer",
      context: "context",
      documentIdKey: "doc_id",
    });
    const response = await engine.query("colosseum rome", call());
    expect(response).toEqual({
      answer: "The Colosseum is in Rome.",
      chunks: [
        { id: "c3", documentId: "rome", uri: "corpus/rome.txt", text: "The Colosseum is in Rome." },
        {
          id: "c4",
          documentId: "rome",
          uri: "corpus/rome.txt",
          text: "Rome is the capital of Italy.",
        },
      ],
      usage: { inputTokens: 42, outputTokens: 7, totalTokens: 49 },
    });
  });

  it("sums the usage of every model call in the chain", async () => {
    const model = new UsageChatModel(answers, { input: 30, output: 5 });
    // Rewrite the question with the model, then answer with it: two calls.
    const chain = RunnableSequence.from([
      RunnableLambda.from((q: string) => [["human", q]] as [string, string][]),
      model,
      new StringOutputParser(),
      (rewritten: string) => [["human", `colosseum: ${rewritten}`]] as [string, string][],
      model,
    ]);
    const response = await fromRunnable(chain).query("where?", call());
    expect(model.calls).toBe(2);
    // No answer key: the output is the model's message, whose text is the answer.
    expect(response).toEqual({
      answer: "The Colosseum is in Rome.",
      usage: { inputTokens: 60, outputTokens: 10, totalTokens: 70 },
    });
  });

  it("reports no usage when no model ran", async () => {
    const chain = RunnableLambda.from((q: string) => ({ answer: `echo ${q}` }));
    expect(await fromRunnable(chain, { answer: "answer" }).query("hi", call())).toEqual({
      answer: "echo hi",
    });
  });

  it("builds the chain's input with the input option", async () => {
    const chain = RunnableLambda.from((i: { q: string; id: string | undefined }) => ({
      answer: `${i.id}: ${i.q}`,
    }));
    const engine = fromRunnable(chain, { answer: "answer", input: (q, s) => ({ q, id: s.id }) });
    expect((await engine.query("colosseum rome", call())).answer).toBe("q1: colosseum rome");
  });

  it("names the missing key and the keys found, and the option to set", async () => {
    const model = new UsageChatModel(answers, { input: 1, output: 1 });
    const chain = await ragChain(model);
    await expect(fromRunnable(chain, { answer: "result" }).query("q", call())).rejects.toThrow(
      'fromRunnable: the chain\'s output has no "result" (the answer option); found an object with keys answer, context, question',
    );
    await expect(
      fromRunnable(chain, { answer: "answer", context: "docs" }).query("q", call()),
    ).rejects.toThrow('fromRunnable: the chain\'s output has no "docs" (the context option)');
    await expect(fromRunnable(chain).query("q", call())).rejects.toThrow(
      "fromRunnable: expected the chain's output to be a string or a chat message, found an object with keys answer, context, question; set the answer option to the key that holds the answer",
    );
    const noIds = RunnableLambda.from(async () => ({
      answer: "a",
      context: await (await store(false)).similaritySearch("rome", 1),
    }));
    await expect(
      fromRunnable(noIds, { answer: "answer", context: "context" }).query("q", call()),
    ).rejects.toThrow(
      /fromRunnable: output.context\[0\] \("The Colosseum is in Rome."\) has no id: .*idKey/,
    );
  });

  it("runs in a Benchmark: recall from the documents, tokens from usage", async () => {
    const model = new UsageChatModel(answers, { input: 42, output: 7 });
    const engine = fromRunnable(await ragChain(model), { answer: "answer", context: "context" });
    const result = await new Benchmark({
      dataset: [
        sample,
        { id: "q2", question: "eiffel tower", expectedAnswers: [], relevantIds: ["c1"] },
      ],
      metrics: [new Recall({ k: 1 }), new Tokens()],
    }).run(engine, { name: "lcel" });
    expect(result.samples.map((s) => [s.answer, s.scores])).toEqual([
      ["The Colosseum is in Rome.", { "recall@1": 1, tokens: 49 }],
      ["I do not know.", { "recall@1": 1, tokens: 49 }],
    ]);
  });

  it("gives up the call when the run's signal aborts", async () => {
    const chain = RunnableLambda.from(async () => {
      await new Promise((r) => setTimeout(r, 5_000));
      return { answer: "late" };
    });
    const controller = new AbortController();
    const started = performance.now();
    const pending = fromRunnable(chain, { answer: "answer" }).query("q", call(controller.signal));
    setTimeout(() => controller.abort(new Error("run aborted")), 50);
    await expect(pending).rejects.toThrow("run aborted");
    // Well under the chain's 5 s, with room for a loaded machine.
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  it("refuses what is not a runnable and malformed options", () => {
    expect(() => fromRunnable(null as never)).toThrow(
      /fromRunnable: expected a LangChain Runnable .* found null/,
    );
    const chain = RunnableLambda.from((q: string) => q);
    expect(() => fromRunnable(chain, { anwser: "a" } as never)).toThrow(/unknown option "anwser"/);
    expect(() => fromRunnable(chain, { input: "q" } as never)).toThrow(
      'fromRunnable: option input must be a function, found the string "q"',
    );
  });
});
