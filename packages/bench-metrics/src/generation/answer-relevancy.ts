import {
  ConfigurationError,
  type EmbedFunction,
  type Metric,
  type MetricInput,
} from "@fastrag/bench-core";
import { describeValue } from "../internal/options.js";
import { expectFunctionOption } from "../kit.js";
import { type Asker, askStep, similarities } from "./judge/ask.js";
import { type JudgeMetricOptions, judged, judgeOptions } from "./judge/options.js";

/** Options of {@link AnswerRelevancy}. */
export interface AnswerRelevancyOptions extends JudgeMetricOptions {
  /** Embeds the question and the generated questions (e.g. `aiEmbed(model)` of `@fastrag/bench-ai`). */
  readonly embed: EmbedFunction;
  /** How many questions to generate from the answer (attempts 0 … n−1): default 3, as RAGAS. */
  readonly strictness?: number;
}

/**
 * `answer_relevancy`: how well the answer addresses the question, as RAGAS's response relevancy
 * (`src/ragas/metrics/_answer_relevance.py`): questions are generated back from the answer and
 * compared with the real one.
 *
 * Steps: `question_generation` (`{answer}`) asked `strictness` times (attempts 0 … n−1, each
 * cached apart), then one `embed` call of the question and the generated questions (kept as a
 * step `embed` with the cosines, so a rescore replays it). Score: the
 * mean cosine similarity of the question with each generated question, times 0 when every
 * generation calls the answer noncommittal (else 1). Not clipped: a cosine may be negative.
 *
 * `null` (no call paid) for no answer or a blank one.
 *
 * The attempts are the same question asked again: a judge at temperature 0 tends to generate one
 * question n times, paying n calls for what one would give. RAGAS samples its n generations at
 * temperature 0.3; give this metric a judge that samples (`aiJudge(model, { temperature: 0.3 })`),
 * or `strictness: 1` with a deterministic judge.
 */
export class AnswerRelevancy implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = true;
  readonly specificationVersion = "v1" as const;
  readonly #asker: Asker;
  readonly #embed: EmbedFunction;
  readonly #strictness: number;

  /** @throws {ConfigurationError} for an unknown option or a bad value. */
  constructor(options: AnswerRelevancyOptions) {
    const { asker, o } = judgeOptions("AnswerRelevancy", options, "answer_relevancy", [
      "embed",
      "strictness",
    ]);
    this.#asker = asker;
    this.name = asker.metric;
    this.#embed = expectFunctionOption("AnswerRelevancy", "embed", o.embed);
    const n = o.strictness === undefined ? 3 : o.strictness;
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1 || n > 20) {
      throw new ConfigurationError(
        `AnswerRelevancy: option strictness must be an integer from 1 to 20, found ${describeValue(n)}`,
        { kind: "invalid-option", option: "strictness" },
      );
    }
    this.#strictness = n;
  }

  async score(input: MetricInput): Promise<number | null> {
    const { question, answer } = judged("AnswerRelevancy", input);
    if (answer === null) return null;
    const generated = await Promise.all(
      Array.from({ length: this.#strictness }, (_, attempt) =>
        askStep(this.#asker, input, {
          step: "question_generation",
          input: { answer },
          attempt,
        }),
      ),
    );
    const cosines = await similarities(
      this.#asker,
      this.#embed,
      input,
      [question, ...generated.map((g) => g.question)],
      "the question against each generated question",
    );
    let sum = 0;
    for (const c of cosines) sum += c;
    const allNoncommittal = generated.every((g) => g.noncommittal === 1);
    return allNoncommittal ? 0 : sum / generated.length;
  }
}
