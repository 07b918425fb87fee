import type { Metric, MetricInput } from "@fastrag/bench-core";
import { type Asker, askStep } from "./judge/ask.js";
import {
  choiceOption,
  fBeta,
  type JudgeMetricOptions,
  judged,
  judgeOptions,
  positiveOption,
} from "./judge/options.js";
import { alignVerdicts, type Verdict } from "./judge/steps.js";

/** Options of {@link FactualCorrectness}. */
export interface FactualCorrectnessOptions extends JudgeMetricOptions {
  /** `"f1"` (default, `factual_correctness`), `"precision"` (`factual_precision`) or `"recall"` (`factual_recall`). */
  readonly mode?: "f1" | "precision" | "recall";
  /** β of the F-β score in mode f1: default 1; above 1 weighs recall more. */
  readonly beta?: number;
  /** How finely the texts are split into claims: `"low"` (default) or `"high"` (one fact each). */
  readonly atomicity?: "low" | "high";
  /** How much of the text the claims cover: `"low"` (default, the main points) or `"high"` (all). */
  readonly coverage?: "low" | "high";
}

const NAMES = {
  f1: "factual_correctness",
  precision: "factual_precision",
  recall: "factual_recall",
};

/**
 * `factual_correctness`: how far the answer's claims and the reference's claims agree, as RAGAS's
 * factual correctness (`src/ragas/metrics/_factual_correctness.py`).
 *
 * Steps: `claims` of the answer (`{text, atomicity, coverage}`), `verdicts` of those claims
 * against the reference; for modes recall and f1 also `claims` of the reference and `verdicts`
 * of those against the answer. tp = answer claims the reference supports, fp = answer claims it
 * does not, fn = reference claims the answer does not support. Precision tp/(tp+fp), recall
 * tp/(tp+fn) (an empty ratio counts 0), F-β as usual (0 when both are 0).
 *
 * Differs from RAGAS on purpose: the score is not rounded (RAGAS rounds to 2 decimals, which makes
 * small differences between runs vanish or jump), and no 1e-8 is added to denominators.
 *
 * `null` (no call paid) for no answer, a blank one, or no reference; `null` too when the answer
 * holds no claim, or (recall, f1) the reference holds none.
 */
export class FactualCorrectness implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = true;
  readonly specificationVersion = "v1" as const;
  readonly #asker: Asker;
  readonly #mode: "f1" | "precision" | "recall";
  readonly #beta: number;
  readonly #atomicity: "low" | "high";
  readonly #coverage: "low" | "high";

  /** @throws {ConfigurationError} for an unknown option or a bad value. */
  constructor(options: FactualCorrectnessOptions) {
    const given = options as unknown as Record<string, unknown> | undefined;
    const mode = choiceOption(
      "FactualCorrectness",
      "mode",
      given?.mode,
      ["f1", "precision", "recall"] as const,
      "f1",
    );
    const { asker, o } = judgeOptions("FactualCorrectness", options, NAMES[mode], [
      "mode",
      "beta",
      "atomicity",
      "coverage",
    ]);
    this.#asker = asker;
    this.name = asker.metric;
    this.#mode = mode;
    this.#beta = positiveOption("FactualCorrectness", "beta", o.beta, 1);
    const levels = ["low", "high"] as const;
    this.#atomicity = choiceOption("FactualCorrectness", "atomicity", o.atomicity, levels, "low");
    this.#coverage = choiceOption("FactualCorrectness", "coverage", o.coverage, levels, "low");
  }

  async score(input: MetricInput): Promise<number | null> {
    const { answer, reference } = judged("FactualCorrectness", input);
    if (answer === null || reference === null) return null;
    const atomicity = this.#atomicity;
    const coverage = this.#coverage;
    const needRecall = this.#mode !== "precision";
    const [answerClaims, referenceClaims] = await Promise.all([
      askStep(this.#asker, input, {
        step: "claims",
        input: { text: answer, atomicity, coverage },
        about: "the answer",
      }),
      needRecall
        ? askStep(this.#asker, input, {
            step: "claims",
            input: { text: reference, atomicity, coverage },
            about: "the reference",
          })
        : undefined,
    ]);
    if (answerClaims.claims.length === 0) return null;
    if (referenceClaims !== undefined && referenceClaims.claims.length === 0) return null;
    const [byReference, byAnswer] = await Promise.all([
      this.#supported(input, reference, answerClaims.claims, "the reference"),
      referenceClaims === undefined
        ? undefined
        : this.#supported(input, answer, referenceClaims.claims, "the answer"),
    ]);
    const tp = byReference;
    const fp = answerClaims.claims.length - byReference;
    const fn =
      referenceClaims === undefined ? 0 : referenceClaims.claims.length - (byAnswer as number);
    if (this.#mode === "precision") return tp / (tp + fp);
    if (this.#mode === "recall") return tp + fn === 0 ? 0 : tp / (tp + fn);
    return fBeta(tp, fp, fn, this.#beta);
  }

  /** How many of `claims` the `context` supports. */
  async #supported(
    input: MetricInput,
    context: string,
    claims: readonly string[],
    about: string,
  ): Promise<number> {
    const { verdicts } = await askStep(this.#asker, input, {
      step: "verdicts",
      input: { context, statements: claims },
      about,
    });
    let n = 0;
    for (const v of alignVerdicts(claims, verdicts) as readonly Verdict[]) n += v.verdict;
    return n;
  }
}
