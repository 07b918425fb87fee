// The run's response cache around the target call: a stored output answers instead of the
// target; only successful outputs are stored.
import type { ResponseCache } from "../cache.js";
import { targetCacheKey } from "../cache-key.js";
import { describeValue } from "../describe-value.js";
import { ConfigurationError } from "../errors.js";
import type { EvalSample, Metadata, RetrievedChunk } from "../types.js";
import { expectOutput, type PipelineOutput, type TargetKind } from "./check-output.js";

/** The run's cache settings, built once per run. */
export interface TargetCache {
  readonly cache: ResponseCache;
  /** Call the target even on a hit, and overwrite the entry. */
  readonly refresh: boolean;
  /** The target's `cacheKey`, else undefined (the run name is used). */
  readonly cacheKey: string | undefined;
  readonly runName: string;
}

/** A stored output: what the target returned (checked again on read) and its latency. */
interface Entry {
  readonly output: unknown;
  readonly latency_ms: number;
}

/**
 * The target's `cacheKey` when the run has a cache: a non-empty string, or absent (the run name is
 * used). Checked by `run` before it opens a checkpoint journal, so a refusal leaves nothing open.
 *
 * @throws {ConfigurationError} of kind `unsupported-target` (`field` `cacheKey`) otherwise.
 */
export function expectCacheKey(cacheKey: unknown, hasCache: boolean): string | undefined {
  if (!hasCache || cacheKey === undefined) return undefined;
  if (typeof cacheKey !== "string" || cacheKey === "") {
    throw new ConfigurationError(
      `Benchmark.run: the target's cacheKey must be a non-empty string, found ${describeValue(cacheKey)}`,
      { kind: "unsupported-target", field: "cacheKey" },
    );
  }
  return cacheKey;
}

/** The key of a sample's output, from the question read when the sample started. */
export function sampleCacheKey<M extends Metadata>(
  tc: TargetCache,
  sample: EvalSample<M>,
  question: string,
  trial?: number,
): string {
  // Trial 0 (and a run without trials) keys as runs always did, so existing caches still hit.
  return targetCacheKey({
    cacheKey: tc.cacheKey,
    runName: tc.runName,
    sample: { id: sample.id, question, metadata: sample.metadata },
    ...(trial === undefined ? {} : { trial }),
  });
}

/**
 * The stored output of `key`, checked as a fresh one is, or `undefined` on a miss (and always
 * with `refresh`). A store that cannot be read throws its error; an entry that is not an output
 * of this kind of target is a `ConfigurationError` (never taken for a miss, which would pay
 * again).
 */
export async function lookUp(
  tc: TargetCache,
  kind: TargetKind,
  key: string,
): Promise<{ output: PipelineOutput; latencyMs: number } | undefined> {
  if (tc.refresh) return undefined;
  const entry = (await tc.cache.get(key)) as Entry | undefined;
  if (entry === undefined) return undefined;
  try {
    if (typeof entry !== "object" || entry === null || typeof entry.latency_ms !== "number") {
      throw new Error("expected { output, latency_ms }");
    }
    return { output: expectOutput(kind, entry.output), latencyMs: entry.latency_ms };
  } catch (error) {
    throw new ConfigurationError(
      `cache entry ${key}: not a stored ${kind === "engine" ? "query engine" : "retriever"} output (${(error as Error).message}); a target of another kind stored under this cacheKey or run name? Change the target's cacheKey, or clear the cache`,
      { kind: "invalid-input", cause: error },
    );
  }
}

/** Stores a successful output: the chunks as plain data, the usage, the latency. */
export async function store(
  tc: TargetCache,
  kind: TargetKind,
  key: string,
  output: PipelineOutput,
  latencyMs: number,
): Promise<void> {
  const chunks = output.chunks.map(plainChunk);
  const stored =
    kind === "retriever"
      ? chunks
      : {
          answer: output.answer,
          ...(output.chunksReported ? { chunks } : {}),
          ...(output.usage !== undefined ? { usage: output.usage } : {}),
        };
  const entry: Entry = { output: stored, latency_ms: latencyMs };
  await tc.cache.set(key, entry);
}

function plainChunk(c: RetrievedChunk): RetrievedChunk {
  const out: { -readonly [K in keyof RetrievedChunk]: RetrievedChunk[K] } = { id: c.id };
  if (c.documentId !== undefined) out.documentId = c.documentId;
  if (c.uri !== undefined && c.uri !== null) out.uri = c.uri;
  if (c.text !== undefined && c.text !== null) out.text = c.text;
  if (c.score !== undefined && c.score !== null) out.score = c.score;
  return out;
}
