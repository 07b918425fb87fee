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
  EvalSample,
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
