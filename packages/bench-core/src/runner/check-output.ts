// Checking a target and its output: which kind of target it is, and whether what it returned is
// an answer and chunks the record and the metrics can trust.

import { describeValue } from "../describe-value.js";
import { ConfigurationError } from "../errors.js";
import { expectSpecificationVersion } from "../internal/specification-version.js";
import type { Judgments, Metadata, Metric, RetrievedChunk, Usage } from "../types.js";

export type TargetKind = "engine" | "retriever";

export interface PipelineOutput {
  readonly answer: string | null;
  readonly chunks: readonly RetrievedChunk[];
  /**
   * The chunks' ids and uris as validated, read once: the record keeps what the target returned
   * even if a getter answers differently later or a metric edits the array it is handed.
   */
  readonly ids: string[];
  readonly uris: (string | null)[];
  /** False when a query engine returned no `chunks` at all (as opposed to an empty list). */
  readonly chunksReported: boolean;
  readonly usage: Usage | undefined;
  /** In a rescore: the judgments the record kept, replayed by the judge metrics with no call. */
  readonly keptJudgments?: Judgments | undefined;
}

export class MalformedOutputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MalformedOutputError";
  }
}

/**
 * Checks a target's output and reads what the record keeps. Every property is read once: an
 * accessor that answers differently on a second read cannot slip a non-string into the record.
 */
export function expectOutput(kind: TargetKind, raw: unknown): PipelineOutput {
  if (kind === "retriever") {
    const { chunks, ids, uris } = expectChunks(raw, "retrieve() result");
    return { answer: null, chunks, ids, uris, chunksReported: true, usage: undefined };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new MalformedOutputError(
      `query() returned ${describeValue(raw)}, expected { answer: string, chunks?, usage? }`,
    );
  }
  const r = raw as Record<string, unknown>;
  const answer = r.answer;
  if (typeof answer !== "string") {
    throw new MalformedOutputError(
      `query() returned answer ${describeValue(answer)}, expected a string`,
    );
  }
  const rawChunks = r.chunks;
  const reported = rawChunks !== undefined && rawChunks !== null;
  const { chunks, ids, uris } = reported
    ? expectChunks(rawChunks, "query() chunks")
    : { chunks: [], ids: [], uris: [] };
  const rawUsage = r.usage;
  let usage: Usage | undefined;
  if (rawUsage !== undefined && rawUsage !== null) {
    if (typeof rawUsage !== "object" || Array.isArray(rawUsage)) {
      throw new MalformedOutputError(
        `query() returned usage ${describeValue(rawUsage)}, expected an object`,
      );
    }
    usage = rawUsage as Usage;
  }
  return { answer, chunks, ids, uris, chunksReported: reported, usage };
}

/**
 * The most chunks one sample may return. A ranked list is cut at k for scoring, and trec_eval
 * reads 1,000 per query by default; every chunk's id and uri is kept in the result and the
 * journal, so an uncapped list (a retriever returning its whole index) would make each sample's
 * record hundreds of megabytes and the run's memory grow without bound.
 */
export const MAX_CHUNKS = 10_000;

/** Checks a list of chunks, reading each chunk's id and uri once for the record. */
export function expectChunks(
  raw: unknown,
  where: string,
): { chunks: readonly RetrievedChunk[]; ids: string[]; uris: (string | null)[] } {
  if (!Array.isArray(raw))
    throw new MalformedOutputError(
      `${where} is ${describeValue(raw)}, expected an array of chunks`,
    );
  const n = raw.length;
  if (n > MAX_CHUNKS) {
    throw new MalformedOutputError(
      `${where} holds ${n.toLocaleString("en-US")} chunks, more than the ${MAX_CHUNKS.toLocaleString("en-US")} a sample may return (each is kept in the result and the journal: a million would make one sample's record 150 MB); return the top k`,
    );
  }
  const ids: string[] = new Array(n);
  const uris: (string | null)[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const c = raw[i] as Record<string, unknown> | null;
    if (typeof c !== "object" || c === null) {
      throw new MalformedOutputError(
        `${where}[${i}] is ${describeValue(c)}, expected a chunk { id: string, … }`,
      );
    }
    const id = c.id;
    if (typeof id !== "string") {
      throw new MalformedOutputError(
        `${where}[${i}].id is ${describeValue(id)}, expected a string`,
      );
    }
    const documentId = c.documentId;
    if (documentId !== undefined && typeof documentId !== "string") {
      throw new MalformedOutputError(
        `${where}[${i}].documentId is ${describeValue(documentId)}, expected a string`,
      );
    }
    const uri = c.uri;
    if (uri !== undefined && uri !== null && typeof uri !== "string") {
      throw new MalformedOutputError(
        `${where}[${i}].uri is ${describeValue(uri)}, expected a string`,
      );
    }
    // Read by metrics (a judge quotes the text) and kept by targets: a score of "high" or a text
    // that is no string is a target's bug, reported here rather than inside a metric.
    const score = c.score;
    if (score !== undefined && score !== null && typeof score !== "number") {
      throw new MalformedOutputError(
        `${where}[${i}].score is ${describeValue(score)}, expected a number`,
      );
    }
    const text = c.text;
    if (text !== undefined && text !== null && typeof text !== "string") {
      throw new MalformedOutputError(
        `${where}[${i}].text is ${describeValue(text)}, expected a string`,
      );
    }
    ids[i] = id;
    uris[i] = (uri as string | null | undefined) ?? null;
  }
  return { chunks: raw as RetrievedChunk[], ids, uris };
}

/**
 * An object with `query` is a QueryEngine; with only `retrieve`, a Retriever. A `query` or
 * `retrieve` that is there but not a function (`{ query: "gpt-4o", retrieve }`) is refused, never
 * taken for the other kind. A property set to `undefined` or `null` (an optional one, or a class
 * field, left unset) counts as absent.
 */
export function detectTarget(target: unknown): TargetKind {
  if (typeof target === "object" && target !== null) {
    const t = target as Record<string, unknown>;
    if (t.query !== undefined && t.query !== null) {
      if (typeof t.query === "function") return versioned(t, "engine");
      throw new ConfigurationError(
        `Benchmark.run: the target's query is ${describeValue(t.query)}; a QueryEngine's query must be a function, query(question, { signal, sample }) → Promise<{ answer, chunks? }>${typeof t.retrieve === "function" ? " (a target with query is an engine even when it has retrieve(): remove query to use it as a Retriever)" : ""}`,
        { kind: "unsupported-target" },
      );
    }
    if (t.retrieve !== undefined && t.retrieve !== null) {
      if (typeof t.retrieve === "function") return versioned(t, "retriever");
      throw new ConfigurationError(
        `Benchmark.run: the target's retrieve is ${describeValue(t.retrieve)}; a Retriever's retrieve must be a function, retrieve(query, { signal, sample }) → Promise<RetrievedChunk[]>`,
        { kind: "unsupported-target" },
      );
    }
  }
  throw new ConfigurationError(
    `Benchmark.run: the target is ${describeValue(target)}; expected a QueryEngine (an object with query(question, { signal, sample })) or a Retriever (an object with retrieve(query, { signal, sample }))`,
    { kind: "unsupported-target" },
  );
}

/** A target's kind, once its contract version is one this core runs. */
function versioned(target: Record<string, unknown>, kind: TargetKind): TargetKind {
  expectSpecificationVersion(target.specificationVersion, {
    where: "Benchmark.run: the target",
    contract: "targets",
    kind: "unsupported-target",
  });
  return kind;
}

/**
 * A bare Retriever gives no answer: refused before any sample runs when a metric needs one.
 *
 * @throws {ConfigurationError} naming the metrics that need an answer.
 */
export function expectTargetServesMetrics(
  kind: TargetKind,
  metrics: readonly Metric<Metadata>[],
  name: string,
): void {
  if (kind === "retriever") {
    const needy = metrics.filter((m) => m.needsAnswer).map((m) => m.name);
    if (needy.length > 0) {
      throw new ConfigurationError(
        `Benchmark.run("${name}"): the target is a Retriever (it has retrieve() but no query()), and ${needy.join(", ")} ${needy.length === 1 ? "needs" : "need"} an answer. Pass a QueryEngine or drop ${needy.length === 1 ? "that metric" : "those metrics"}`,
        { kind: "unsupported-target" },
      );
    }
  }
}
