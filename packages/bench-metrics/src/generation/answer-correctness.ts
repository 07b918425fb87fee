import {
  ConfigurationError,
  type EmbedFunction,
  type Metric,
  type MetricInput,
} from "@fastrag/bench-core";
import { describeValue } from "../internal/options.js";
import { expectFunctionOption } from "../kit.js";
import { type Asker, askStep, similarities } from "./judge/ask.js";
import {
  fBeta,
  type JudgeMetricOptions,
  judged,
  judgeOptions,
  positiveOption,
} from "./judge/options.js";

/** Options of {@link AnswerCorrectness}. */
export interface AnswerCorrectnessOptions extends JudgeMetricOptions {
  /**
   * Embeds the answer and the reference for the similarity part. Required unless the similarity's
   * weight is 0.
   */
  readonly embed?: EmbedFunction;
  /** Weights of [factual F-β, semantic similarity]: default [0.75, 0.25], as RAGAS. */
  readonly weights?: readonly [number, number];
  /** β of the factual F-β: default 1. */
  readonly beta?: number;
}

/**
 * `answer_correctness`: the answer's agreement with the reference, as RAGAS's answer correctness
 * (`src/ragas/metrics/_answer_correctness.py`): a factual part from classified statements and a
 * semantic part from embeddings.
 *
 * Steps: `statements` of the answer and of the reference (each with the question, shared with
 * the other metrics that ask them), `classification` (`{question, answer: statements,
 * ground_truth: statements}` → TP, FP, FN), and one `embed` call of answer and reference (kept as
 * a step `embed` with the cosine, so a rescore replays it). Score:
 * the weighted mean (weights divided by their sum, as numpy's `average`) of F-β(|TP|, |FP|, |FN|)
 * and the cosine similarity. F-β is 1 when both statement lists are empty (no classification is
 * asked then); when only one is, it follows from the counts (0), with no call.
 *
 * `null` (no call paid) for no answer, a blank one, or no reference.
 */
export class AnswerCorrectness implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = true;
  readonly specificationVersion = "v1" as const;
  readonly #asker: Asker;
  readonly #embed: EmbedFunction | undefined;
  readonly #weights: readonly [number, number];
  readonly #beta: number;

  /** @throws {ConfigurationError} for an unknown option or a bad value. */
  constructor(options: AnswerCorrectnessOptions) {
    const { asker, o } = judgeOptions("AnswerCorrectness", options, "answer_correctness", [
      "embed",
      "weights",
      "beta",
    ]);
    this.#asker = asker;
    this.name = asker.metric;
    const weights = o.weights === undefined ? [0.75, 0.25] : o.weights;
    if (
      !Array.isArray(weights) ||
      weights.length !== 2 ||
      !weights.every((w) => typeof w === "number" && Number.isFinite(w) && w >= 0) ||
      (weights[0] as number) + (weights[1] as number) === 0
    ) {
      throw new ConfigurationError(
        `AnswerCorrectness: option weights must be two non-negative numbers, not both 0 ([factual, similarity]), found ${describeValue(weights)}`,
        { kind: "invalid-option", option: "weights" },
      );
    }
    this.#weights = [weights[0] as number, weights[1] as number];
    this.#embed =
      o.embed === undefined && this.#weights[1] === 0
        ? undefined
        : expectFunctionOption<EmbedFunction>("AnswerCorrectness", "embed", o.embed);
    this.#beta = positiveOption("AnswerCorrectness", "beta", o.beta, 1);
  }

  async score(input: MetricInput): Promise<number | null> {
    const { question, answer, reference } = judged("AnswerCorrectness", input);
    if (answer === null || reference === null) return null;
    const [wFactual, wSimilar] = this.#weights;
    const [factual, similar] = await Promise.all([
      wFactual === 0 ? 0 : this.#factual(input, question, answer, reference),
      wSimilar === 0 || this.#embed === undefined
        ? 0
        : similarities(
            this.#asker,
            this.#embed,
            input,
            [answer, reference],
            "the answer against the reference",
          ).then((c) => c[0] as number),
    ]);
    return (wFactual * factual + wSimilar * similar) / (wFactual + wSimilar);
  }

  async #factual(
    input: MetricInput,
    question: string,
    answer: string,
    reference: string,
  ): Promise<number> {
    const [a, r] = await Promise.all([
      askStep(this.#asker, input, {
        step: "statements",
        input: { question, answer },
        about: "the answer",
      }),
      askStep(this.#asker, input, {
        step: "statements",
        input: { question, answer: reference },
        about: "the reference",
      }),
    ]);
    if (a.statements.length === 0 && r.statements.length === 0) return 1;
    if (a.statements.length === 0 || r.statements.length === 0) {
      // Every answer statement unsupported, or every reference statement missed: F-β is 0.
      return 0;
    }
    const { TP, FP, FN } = await askStep(this.#asker, input, {
      step: "classification",
      input: { question, answer: a.statements, ground_truth: r.statements },
    });
    return fBeta(TP.length, FP.length, FN.length, this.#beta);
  }
}
