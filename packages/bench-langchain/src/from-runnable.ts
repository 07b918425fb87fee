import {
  ConfigurationError,
  type EvalSample,
  type QueryEngine,
  type QueryResponse,
  type Usage,
} from "@fastrag/bench-core";
import { describeValue, stringOption } from "@fastrag/bench-core/internal";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { LLMResult } from "@langchain/core/outputs";
import type { RunnableInterface } from "@langchain/core/runnables";
import {
  type DocumentMapping,
  MAPPING_OPTIONS,
  optionsObject,
  readMapping,
  toChunks,
} from "./documents.js";
import { abortable } from "./internal/abortable.js";
import { expectInvokable } from "./internal/invokable.js";

/** Options of {@link fromRunnable}. */
export interface FromRunnableOptions<RunInput = string> extends DocumentMapping {
  /**
   * The key of the chain's output that holds the answer: a string, or a chat message (its text
   * is the answer). Without it, the output itself is the answer (a chain ending in
   * `StringOutputParser`, or in a chat model).
   */
  readonly answer?: string;
  /**
   * The key of the chain's output that holds the retrieved documents (LangChain `Document`s),
   * mapped to chunks as `fromRetriever` maps them. Without it, the engine reports no chunks (and
   * retrieval metrics and `Faithfulness` have nothing to score).
   */
  readonly context?: string;
  /**
   * Builds the chain's input from the question (and the sample, e.g. its metadata). Default: the
   * question string itself.
   */
  readonly input?: (question: string, sample: EvalSample) => NoInfer<RunInput>;
}

const OPTIONS = [...MAPPING_OPTIONS, "answer", "context", "input"];

interface UsageMetadataLike {
  readonly input_tokens?: unknown;
  readonly output_tokens?: unknown;
  readonly total_tokens?: unknown;
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Sums token counts as they come from `usage_metadata` or `llmOutput.tokenUsage`. */
class TokenTally {
  input = 0;
  output = 0;
  total = 0;
  seen = false;

  add(inputTokens: unknown, outputTokens: unknown, totalTokens: unknown): void {
    const i = count(inputTokens);
    const o = count(outputTokens);
    const t = count(totalTokens) ?? (i !== undefined && o !== undefined ? i + o : undefined);
    if (i === undefined && o === undefined && t === undefined) return;
    this.input += i ?? 0;
    this.output += o ?? 0;
    this.total += t ?? (i ?? 0) + (o ?? 0);
    this.seen = true;
  }

  addMetadata(u: UsageMetadataLike | undefined): boolean {
    if (typeof u !== "object" || u === null) return false;
    const before = this.seen;
    this.seen = false;
    this.add(u.input_tokens, u.output_tokens, u.total_tokens);
    const added = this.seen;
    this.seen = before || added;
    return added;
  }

  usage(): Usage | undefined {
    return this.seen
      ? { inputTokens: this.input, outputTokens: this.output, totalTokens: this.total }
      : undefined;
  }
}

/**
 * Collects the token usage of every chat model or LLM that runs inside the chain, as their
 * `usage_metadata` (else `llmOutput.tokenUsage`) reports it. Awaited, so the counts are in
 * before `invoke` returns.
 */
class UsageCollector extends BaseCallbackHandler {
  name = "fastrag-bench-usage";
  readonly tally: TokenTally = new TokenTally();

  constructor() {
    super({ _awaitHandler: true });
  }

  override handleLLMEnd(output: LLMResult): void {
    let fromMessages = false;
    for (const generations of output.generations ?? []) {
      for (const g of generations ?? []) {
        const message = (g as { message?: { usage_metadata?: UsageMetadataLike } }).message;
        if (this.tally.addMetadata(message?.usage_metadata)) fromMessages = true;
      }
    }
    if (fromMessages) return;
    const llm = output.llmOutput as
      | { tokenUsage?: Record<string, unknown>; estimatedTokenUsage?: Record<string, unknown> }
      | undefined;
    const u = llm?.tokenUsage ?? llm?.estimatedTokenUsage;
    if (u !== undefined) this.tally.add(u.promptTokens, u.completionTokens, u.totalTokens);
  }
}

/** The text of a chat message's content, or undefined when `value` is not a message. */
function messageText(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || !("content" in value)) return undefined;
  const content = (value as { content: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  let text = "";
  for (const part of content) {
    if (typeof part === "string") text += part;
    else if (
      typeof part === "object" &&
      part !== null &&
      (part as { type?: unknown }).type === "text"
    ) {
      const t = (part as { text?: unknown }).text;
      if (typeof t === "string") text += t;
    }
  }
  return text;
}

function keysOf(value: unknown): string {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return describeValue(value);
  const keys = Object.keys(value).sort(); // a RunnableMap sets keys in the order its branches finish
  return keys.length === 0 ? "an object with no keys" : `an object with keys ${keys.join(", ")}`;
}

function field(where: string, output: unknown, key: string, option: string): unknown {
  if (typeof output !== "object" || output === null || !(key in output)) {
    throw new ConfigurationError(
      `${where}: the chain's output has no ${JSON.stringify(key)} (the ${option} option); found ${keysOf(output)}`,
      { kind: "invalid-input", field: key },
    );
  }
  return (output as Record<string, unknown>)[key];
}

/**
 * A LangChain.js chain (any `Runnable`, e.g. built with LCEL) as a fastrag bench `QueryEngine`.
 * Each question is `invoke`d with the run's `signal`; the answer is read from the output's
 * `answer` key and the retrieved documents from its `context` key (mapped to chunks as
 * `fromRetriever` maps them). Usage is the sum of the `usage_metadata` of every chat model that
 * ran inside the chain (collected with a callback, so it survives a `StringOutputParser`), and
 * absent when no model reported any.
 *
 * @throws {ConfigurationError} when `runnable` has no `invoke` method or an option is
 * malformed. At run time, an output without the named keys, an answer that is neither a string
 * nor a message, or a document without an id fails the sample with a `ConfigurationError` that
 * names the option to set.
 *
 * @example
 * ```ts
 * import { fromRunnable } from "@fastrag/bench-langchain";
 *
 * // chain: question → { question, context: Document[], answer: string }
 * const engine = fromRunnable(chain, { answer: "answer", context: "context" });
 * const result = await benchmark.run(engine, { name: "lcel-rag" });
 * ```
 */
export function fromRunnable(
  runnable: RunnableInterface<string, unknown>,
  options?: FromRunnableOptions<string>,
): QueryEngine;
/** A chain whose input is not the question string: `input` builds it. */
export function fromRunnable<RunInput>(
  runnable: RunnableInterface<RunInput, unknown>,
  options: FromRunnableOptions<RunInput> & {
    readonly input: (question: string, sample: EvalSample) => NoInfer<RunInput>;
  },
): QueryEngine;
export function fromRunnable<RunInput>(
  runnable: RunnableInterface<RunInput, unknown>,
  options?: FromRunnableOptions<RunInput>,
): QueryEngine {
  const where = "fromRunnable";
  expectInvokable(
    where,
    runnable,
    "a LangChain Runnable (an object with invoke(input, config), e.g. a chain built with LCEL)",
    "runnable",
  );
  const o = optionsObject(where, options, OPTIONS);
  const mapping = readMapping(where, o);
  const answerKey = stringOption(where, "answer", o.answer);
  const contextKey = stringOption(where, "context", o.context);
  if (o.input !== undefined && typeof o.input !== "function") {
    throw new ConfigurationError(
      `${where}: option input must be a function, found ${describeValue(o.input)}`,
      { kind: "invalid-option", option: "input" },
    );
  }
  const makeInput = o.input as FromRunnableOptions<RunInput>["input"];

  return {
    async query(question, { signal, sample }): Promise<QueryResponse> {
      const collector = new UsageCollector();
      const input = makeInput === undefined ? (question as RunInput) : makeInput(question, sample);
      const output: unknown = await abortable(
        runnable.invoke(input, { signal, callbacks: [collector] }),
        signal,
      );
      const raw = answerKey === undefined ? output : field(where, output, answerKey, "answer");
      const answer = typeof raw === "string" ? raw : messageText(raw);
      if (answer === undefined) {
        const at = answerKey === undefined ? "the chain's output" : `output.${answerKey}`;
        throw new ConfigurationError(
          `${where}: expected ${at} to be a string or a chat message, found ${keysOf(raw)}${answerKey === undefined ? "; set the answer option to the key that holds the answer" : ""}`,
          { kind: "invalid-input", field: answerKey ?? "answer" },
        );
      }
      let usage = collector.tally.usage();
      if (usage === undefined && typeof raw === "object" && raw !== null) {
        const tally = new TokenTally();
        tally.addMetadata((raw as { usage_metadata?: UsageMetadataLike }).usage_metadata);
        usage = tally.usage();
      }
      const response: { answer: string; chunks?: QueryResponse["chunks"]; usage?: Usage } = {
        answer,
      };
      if (contextKey !== undefined) {
        response.chunks = toChunks(
          field(where, output, contextKey, "context"),
          mapping,
          `output.${contextKey}`,
        );
      }
      if (usage !== undefined) response.usage = usage;
      return response;
    },
  };
}
