import { ConfigurationError, type EmbedFunction } from "@fastrag/bench-core";
import {
  fakeEmbed,
  metricInput,
  type ScriptedStep,
  scriptedJudge,
} from "@fastrag/bench-core/testing";
import { describe, expect, it } from "vitest";
import {
  ACCEPTED,
  altered,
  judgingContext,
  MALFORMED,
  unavailable,
} from "../__fixtures__/judge.js";
import { AnswerRelevancy } from "./answer-relevancy.js";

const QUESTION = "Where is the Eiffel Tower?";
const ANSWER = "The Eiffel Tower is in Paris.";

/** Vectors with known cosines against the question's [3, 4]. */
const VECTORS: Record<string, readonly number[]> = {
  [QUESTION]: [3, 4],
  same: [6, 8], // cos 1
  near: [4, 3], // cos 24/25
  orthogonal: [-4, 3], // cos 0
  opposite: [-3, -4], // cos −1
  away: [-4, -3], // cos −24/25
};

/** A question_generation step: attempt i generates `questions[i]`, noncommittal `flags[i]`. */
function generating(questions: readonly string[], flags: readonly (0 | 1)[] = []): ScriptedStep {
  return (_input, { attempt }) => ({
    question: questions[attempt] as string,
    noncommittal: flags[attempt] ?? 0,
  });
}

function input(parts: Parameters<typeof metricInput>[0] = {}) {
  return metricInput({ question: QUESTION, answer: ANSWER, ...parts });
}

async function relevancy(
  questions: readonly string[],
  flags?: readonly (0 | 1)[],
): Promise<number | null> {
  const judge = scriptedJudge({ question_generation: generating(questions, flags) });
  const m = new AnswerRelevancy({ judge, embed: fakeEmbed(VECTORS), strictness: questions.length });
  return m.score(input());
}

describe("AnswerRelevancy", () => {
  it("is named answer_relevancy, higher is better", () => {
    const m = new AnswerRelevancy({ judge: scriptedJudge({}), embed: fakeEmbed({}) });
    expect(m.name).toBe("answer_relevancy");
    expect(m.higherIsBetter).toBe(true);
    expect(m.needsAnswer).toBe(true);
  });

  it("asks question_generation strictness times (attempts 0, 1, 2 by default), embeds once", async () => {
    const judge = scriptedJudge({
      question_generation: generating(["same", "near", "orthogonal"]),
    });
    const embed = fakeEmbed(VECTORS);
    const score = await new AnswerRelevancy({ judge, embed }).score(input());
    // mean cosine: (1 + 24/25 + 0) / 3
    expect(score).toBeCloseTo((1 + 24 / 25 + 0) / 3, 14);
    expect(judge.calls.map((c) => [c.step, c.input, c.attempt])).toEqual([
      ["question_generation", { answer: ANSWER }, 0],
      ["question_generation", { answer: ANSWER }, 1],
      ["question_generation", { answer: ANSWER }, 2],
    ]);
    // One embed call: the question first, then each generated question in attempt order.
    expect(embed.calls).toEqual([[QUESTION, "same", "near", "orthogonal"]]);
  });

  it("strictness n asks attempts 0 … n−1", async () => {
    for (const n of [1, 2, 5]) {
      const judge = scriptedJudge({ question_generation: generating(Array(n).fill("same")) });
      const m = new AnswerRelevancy({ judge, embed: fakeEmbed(VECTORS), strictness: n });
      expect(await m.score(input())).toBe(1);
      expect(judge.calls.map((c) => c.attempt)).toEqual([...Array(n).keys()]);
    }
  });

  it("is the mean cosine, by hand", async () => {
    expect(await relevancy(["same"])).toBe(1);
    expect(await relevancy(["near"])).toBeCloseTo(24 / 25, 15);
    expect(await relevancy(["same", "orthogonal"])).toBeCloseTo(1 / 2, 15);
    // Ties: the same generated question three times.
    expect(await relevancy(["near", "near", "near"])).toBeCloseTo(24 / 25, 15);
  });

  it("is not clipped: a negative cosine stays negative", async () => {
    expect(await relevancy(["opposite"])).toBeCloseTo(-1, 15);
    expect(await relevancy(["opposite", "away", "orthogonal"])).toBeCloseTo(
      (-1 - 24 / 25 + 0) / 3,
      14,
    );
    expect(await relevancy(["same", "opposite"])).toBeCloseTo(0, 15);
  });

  it("is 0 when every generation calls the answer noncommittal", async () => {
    expect(await relevancy(["same", "same", "same"], [1, 1, 1])).toBe(0);
    expect(await relevancy(["near"], [1])).toBe(0);
  });

  it("is the mean cosine when only some generations are noncommittal", async () => {
    expect(await relevancy(["same", "near", "orthogonal"], [0, 1, 0])).toBeCloseTo(
      (1 + 24 / 25 + 0) / 3,
      14,
    );
    expect(await relevancy(["same", "same", "same"], [1, 1, 0])).toBe(1);
  });

  it("within a sample, shares its steps and keeps them (the embed step with its cosines)", async () => {
    const judge = scriptedJudge({ question_generation: generating(["same", "near", "same"]) });
    const embed = fakeEmbed(VECTORS);
    const m = new AnswerRelevancy({ judge, embed });
    const judging = judgingContext();
    const first = await m.score({ ...input(), judging });
    const again = await m.score({ ...input(), judging });
    expect(again).toBe(first);
    expect(judge.count()).toBe(3);
    expect(embed.calls).toHaveLength(1);
    const kept = judging.steps.answer_relevancy ?? [];
    expect(kept.map((s) => [s.step, s.attempt])).toEqual([
      ["question_generation", 0],
      ["question_generation", 1],
      ["question_generation", 2],
      ["embed", 0],
      ["question_generation", 0],
      ["question_generation", 1],
      ["question_generation", 2],
      ["embed", 0],
    ]);
    const cosines = kept[3]?.reply.cosines as number[];
    expect(cosines).toHaveLength(3);
    expect(cosines[0]).toBeCloseTo(1, 15);
    expect(cosines[1]).toBeCloseTo(24 / 25, 15);
    expect(cosines[2]).toBeCloseTo(1, 15);
  });

  it.each(ACCEPTED)("accepts a reply given as %s", async (_, form) => {
    const judge = scriptedJudge({ question_generation: altered(generating(["same"]), form) });
    const m = new AnswerRelevancy({ judge, embed: fakeEmbed(VECTORS), strictness: 1 });
    expect(await m.score(input())).toBe(1);
  });

  describe("not applicable: a plain null, no judge or embed call", () => {
    const cases: [string, Parameters<typeof metricInput>[0]][] = [
      ["no answer (a Retriever target)", { answer: null }],
      ["a blank answer", { answer: " \t " }],
      ["an empty answer", { answer: "" }],
    ];
    it.each(cases)("%s", async (_, parts) => {
      const judge = scriptedJudge({ question_generation: generating(["same", "same", "same"]) });
      const embed = fakeEmbed(VECTORS);
      expect(await new AnswerRelevancy({ judge, embed }).score(input(parts))).toBeNull();
      expect(judge.count()).toBe(0);
      expect(embed.calls).toHaveLength(0);
    });

    it("needs neither a reference nor chunks", async () => {
      const judge = scriptedJudge({ question_generation: generating(["same"]) });
      const m = new AnswerRelevancy({ judge, embed: fakeEmbed(VECTORS), strictness: 1 });
      expect(await m.score(input({ expectedAnswers: [], retrieved: [] }))).toBe(1);
    });
  });

  describe("a malformed reply: a MetricUnavailableError naming the step", () => {
    it.each(MALFORMED)("step question_generation: %s", async (_, corrupt) => {
      const judge = scriptedJudge({ question_generation: altered(generating(["same"]), corrupt) });
      const m = new AnswerRelevancy({ judge, embed: fakeEmbed(VECTORS), strictness: 1 });
      await unavailable(m.score(input()), "question_generation");
    });

    const cases: [string, unknown, RegExp][] = [
      [
        "noncommittal 2",
        { question: "same", noncommittal: 2 },
        /reply\.noncommittal: expected one of 0, 1/,
      ],
      [
        'noncommittal "yes"',
        { question: "same", noncommittal: "yes" },
        /reply\.noncommittal: expected integer, found the string "yes"/,
      ],
      ["no question", { noncommittal: 0 }, /reply\.question: missing/],
      [
        "a question that is not text",
        { question: 7, noncommittal: 0 },
        /reply\.question: expected string/,
      ],
    ];
    it.each(cases)("step question_generation: %s", async (_, reply, message) => {
      // One attempt of three is malformed: no score from the other two.
      const judge = scriptedJudge({
        question_generation: (_i, { attempt }) =>
          attempt === 1 ? (reply as never) : { question: "same", noncommittal: 0 },
      });
      const m = new AnswerRelevancy({ judge, embed: fakeEmbed(VECTORS) });
      const error = await unavailable(m.score(input()), "question_generation");
      expect(error.message).toMatch(message);
    });

    const vectors: [string, EmbedFunction, RegExp][] = [
      ["too few vectors", async () => [[1, 0]], /embed returned 1 vectors for 2 texts/],
      ["vectors of two lengths", async () => [[1, 0], [1]], /different lengths \(2 and 1\)/],
      [
        "a zero vector",
        async () => [
          [3, 4],
          [0, 0],
        ],
        /zero vector for text 1/,
      ],
      [
        "a NaN",
        async () => [
          [3, 4],
          [Number.NaN, 1],
        ],
        /non-finite value at position 0 of vector 1/,
      ],
      ["no list", async () => "nope" as never, /no list of vectors/],
    ];
    it.each(vectors)("step embed: %s", async (_, embed, message) => {
      const judge = scriptedJudge({ question_generation: generating(["same"]) });
      const m = new AnswerRelevancy({ judge, embed, strictness: 1 });
      const error = await unavailable(m.score(input()), "embed");
      expect(error.message).toMatch(message);
    });
  });

  it("refuses a bad strictness, a missing embed and unknown options", () => {
    const judge = scriptedJudge({});
    const embed = fakeEmbed({});
    for (const strictness of [0, -1, 1.5, 21, "3", Number.NaN, null]) {
      expect(() => new AnswerRelevancy({ judge, embed, strictness } as never)).toThrow(
        /AnswerRelevancy: option strictness must be an integer from 1 to 20, found/,
      );
    }
    expect(new AnswerRelevancy({ judge, embed, strictness: 20 }).name).toBe("answer_relevancy");
    expect(() => new AnswerRelevancy({ judge } as never)).toThrow(
      "AnswerRelevancy: option embed must be a function, found undefined",
    );
    expect(() => new AnswerRelevancy({ judge, embed, n: 3 } as never)).toThrow(
      'AnswerRelevancy: unknown option "n"; expected judge, name, prompts, timeoutMs, embed, strictness',
    );
    expect(
      () => new AnswerRelevancy({ judge, embed, prompts: { question: () => "" } } as never),
    ).toThrow(ConfigurationError);
  });
});
