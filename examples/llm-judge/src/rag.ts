/**
 * The pipeline under test: a small RAG engine. Keyword retrieval over `data/corpus.json` (a
 * passage scores the number of distinct question words it contains, stop words aside; ties keep
 * corpus order), then an AI SDK model answers from the top `k` passages.
 */
import { readFileSync } from "node:fs";
import type { QueryEngine, RetrievedChunk, Usage } from "@fastrag/bench-core";
import { generateText, type LanguageModel } from "ai";

interface Passage {
  readonly id: string;
  readonly document_id: string;
  readonly text: string;
}

export const CORPUS: readonly Passage[] = JSON.parse(
  readFileSync(new URL("../data/corpus.json", import.meta.url), "utf8"),
) as Passage[];

const STOP = new Set([
  "a",
  "an",
  "and",
  "does",
  "how",
  "in",
  "into",
  "is",
  "of",
  "the",
  "what",
  "where",
  "which",
]);

function terms(text: string): Set<string> {
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return new Set(words.filter((w) => !STOP.has(w)));
}

/** The top `k` passages for a question, best first. */
export function keywordSearch(question: string, k: number): RetrievedChunk[] {
  const q = terms(question);
  return CORPUS.map((p, i) => {
    const t = terms(p.text);
    let score = 0;
    for (const w of q) if (t.has(w)) score++;
    return { p, i, score };
  })
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, k)
    .map(({ p, score }) => ({ id: p.id, documentId: p.document_id, text: p.text, score }));
}

/** Prices per million tokens, for the pipeline's reported cost. */
export interface Pricing {
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
}

/** The RAG engine: retrieve `k` passages, answer from them with `model`. */
export function ragEngine(
  model: LanguageModel,
  options: { k: number; pricing: Pricing },
): QueryEngine {
  return {
    async query(question, { signal }) {
      const chunks = keywordSearch(question, options.k);
      const context = chunks.map((c, i) => `[${i + 1}] ${c.text}`).join("\n");
      const reply = await generateText({
        model,
        temperature: 0,
        abortSignal: signal,
        system: "Answer the question in one or two sentences, from the context only.",
        prompt: `<context>\n${context}\n</context>\n\nQuestion: ${question}`,
      });
      const input = reply.usage.inputTokens ?? 0;
      const output = reply.usage.outputTokens ?? 0;
      const usage: Usage = {
        inputTokens: input,
        outputTokens: output,
        totalTokens: input + output,
        cost:
          (input * options.pricing.inputPerMillion + output * options.pricing.outputPerMillion) /
          1e6,
      };
      return { answer: reply.text, chunks, usage };
    },
  };
}
