// The values the README snippets assume the reader already has: their own pipeline, dataset and
// metrics, earlier results, a model client. Typed with the packages' own types, so a snippet that
// passes one where another is expected fails as it would in a user's project. A script (no import
// or export): every declaration is global, and a snippet's own declaration of the same name
// shadows it.

/** A user's query engine (README: `engine`, `hybridEngine`). */
declare const engine: import("@fastrag/bench-core").QueryEngine;
declare const hybridEngine: import("@fastrag/bench-core").QueryEngine;
/** A user's retriever. */
declare const retriever: import("@fastrag/bench-core").Retriever;
declare const bm25Retriever: import("@fastrag/bench-core").Retriever;
/** A loaded dataset and a metric list. */
declare const dataset: import("@fastrag/bench-datasets").QADataset;
declare const metrics: import("@fastrag/bench-core").Metric[];
/** A benchmark built earlier in the README. */
declare const benchmark: import("@fastrag/bench-core").Benchmark;
/** Saved results: one run, and two runs to diff. */
declare const result: import("@fastrag/bench-core").BenchmarkResult;
declare const bm25: import("@fastrag/bench-core").BenchmarkResult;
declare const hybrid: import("@fastrag/bench-core").BenchmarkResult;
/** A comparison of saved results (bench-compare's README builds one first). */
declare const comparison: import("@fastrag/bench-compare").Comparison;
/** Per-sample scores for the statistics functions. */
declare const values: number[];
declare const a: number[];
declare const b: number[];

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
declare const openai: OpenAIStub;
