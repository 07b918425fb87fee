// The user's own module that the root README's `bench.config.ts` imports (`./my-rag.js`).
import type { QueryEngine } from "@fastrag/bench-core";

/** Builds one configuration of the user's RAG pipeline. */
export declare function makeEngine(options: {
  chunking: "recursive" | "paragraph";
  size?: number;
}): QueryEngine;
