import type { Metric, MetricInput } from "@fastrag/bench-core";
import { type Asker, askStep } from "./judge/ask.js";
import { choiceOption, type JudgeMetricOptions, judged, judgeOptions } from "./judge/options.js";
import { alignVerdicts, statementText, type Verdict } from "./judge/steps.js";

/** Options of {@link NoiseSensitivity}. */
export interface NoiseSensitivityOptions extends JudgeMetricOptions {
  /**
   * `"relevant"` (default, `noise_sensitivity`): incorrect statements the answer took from
   * relevant chunks; `"irrelevant"` (`noise_sensitivity_irrelevant`): from irrelevant chunks only.
   */
  readonly mode?: "relevant" | "irrelevant";
}

/**
 * `noise_sensitivity`: how often the answer states something incorrect that a retrieved chunk
 * led it to, as RAGAS's noise sensitivity (`src/ragas/metrics/_noise_sensitivity.py`). Lower is
 * better.
 *
 * Steps: `statements` of the reference and of the answer (each with the question); `verdicts` of
 * both statement sets against each retrieved chunk alone; `verdicts` of the answer's statements
 * against the reference. A chunk is relevant when it supports some reference statement; an answer
 * statement is incorrect when the reference does not support it. Mode relevant: the mean over
 * answer statements of [supported by some relevant chunk ∧ incorrect]; mode irrelevant: [supported
 * by some irrelevant chunk ∧ by no relevant chunk ∧ incorrect].
 *
 * Differs from RAGAS in cost, not in verdicts: RAGAS asks each chunk twice (once per statement
 * set, 2 + 2k + 1 calls for k chunks); here each chunk is asked once about both sets together (the
 * verdict on a statement does not depend on the other statements asked with it), and the answer's
 * and reference's statements are shared with the other metrics that ask them: 3 + k calls at
 * most, and both modes of one sample share every step.
 *
 * `null` (no call paid) for no answer, a blank one, no reference, or no retrieved text; `null` too
 * when the answer holds no statement.
 */
export class NoiseSensitivity implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = false;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = true;
  readonly needsChunkText: boolean = true;
  readonly specificationVersion = "v1" as const;
  readonly #asker: Asker;
  readonly #mode: "relevant" | "irrelevant";

  /** @throws {ConfigurationError} for an unknown option or a bad value. */
  constructor(options: NoiseSensitivityOptions) {
    const mode = choiceOption(
      "NoiseSensitivity",
      "mode",
      (options as { mode?: unknown } | undefined)?.mode,
      ["relevant", "irrelevant"] as const,
      "relevant",
    );
    const { asker } = judgeOptions(
      "NoiseSensitivity",
      options,
      mode === "irrelevant" ? "noise_sensitivity_irrelevant" : "noise_sensitivity",
      ["mode"],
    );
    this.#asker = asker;
    this.#mode = mode;
    this.name = asker.metric;
  }

  async score(input: MetricInput): Promise<number | null> {
    const { question, answer, reference, chunks } = judged("NoiseSensitivity", input);
    if (answer === null || reference === null || chunks.length === 0) return null;
    const [ofReference, ofAnswer] = await Promise.all([
      askStep(this.#asker, input, {
        step: "statements",
        input: { question, answer: reference },
        about: "the reference",
      }),
      askStep(this.#asker, input, {
        step: "statements",
        input: { question, answer },
        about: "the answer",
      }),
    ]);
    const refStatements = ofReference.statements;
    const ansStatements = ofAnswer.statements;
    if (ansStatements.length === 0) return null;
    // Both sets asked together, each distinct statement once.
    const asked: string[] = [];
    const seen = new Set<string>();
    for (const s of [...refStatements, ...ansStatements]) {
      const key = statementText(s);
      if (!seen.has(key)) {
        seen.add(key);
        asked.push(s);
      }
    }
    const [perChunk, byReference] = await Promise.all([
      Promise.all(chunks.map((c) => this.#verdicts(input, c.text, asked, `chunk ${c.rank}`))),
      this.#verdicts(input, reference, ansStatements, "the reference"),
    ]);
    return noiseScore({
      mode: this.#mode,
      refStatements,
      ansStatements,
      perChunk,
      correct: ansStatements.map((s) => byReference.get(statementText(s)) === 1),
    });
  }

  /** Verdicts on `statements` against `context`, by statement text. */
  async #verdicts(
    input: MetricInput,
    context: string,
    statements: readonly string[],
    about: string,
  ): Promise<Map<string, 0 | 1>> {
    const out = new Map<string, 0 | 1>();
    if (statements.length === 0) return out;
    const { verdicts } = await askStep(this.#asker, input, {
      step: "verdicts",
      input: { context, statements },
      about,
    });
    const aligned = alignVerdicts(statements, verdicts) as readonly Verdict[];
    for (let i = 0; i < statements.length; i++) {
      out.set(statementText(statements[i] as string), (aligned[i] as Verdict).verdict);
    }
    return out;
  }
}

/** RAGAS's `_compute_score` on the verdicts (each chunk's verdicts keyed by statement text). */
export function noiseScore(parts: {
  readonly mode: "relevant" | "irrelevant";
  readonly refStatements: readonly string[];
  readonly ansStatements: readonly string[];
  readonly perChunk: readonly ReadonlyMap<string, 0 | 1>[];
  /** Per answer statement: the reference supports it. */
  readonly correct: readonly boolean[];
}): number {
  const { mode, refStatements, ansStatements, perChunk, correct } = parts;
  const relevant = perChunk.map((v) => refStatements.some((s) => v.get(statementText(s)) === 1));
  let count = 0;
  for (let i = 0; i < ansStatements.length; i++) {
    if (correct[i]) continue;
    const key = statementText(ansStatements[i] as string);
    let fromRelevant = false;
    let fromIrrelevant = false;
    for (let c = 0; c < perChunk.length; c++) {
      if ((perChunk[c] as ReadonlyMap<string, 0 | 1>).get(key) !== 1) continue;
      if (relevant[c]) fromRelevant = true;
      else fromIrrelevant = true;
    }
    if (mode === "relevant" ? fromRelevant : fromIrrelevant && !fromRelevant) count++;
  }
  return count / ansStatements.length;
}
