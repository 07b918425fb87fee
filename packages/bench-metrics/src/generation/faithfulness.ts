import type { Metric, MetricInput } from "@fastrag/bench-core";
import type { Asker } from "./judge/ask.js";
import { askStep } from "./judge/ask.js";
import { contextOf, type JudgeMetricOptions, judged, judgeOptions } from "./judge/options.js";
import { alignVerdicts, type Verdict } from "./judge/steps.js";

/** Options of {@link Faithfulness}: the judge metrics' own. */
export type FaithfulnessOptions = JudgeMetricOptions;

/**
 * `faithfulness`: the share of the answer's statements that the retrieved context supports, in
 * [0, 1], as RAGAS defines it (`src/ragas/metrics/_faithfulness.py`). It measures grounding, not
 * truth: a statement true of the world but absent from the passages is unfaithful.
 *
 * Steps (DESIGN §11): `statements` of the answer (with the question), then `verdicts` of those
 * statements against the context (the retrieved chunks' texts joined with "\n", in rank order).
 * Score: Σ verdict / number of statements.
 *
 * `null` (not applicable, no call paid) for no answer (a Retriever target), a blank answer (an
 * abstention), or no retrieved chunk with text; `null` too when the answer holds no statement.
 * A reply that does not parse or match its step (verdicts that do not answer the statements
 * asked about) throws a `MetricUnavailableError` naming the step: the sample is incomplete.
 */
export class Faithfulness implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = true;
  /** It reads the retrieved chunks' text: a saved result rescores with it only when kept. */
  readonly needsChunkText: boolean = true;
  readonly specificationVersion = "v1" as const;
  readonly #asker: Asker;

  /** @throws {ConfigurationError} for an unknown option, or a bad `judge`, `prompts` or `timeoutMs`. */
  constructor(options: FaithfulnessOptions) {
    const { asker } = judgeOptions("Faithfulness", options, "faithfulness");
    this.#asker = asker;
    this.name = asker.metric;
  }

  async score(input: MetricInput): Promise<number | null> {
    const { question, answer, chunks } = judged("Faithfulness", input);
    if (answer === null || chunks.length === 0) return null;
    const { statements } = await askStep(this.#asker, input, {
      step: "statements",
      input: { question, answer },
      about: "the answer",
    });
    if (statements.length === 0) return null;
    const { verdicts } = await askStep(this.#asker, input, {
      step: "verdicts",
      input: { context: contextOf(chunks), statements },
      about: "the retrieved context",
    });
    const aligned = alignVerdicts(statements, verdicts) as readonly Verdict[];
    let supported = 0;
    for (const v of aligned) supported += v.verdict;
    return supported / aligned.length;
  }
}
