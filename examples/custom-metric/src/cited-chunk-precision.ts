import { ConfigurationError, type Metric, type MetricInput } from "@fastrag/bench-core";
import { expectMatchLevel, expectMetricName, expectOptions } from "@fastrag/bench-metrics/kit";
import { citedIds, DEFAULT_CITATION_PATTERN } from "./citations.js";

/** Options of {@link CitedChunkPrecision}. */
export interface CitedChunkPrecisionOptions {
  /**
   * How citations look in answers. Must be global (`g`) and capture the cited id (or a
   * comma-separated list of ids) in group 1. Default: `[doc-3]` and `[doc-3, doc-7]`.
   */
  readonly pattern?: RegExp;
  /**
   * Whether a citation names a chunk (`"chunk"`, default: matched against `RetrievedChunk.id`) or
   * a document (`"document"`: matched against `RetrievedChunk.documentId`).
   */
  readonly level?: "chunk" | "document";
  /** Overrides the metric's name. Default `"cited_chunk_precision"`. */
  readonly name?: string;
}

/**
 * `cited_chunk_precision`: of the ids an answer cites, the share that the pipeline actually
 * retrieved for this question.
 *
 * A generator that cites `[doc-9]` when doc-9 was never in its context is inventing a source: the
 * answer may read well and still be unverifiable. 1 means every citation points at a retrieved
 * chunk; 0 means none does. Each distinct id counts once.
 *
 * `null` (not scorable) when the answer cites nothing: that is a different failure, best measured
 * by its own metric, and scoring it 0 or 1 here would blur both.
 *
 * @example
 * ```ts
 * const benchmark = new Benchmark({ dataset, metrics: [new CitedChunkPrecision(), new Recall({ k: 5 })] });
 * ```
 */
export class CitedChunkPrecision implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = true;
  readonly level: "chunk" | "document";
  private readonly pattern: RegExp;

  /**
   * @throws {ConfigurationError} when `pattern` is not a global RegExp with a capture group, or
   * `level` is neither `"chunk"` nor `"document"`.
   */
  constructor(options: CitedChunkPrecisionOptions = {}) {
    // The kit checks the options every metric shares (as the built-in metrics do); the pattern
    // is this metric's own.
    const o = expectOptions("CitedChunkPrecision", options, {
      known: ["pattern", "level", "name"],
    });
    const pattern = o.pattern ?? DEFAULT_CITATION_PATTERN;
    if (!(pattern instanceof RegExp) || !pattern.global) {
      throw new ConfigurationError(
        `CitedChunkPrecision: option pattern must be a global RegExp (with the g flag), found ${String(pattern)}`,
      );
    }
    if (new RegExp(`${pattern.source}|`).exec("")?.length === 1) {
      throw new ConfigurationError(
        `CitedChunkPrecision: option pattern must capture the cited id in group 1, found ${String(pattern)} with no group`,
      );
    }
    // A private copy: matchAll() and lastIndex must not be shared with the caller's RegExp.
    this.pattern = new RegExp(pattern.source, pattern.flags);
    this.level = expectMatchLevel("CitedChunkPrecision", o.level);
    this.name = expectMetricName("CitedChunkPrecision", o.name, "cited_chunk_precision");
  }

  score(input: MetricInput): number | null {
    if (input.answer === null) return null;
    const cited = citedIds(input.answer, this.pattern);
    if (cited.length === 0) return null;
    const retrieved = new Set<string>();
    for (const chunk of input.retrieved) {
      const id = this.level === "chunk" ? chunk.id : chunk.documentId;
      if (id !== undefined) retrieved.add(id);
    }
    let found = 0;
    for (const id of cited) if (retrieved.has(id)) found++;
    return found / cited.length;
  }
}
