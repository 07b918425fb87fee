import {
  type EmbedFunction,
  type Metric,
  type MetricInput,
  MetricUnavailableError,
} from "@fastrag/bench-core";

export type { EmbedFunction } from "@fastrag/bench-core";

import { expectedAnswerAt, expectGenerationInput } from "../internal/input.js";
import { describeValue } from "../internal/options.js";
import { expectFunctionOption, expectMetricName, expectOptions, expectTimeoutMs } from "../kit.js";
import { modelCall } from "./judge.js";

/** Options of {@link SemanticSimilarity}. */
export interface SemanticSimilarityOptions {
  readonly embed: EmbedFunction;
  /** Overrides the metric's name (the key in results). */
  readonly name?: string;
  /**
   * Time limit on each `embed` call, in milliseconds (a positive number, at most 2147483647).
   * When it passes, the `signal` handed to `embed` aborts, and the metric stops waiting even if
   * `embed` ignores that signal: it throws a `MetricUnavailableError` ("embed call timed out
   * after … ms"), so the sample records `null` and the reason — never a 0. A call that settles
   * later is ignored. Without it an `embed` call is not bounded.
   *
   * @example
   * ```ts
   * new SemanticSimilarity({ embed, timeoutMs: 30_000 }); // give up on an embed call after 30 s
   * ```
   */
  readonly timeoutMs?: number;
}

/**
 * `semantic_similarity`: cosine similarity between the embedding of the answer and that of the
 * closest expected answer, in [0, 1].
 *
 * One `embed` call per sample embeds `[answer, ...expectedAnswers]`. A negative cosine (opposite
 * directions, rare for text embeddings) is reported as 0 so that every quality score stays in
 * [0, 1]. Expected answers that are empty or whitespace are left out; `null` when none remains
 * (e.g. an unanswerable SQuAD question, whose "no answer" has no meaning to embed).
 */
export class SemanticSimilarity implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = true;
  /** The metric contract this class implements (see `Metric.specificationVersion`). */
  readonly specificationVersion = "v1" as const;
  private readonly embed: EmbedFunction;
  private readonly timeoutMs: number | undefined;

  /**
   * @throws {ConfigurationError} when `embed` is not a function, or a given `timeoutMs` is not a
   * positive number of milliseconds.
   */
  constructor(options: SemanticSimilarityOptions) {
    const o = expectOptions("SemanticSimilarity", options, {
      required: true,
      known: ["embed", "name", "timeoutMs"],
    }) as Partial<SemanticSimilarityOptions>;
    this.embed = expectFunctionOption("SemanticSimilarity", "embed", o.embed);
    this.name = expectMetricName("SemanticSimilarity", o.name, "semantic_similarity");
    this.timeoutMs = expectTimeoutMs("SemanticSimilarity", o.timeoutMs);
  }

  /**
   * @throws {MetricUnavailableError} when `embed` returns the wrong number of vectors, vectors of
   * different lengths, non-finite numbers or a zero vector, or when an `embed` call outlasts
   * `timeoutMs`.
   * @throws whatever `embed` throws (the runner records it as the reason).
   * @throws {ConfigurationError} for a malformed input (see the package README).
   */
  async score(input: MetricInput): Promise<number | null> {
    const expected = expectGenerationInput("SemanticSimilarity", input).expectedAnswers;
    if (input.answer === null) return null;
    const texts: string[] = [input.answer];
    for (let i = 0; i < expected.length; i++) {
      const e = expectedAnswerAt("SemanticSimilarity", expected, i);
      if (e.trim() !== "") texts.push(e);
    }
    if (texts.length === 1) return null;
    const vectors: unknown = await modelCall("embed", this.timeoutMs, input, (o) =>
      this.embed(texts, o),
    );
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      throw new MetricUnavailableError(
        `embed returned ${Array.isArray(vectors) ? `${vectors.length} vectors` : describeValue(vectors)} for ${texts.length} texts, expected one vector per text`,
      );
    }
    const answer = expectVector(vectors[0], 0, undefined);
    const answerScale = maxAbs(answer);
    let best = 0;
    for (let i = 1; i < vectors.length; i++) {
      const other = expectVector(vectors[i], i, answer.length);
      const cos = cosine(answer, answerScale, other, maxAbs(other));
      if (cos > best) best = cos;
    }
    return Math.min(best, 1);
  }
}

/**
 * The cosine of two non-zero vectors, each divided by its largest |component| first: the cosine
 * does not change, and the products can neither overflow (vectors of 1e200 gave ∞/∞ = NaN) nor
 * underflow to a zero norm (vectors of 1e-200).
 */
function cosine(a: ArrayLike<number>, sa: number, b: ArrayLike<number>, sb: number): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let d = 0; d < a.length; d++) {
    const x = (a[d] as number) / sa;
    const y = (b[d] as number) / sb;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return dot / Math.sqrt(na * nb);
}

function maxAbs(v: ArrayLike<number>): number {
  let max = 0;
  for (let d = 0; d < v.length; d++) max = Math.max(max, Math.abs(v[d] as number));
  return max;
}

function expectVector(v: unknown, index: number, dims: number | undefined): ArrayLike<number> {
  const length = (v as ArrayLike<number> | null)?.length;
  if (typeof v !== "object" || v === null || typeof length !== "number" || length === 0) {
    throw new MetricUnavailableError(
      `embed returned ${describeValue(v)} for text ${index}, expected a non-empty vector of numbers`,
    );
  }
  const vector = v as ArrayLike<number>;
  if (dims !== undefined && length !== dims) {
    throw new MetricUnavailableError(
      `embed returned vectors of different lengths (${dims} and ${length})`,
    );
  }
  let nonZero = false;
  for (let d = 0; d < length; d++) {
    const x = vector[d];
    if (typeof x !== "number" || !Number.isFinite(x)) {
      throw new MetricUnavailableError(
        `embed returned ${describeValue(x)} at position ${d} of vector ${index}, expected a finite number`,
      );
    }
    if (x !== 0) nonZero = true;
  }
  if (!nonZero) {
    throw new MetricUnavailableError(
      `embed returned a zero vector for text ${index}: its cosine is undefined`,
    );
  }
  return vector;
}
