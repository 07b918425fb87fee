/**
 * `@fastrag/bench-core/testing`: small, deterministic stand-ins for writing tests of a metric or a
 * pipeline against fastrag bench without a model, an index or a dataset file.
 *
 * @example
 * ```ts
 * import { Benchmark } from "@fastrag/bench-core";
 * import { fakeDataset, fakeEngine, metricInput } from "@fastrag/bench-core/testing";
 *
 * expect(myMetric.score(metricInput({ answer: "Paris", expectedAnswers: ["Paris"] }))).toBe(1);
 *
 * const dataset = fakeDataset([{ question: "capital of France?", expectedAnswers: ["Paris"] }]);
 * const engine = fakeEngine({ "capital of France?": { answer: "Paris", chunks: ["d1"] } });
 * const result = await new Benchmark({ dataset, metrics: [myMetric] }).run(engine, { name: "t" });
 * ```
 *
 * @packageDocumentation
 */
import type {
  EmbedFunction,
  EvalSample,
  JudgeCallOptions,
  JudgeFunction,
  JudgeReply,
  Metadata,
  MetricInput,
  QueryEngine,
  QueryResponse,
  RetrievedChunk,
  Retriever,
  Usage,
} from "./types.js";

/** A sample as {@link fakeDataset} and {@link metricInput} take it: every field optional. */
export interface FakeSample<M extends Metadata = Metadata> {
  readonly id?: string;
  readonly question?: string;
  readonly expectedAnswers?: readonly string[];
  readonly relevantIds?: readonly string[];
  readonly relevance?: Readonly<Record<string, number>>;
  readonly metadata?: M;
}

/** A chunk given by its id alone, or in full. */
export type FakeChunk = string | RetrievedChunk;

function chunkOf(chunk: FakeChunk): RetrievedChunk {
  return typeof chunk === "string" ? { id: chunk } : chunk;
}

function sampleOf<M extends Metadata>(s: FakeSample<M>, index: number): EvalSample<M> {
  const sample: {
    id?: string;
    question: string;
    expectedAnswers: readonly string[];
    relevantIds: readonly string[];
    relevance?: Readonly<Record<string, number>>;
    metadata?: M;
  } = {
    id: s.id ?? `q${index + 1}`,
    question: s.question ?? `question ${index + 1}`,
    expectedAnswers: s.expectedAnswers ?? [],
    relevantIds: s.relevantIds ?? [],
  };
  if (s.relevance !== undefined) sample.relevance = s.relevance;
  if (s.metadata !== undefined) sample.metadata = s.metadata;
  return sample;
}

/**
 * A dataset (an object with `samples`, as a `QADataset` is) built from partial samples, or from a
 * count. Missing ids are `q1`, `q2`, …; missing questions `question 1`, `question 2`, …; missing
 * answers and relevant ids are empty.
 */
export function fakeDataset<M extends Metadata = Metadata>(
  samples: number | readonly FakeSample<M>[],
): { readonly samples: readonly EvalSample<M>[] } {
  const given: readonly FakeSample<M>[] =
    typeof samples === "number" ? Array.from({ length: samples }, () => ({})) : samples;
  return { samples: given.map(sampleOf) };
}

/** What a fake target gives for one sample: an answer with chunks, or a thrown error. */
export interface FakeReply {
  readonly answer?: string;
  readonly chunks?: readonly FakeChunk[];
  readonly usage?: Usage;
  /** When set, the call rejects with this error instead. */
  readonly error?: Error;
  /** Milliseconds to wait before replying (an abort of the run ends the wait at once). */
  readonly delayMs?: number;
}

/** Replies keyed by sample id or question, or a function of the sample. */
export type FakeReplies<M extends Metadata = Metadata> =
  | Readonly<Record<string, FakeReply>>
  | ((sample: EvalSample<M>) => FakeReply);

function replyFor<M extends Metadata>(
  replies: FakeReplies<M>,
  sample: EvalSample<M>,
): FakeReply | undefined {
  if (typeof replies === "function") return replies(sample);
  if (sample.id !== undefined && Object.hasOwn(replies, sample.id)) return replies[sample.id];
  return Object.hasOwn(replies, sample.question) ? replies[sample.question] : undefined;
}

async function settle(reply: FakeReply, signal: AbortSignal): Promise<void> {
  if (reply.delayMs !== undefined && reply.delayMs > 0) {
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      }, reply.delayMs);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
  if (reply.error !== undefined) throw reply.error;
}

/** A fake target that also remembers the questions it was asked, in call order. */
export interface Recorded {
  /** The questions received, in the order the calls started. */
  readonly calls: readonly string[];
}

/**
 * A `QueryEngine` that answers from `replies` (by sample id, else by question, or a function of the
 * sample). A sample with no reply gets the answer `""` and no chunks.
 */
export function fakeEngine<M extends Metadata = Metadata>(
  replies: FakeReplies<M> = {},
): QueryEngine<M> & Recorded {
  const calls: string[] = [];
  return {
    calls,
    async query(question, { signal, sample }): Promise<QueryResponse> {
      calls.push(question);
      const reply = replyFor(replies, sample) ?? {};
      await settle(reply, signal);
      const response: { answer: string; chunks?: RetrievedChunk[]; usage?: Usage } = {
        answer: reply.answer ?? "",
      };
      if (reply.chunks !== undefined) response.chunks = reply.chunks.map(chunkOf);
      if (reply.usage !== undefined) response.usage = reply.usage;
      return response;
    },
  };
}

/**
 * A `Retriever` that returns the chunks of `replies` (by sample id, else by question, or a
 * function of the sample). A sample with no reply retrieves nothing.
 */
export function fakeRetriever<M extends Metadata = Metadata>(
  replies: FakeReplies<M> = {},
): Retriever<M> & Recorded {
  const calls: string[] = [];
  return {
    calls,
    async retrieve(query, { signal, sample }): Promise<RetrievedChunk[]> {
      calls.push(query);
      const reply = replyFor(replies, sample) ?? {};
      await settle(reply, signal);
      return (reply.chunks ?? []).map(chunkOf);
    },
  };
}

/** What {@link metricInput} takes: the sample's fields and the target's output, all optional. */
export interface MetricInputParts<M extends Metadata = Metadata> extends FakeSample<M> {
  /** The engine's answer; `null` (the default) as for a bare retriever. */
  readonly answer?: string | null;
  /** The retrieved chunks in rank order, as ids or in full. */
  readonly retrieved?: readonly FakeChunk[];
  readonly latencyMs?: number;
  readonly usage?: Usage;
  readonly signal?: AbortSignal;
}

/**
 * The `MetricInput` a metric's `score` receives, built from the parts a test cares about. The
 * sample is `{ id: "q1", question: "question 1", expectedAnswers: [], relevantIds: [] }` unless
 * given; `answer` is `null`, `retrieved` empty and `latencyMs` 0 unless given.
 *
 * @example
 * ```ts
 * metricInput({ relevantIds: ["a", "b"], retrieved: ["x", "a"] }); // a at rank 2
 * ```
 */
export function metricInput<M extends Metadata = Metadata>(
  parts: MetricInputParts<M> = {},
): MetricInput<M> {
  const input: {
    sample: EvalSample<M>;
    answer: string | null;
    retrieved: readonly RetrievedChunk[];
    latencyMs: number;
    usage?: Usage;
    signal?: AbortSignal;
  } = {
    sample: sampleOf(parts, 0),
    answer: parts.answer ?? null,
    retrieved: (parts.retrieved ?? []).map(chunkOf),
    latencyMs: parts.latencyMs ?? 0,
  };
  if (parts.usage !== undefined) input.usage = parts.usage;
  if (parts.signal !== undefined) input.signal = parts.signal;
  return input;
}

/** One call a {@link scriptedJudge} received. */
export interface ScriptedCall {
  readonly step: string | undefined;
  readonly metric: string | undefined;
  readonly input: Readonly<Record<string, unknown>> | undefined;
  readonly attempt: number | undefined;
  readonly prompt: string;
}

/** What a step's function of a {@link scriptedJudge} is handed besides the input. */
export interface ScriptedCallInfo {
  readonly attempt: number;
  readonly metric: string | undefined;
  readonly prompt: string;
  readonly signal: AbortSignal;
}

/**
 * A step's answer: a reply object (or text, to test how replies are parsed) from the step's input.
 * The input is typed loosely: each step's input is fixed by DESIGN §11 (`statements` gets
 * `{question, answer}`, `verdicts` gets `{context, statements}`, …).
 */
export type ScriptedStep = (
  // biome-ignore lint/suspicious/noExplicitAny: a step's input shape is the step's, not one type
  input: any,
  info: ScriptedCallInfo,
) => JudgeReply | Promise<JudgeReply>;

/** A judge made by {@link scriptedJudge}: a `JudgeFunction` that records its calls. */
export interface ScriptedJudge extends JudgeFunction {
  /** Every call, in the order they started. */
  readonly calls: readonly ScriptedCall[];
  /** The model key the run's cache stores this judge's replies under. */
  readonly cacheKey: string;
  /** How many calls asked `step` (every step when omitted). */
  count(step?: string): number;
}

/**
 * A judge for tests that answers from the step's name and structured input (DESIGN §11), never
 * reading the prompt: one function per step. A step without a function throws an `Error` naming
 * it, so a test learns at once that a metric asked something unexpected. With `usage`, each
 * call reports that usage through the metric's `reportUsage`.
 *
 * @example
 * ```ts
 * const judge = scriptedJudge({
 *   statements: ({ answer }) => ({ statements: answer.split(". ") }),
 *   verdicts: ({ context, statements }) => ({
 *     verdicts: statements.map((s: string) => ({
 *       statement: s, reason: "", verdict: context.includes(s) ? 1 : 0,
 *     })),
 *   }),
 * });
 * const score = await new Faithfulness({ judge }).score(input);
 * expect(judge.count("statements")).toBe(1);
 * ```
 */
export function scriptedJudge(
  steps: Readonly<Record<string, ScriptedStep>>,
  options: { readonly cacheKey?: string; readonly usage?: Usage } = {},
): ScriptedJudge {
  const calls: ScriptedCall[] = [];
  const judge = (async (prompt: string, o: JudgeCallOptions): Promise<JudgeReply> => {
    calls.push({
      step: o.step,
      metric: o.metric,
      input: o.input,
      attempt: o.attempt,
      prompt,
    });
    const step = o.step === undefined ? undefined : steps[o.step];
    if (step === undefined || !Object.hasOwn(steps, o.step as string)) {
      throw new Error(`scriptedJudge: no answer for step ${JSON.stringify(o.step)}`);
    }
    if (options.usage !== undefined) o.reportUsage?.(options.usage);
    return step(o.input ?? {}, {
      attempt: o.attempt ?? 0,
      metric: o.metric,
      prompt,
      signal: o.signal,
    });
  }) as ScriptedJudge;
  Object.defineProperties(judge, {
    calls: { value: calls, enumerable: true },
    cacheKey: { value: options.cacheKey ?? "scripted-judge", enumerable: true },
    count: {
      value: (name?: string) =>
        name === undefined ? calls.length : calls.filter((c) => c.step === name).length,
    },
  });
  return judge;
}

/** An embedder made by {@link fakeEmbed}, recording the texts of each call. */
export interface FakeEmbed extends EmbedFunction {
  readonly calls: readonly (readonly string[])[];
  readonly cacheKey: string;
}

/**
 * An embedding function for tests: the vector of each text from `vectors` (by text, or a function
 * of the text). A text without a vector throws an `Error` naming it.
 */
export function fakeEmbed(
  vectors: Readonly<Record<string, readonly number[]>> | ((text: string) => readonly number[]),
  options: { readonly cacheKey?: string } = {},
): FakeEmbed {
  const calls: (readonly string[])[] = [];
  const embed = (async (texts: readonly string[]) => {
    calls.push([...texts]);
    return texts.map((t) => {
      const v =
        typeof vectors === "function"
          ? vectors(t)
          : Object.hasOwn(vectors, t)
            ? vectors[t]
            : undefined;
      if (v === undefined) throw new Error(`fakeEmbed: no vector for ${JSON.stringify(t)}`);
      return [...v];
    });
  }) as unknown as FakeEmbed;
  Object.defineProperties(embed, {
    calls: { value: calls, enumerable: true },
    cacheKey: { value: options.cacheKey ?? "fake-embed", enumerable: true },
  });
  return embed;
}
