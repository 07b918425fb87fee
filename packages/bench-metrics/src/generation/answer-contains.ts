import type { Metric, MetricInput } from "@fastrag/bench-core";
import { expectGenerationInput } from "../internal/input.js";
import { goldAnswers, normalizeAnswer } from "../internal/squad.js";
import { expectMetricName, expectOptions } from "../kit.js";
import type { GenerationMetricOptions } from "./options.js";

/**
 * `answer_contains`: 1 when some normalized expected answer is a substring of the normalized
 * answer, else 0 — the "accuracy" of open-domain QA, where a long generated answer is right if it
 * contains a gold answer.
 *
 * Normalization and gold answers are those of {@link ExactMatch}. The match is on characters:
 * gold "art" is contained in "start", and a match never splits a surrogate pair (code points, as
 * Python's `in` compares them). An unanswerable question (gold `[""]`) matches only an
 * answer that normalizes to `""`: the empty string is in every string, and counting every
 * answer as right would say nothing.
 *
 * `null` when the sample has no expected answers.
 */
export class AnswerContains implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = true;
  /** The metric contract this class implements (see `Metric.specificationVersion`). */
  readonly specificationVersion = "v1" as const;

  /** @throws {ConfigurationError} for a bad `name`. */
  constructor(options?: GenerationMetricOptions) {
    const o = expectOptions("AnswerContains", options, {
      required: false,
      known: ["name"],
    }) as GenerationMetricOptions;
    this.name = expectMetricName("AnswerContains", o.name, "answer_contains");
  }

  /** @throws {ConfigurationError} for a malformed input (see the package README). */
  score(input: MetricInput): number | null {
    const sample = expectGenerationInput("AnswerContains", input);
    if (input.answer === null) return null;
    const gold = goldAnswers(sample.expectedAnswers, "AnswerContains");
    if (gold === null) return null;
    const answer = normalizeAnswer(input.answer);
    for (const g of gold) {
      const n = normalizeAnswer(g);
      if (n === "" ? answer === "" : containsCharacters(answer, n)) return 1;
    }
    return 0;
  }
}

/**
 * Whether `needle` occurs in `haystack` as a run of whole characters (code points), as Python's
 * `in` sees it: a match may not split a surrogate pair. `"😀".includes("\ud83d")` is true in
 * JavaScript, but a lone surrogate in an expected answer is not half of an emoji. Only a needle
 * that starts with a low surrogate or ends with a high one can split a pair, so any other needle
 * costs one `indexOf`.
 */
function containsCharacters(haystack: string, needle: string): boolean {
  let at = haystack.indexOf(needle);
  if (at === -1) return false;
  const first = needle.charCodeAt(0);
  const last = needle.charCodeAt(needle.length - 1);
  const startsLow = first >= 0xdc00 && first <= 0xdfff;
  const endsHigh = last >= 0xd800 && last <= 0xdbff;
  if (!startsLow && !endsHigh) return true;
  while (at !== -1) {
    const before = haystack.charCodeAt(at - 1); // NaN at the start
    const after = haystack.charCodeAt(at + needle.length); // NaN at the end
    const splitsStart = startsLow && before >= 0xd800 && before <= 0xdbff;
    const splitsEnd = endsHigh && after >= 0xdc00 && after <= 0xdfff;
    if (!splitsStart && !splitsEnd) return true;
    at = haystack.indexOf(needle, at + 1);
  }
  return false;
}
