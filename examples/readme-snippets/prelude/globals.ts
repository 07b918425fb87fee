// The values the README snippets assume the reader already has: their own pipeline, dataset and
// metrics, earlier results, a model client. Typed with the packages' own types, so a snippet that
// passes one where another is expected fails as it would in a user's project. Declared global; a
// snippet's own declaration of the same name shadows it.
//
// A `.ts` module, not a `.d.ts`: `skipLibCheck` skips declaration files, so a type renamed in a
// package would silently turn a `.d.ts` stub into `any`; here it is a compile error.

import type { Comparison } from "@fastrag/bench-compare";
import type {
  Benchmark,
  BenchmarkResult,
  Metric,
  QueryEngine,
  Retriever,
} from "@fastrag/bench-core";
import type { QADataset } from "@fastrag/bench-datasets";
import type { JudgeFunction } from "@fastrag/bench-metrics/generation";
import type { DocumentInterface } from "@langchain/core/documents";
import type { Runnable } from "@langchain/core/runnables";
import type { VectorStore } from "@langchain/core/vectorstores";

/** The part of the `openai` package's client that the judge example calls. */
interface OpenAIStub {
  chat: {
    completions: {
      create(
        body: {
          model: string;
          temperature?: number;
          messages: { role: "system" | "user" | "assistant"; content: string }[];
        },
        options?: { signal?: AbortSignal },
      ): Promise<{ choices: { message: { content: string | null } }[] }>;
    };
  };
}

declare global {
  /** A user's query engine (README: `engine`, `hybridEngine`). */
  const engine: QueryEngine;
  const hybridEngine: QueryEngine;
  /** A user's retriever. */
  const retriever: Retriever;
  const bm25Retriever: Retriever;
  /** A loaded dataset and a metric list. */
  const dataset: QADataset;
  const metrics: Metric[];
  /** A benchmark built earlier in the README. */
  const benchmark: Benchmark;
  /** Saved results: one run, and two runs to diff. */
  const result: BenchmarkResult;
  const bm25: BenchmarkResult;
  const hybrid: BenchmarkResult;
  /** A comparison of saved results (bench-compare's README builds one first). */
  const comparison: Comparison;
  /** Per-sample scores for the statistics functions. */
  const values: number[];
  const a: number[];
  const b: number[];
  /** An `openai` client (`new OpenAI()`). */
  const openai: OpenAIStub;
  /** A judge function for the judge metrics. */
  const judge: JudgeFunction;
  /** A LangChain.js vector store, and an LCEL RAG chain (bench-langchain's README). */
  const vectorStore: VectorStore;
  const chain: Runnable<string, { question: string; context: DocumentInterface[]; answer: string }>;
}
