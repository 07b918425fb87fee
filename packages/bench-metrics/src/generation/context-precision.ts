import type { Metric, MetricInput } from "@fastrag/bench-core";
import { type Asker, askStep } from "./judge/ask.js";
import { choiceOption, type JudgeMetricOptions, judged, judgeOptions } from "./judge/options.js";

/** Options of {@link ContextPrecision}. */
export interface ContextPrecisionOptions extends JudgeMetricOptions {
  /**
   * What each chunk is judged useful for: `"reference"` (the default; the first non-empty
   * expected answer) gives `context_precision`; `"answer"` judges against the pipeline's own
   * answer, RAGAS's context utilization, named `context_utilization`, for data sets without gold
   * answers.
   */
  readonly against?: "reference" | "answer";
}

/**
 * `context_precision`: whether the useful chunks are ranked first, as RAGAS's LLM context
 * precision (`src/ragas/metrics/_context_precision.py`): a verdict per retrieved chunk, then
 * their average precision.
 *
 * Steps: `context_verdict` for each retrieved chunk with text, in rank order (`{question,
 * context: the chunk's text, reference}`: was this chunk useful in arriving at the reference).
 * Score, with v_k the verdict of the k-th judged chunk: Σ_k v_k · (Σ_{j≤k} v_j / k) / Σ_k v_k; 0
 * when no chunk is useful. Chunks without text are not judged (they take no rank).
 *
 * Differs from RAGAS on purpose: RAGAS adds 1e-10 to the denominator, so its perfect ranking
 * scores 0.9999999999 (its issue #2909); here a perfect ranking scores exactly 1.
 *
 * `null` (no call paid) for no retrieved text, no reference (or, `against: "answer"`, no answer
 * or a blank one).
 */
export class ContextPrecision implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean;
  readonly needsChunkText: boolean = true;
  readonly specificationVersion = "v1" as const;
  readonly #asker: Asker;
  readonly #against: "reference" | "answer";

  /** @throws {ConfigurationError} for an unknown option or a bad value. */
  constructor(options: ContextPrecisionOptions) {
    const against = choiceOption(
      "ContextPrecision",
      "against",
      (options as { against?: unknown } | undefined)?.against,
      ["reference", "answer"] as const,
      "reference",
    );
    const { asker } = judgeOptions(
      "ContextPrecision",
      options,
      against === "answer" ? "context_utilization" : "context_precision",
      ["against"],
    );
    this.#asker = asker;
    this.#against = against;
    this.name = asker.metric;
    this.needsAnswer = against === "answer";
  }

  async score(input: MetricInput): Promise<number | null> {
    const { question, answer, reference, chunks } = judged("ContextPrecision", input);
    const target = this.#against === "answer" ? answer : reference;
    if (target === null || chunks.length === 0) return null;
    const replies = await Promise.all(
      chunks.map((c) =>
        askStep(this.#asker, input, {
          step: "context_verdict",
          input: { question, context: c.text, reference: target },
          about: `chunk ${c.rank}`,
        }),
      ),
    );
    return averagePrecision(replies.map((r) => r.verdict));
  }
}

/** Σ_k v_k · precision@k / Σ_k v_k over the verdicts in rank order; 0 when none is 1. */
export function averagePrecision(verdicts: readonly (0 | 1)[]): number {
  let hits = 0;
  let sum = 0;
  for (let k = 0; k < verdicts.length; k++) {
    if (verdicts[k] === 1) {
      hits++;
      sum += hits / (k + 1);
    }
  }
  return hits === 0 ? 0 : sum / hits;
}
