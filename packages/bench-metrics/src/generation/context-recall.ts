import type { Metric, MetricInput } from "@fastrag/bench-core";
import { type Asker, askStep } from "./judge/ask.js";
import { contextOf, type JudgeMetricOptions, judged, judgeOptions } from "./judge/options.js";

/** Options of {@link ContextRecall}: the judge metrics' own. */
export type ContextRecallOptions = JudgeMetricOptions;

/**
 * `context_recall`: the share of the reference answer's sentences that the retrieved context
 * accounts for, as RAGAS's LLM context recall (`src/ragas/metrics/_context_recall.py`).
 *
 * Step: `attributions` (`{question, context, reference}`): each sentence of the reference,
 * attributed to the context or not. Score: Σ attributed / number of sentences.
 *
 * `null` (no call paid) for no reference or no retrieved text. An empty attribution list for a
 * non-empty reference is a malformed reply (the sample is incomplete).
 */
export class ContextRecall implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = false;
  readonly needsChunkText: boolean = true;
  readonly specificationVersion = "v1" as const;
  readonly #asker: Asker;

  /** @throws {ConfigurationError} for an unknown option or a bad value. */
  constructor(options: ContextRecallOptions) {
    const { asker } = judgeOptions("ContextRecall", options, "context_recall");
    this.#asker = asker;
    this.name = asker.metric;
  }

  async score(input: MetricInput): Promise<number | null> {
    const { question, reference, chunks } = judged("ContextRecall", input);
    if (reference === null || chunks.length === 0) return null;
    const { attributions } = await askStep(this.#asker, input, {
      step: "attributions",
      input: { question, context: contextOf(chunks), reference },
      about: "the reference against the retrieved context",
    });
    let attributed = 0;
    for (const a of attributions) attributed += a.attributed;
    return attributed / attributions.length;
  }
}
