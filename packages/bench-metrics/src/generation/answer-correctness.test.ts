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
  MALFORMED,
  statementsFrom,
  unavailable,
} from "../__fixtures__/judge.js";
import { AnswerCorrectness, type AnswerCorrectnessOptions } from "./answer-correctness.js";

const QUESTION = "Tell me about the tower.";
const ANSWER = "It is in Paris, 330 m tall and blue.";
const REFERENCE = "It is in Paris and 330 m tall, of iron.";
const ANS = ["The tower is in Paris.", "The tower is 330 m tall.", "The tower is blue."];
const REF = ["The tower is in Paris.", "The tower is 330 m tall.", "The tower is of iron."];

const classified = (statements: readonly string[]) =>
  statements.map((statement) => ({ statement, reason: "judged" }));

/**
 * TP 2, FP 1, FN 1: precision 2/3, recall 2/3, F1 2/3. The vectors give cosine 24/25 ([3, 4]
 * against [4, 3]). Default weights [0.75, 0.25]: 0.75·(2/3) + 0.25·(24/25) = 0.5 + 0.24 = 0.74.
 */
const STEPS: Record<string, ScriptedStep> = {
  statements: statementsFrom({ [ANSWER]: ANS, [REFERENCE]: REF }),
  classification: () => ({
    TP: classified(ANS.slice(0, 2)),
    FP: classified(ANS.slice(2)),
    FN: classified(REF.slice(2)),
  }),
};
const VECTORS = { [ANSWER]: [3, 4], [REFERENCE]: [4, 3] };

function judgeWith(overrides: Record<string, ScriptedStep> = {}) {
  return scriptedJudge({ ...STEPS, ...overrides });
}

function input(parts: Parameters<typeof metricInput>[0] = {}) {
  return metricInput({
    question: QUESTION,
    answer: ANSWER,
    expectedAnswers: [REFERENCE],
    ...parts,
  });
}

async function correctness(
  options: Omit<AnswerCorrectnessOptions, "judge"> = {},
  overrides: Record<string, ScriptedStep> = {},
): Promise<number | null> {
  const m = new AnswerCorrectness({
    judge: judgeWith(overrides),
    embed: fakeEmbed(VECTORS),
    ...options,
  });
  return m.score(input());
}

describe("AnswerCorrectness", () => {
  it("is named answer_correctness, higher is better", () => {
    const m = new AnswerCorrectness({ judge: judgeWith(), embed: fakeEmbed(VECTORS) });
    expect(m.name).toBe("answer_correctness");
    expect(m.higherIsBetter).toBe(true);
    expect(m.needsAnswer).toBe(true);
  });

  it("is 0.75 · F1 + 0.25 · cosine: 0.75·(2/3) + 0.25·(24/25) = 0.74", async () => {
    const judge = judgeWith();
    const embed = fakeEmbed(VECTORS);
    const score = await new AnswerCorrectness({ judge, embed }).score(input());
    expect(score).toBeCloseTo(0.74, 15);
    const calls = judge.calls.map((c) => [c.step, c.input]);
    expect(calls).toEqual([
      ["statements", { question: QUESTION, answer: ANSWER }],
      ["statements", { question: QUESTION, answer: REFERENCE }],
      ["classification", { question: QUESTION, answer: ANS, ground_truth: REF }],
    ]);
    expect(embed.calls).toEqual([[ANSWER, REFERENCE]]);
  });

  it("divides the weights by their sum, as numpy's average", async () => {
    // [3, 1] is [0.75, 0.25] scaled.
    expect(await correctness({ weights: [3, 1] })).toBeCloseTo(0.74, 15);
    expect(await correctness({ weights: [1, 1] })).toBeCloseTo((2 / 3 + 24 / 25) / 2, 15);
    expect(await correctness({ weights: [0.2, 0.6] })).toBeCloseTo(
      (0.2 * (2 / 3) + 0.6 * (24 / 25)) / 0.8,
      15,
    );
  });

  it("weights [1, 0]: the factual part alone, and no embed needed", async () => {
    const judge = judgeWith();
    const m = new AnswerCorrectness({ judge, weights: [1, 0] });
    expect(await m.score(input())).toBeCloseTo(2 / 3, 15);
    // With an embed given, it is not called.
    const embed = fakeEmbed(VECTORS);
    expect(
      await new AnswerCorrectness({ judge, embed, weights: [2, 0] }).score(input()),
    ).toBeCloseTo(2 / 3, 15);
    expect(embed.calls).toHaveLength(0);
  });

  it("weights [0, 1]: the cosine alone, with no judge call", async () => {
    const judge = judgeWith();
    const m = new AnswerCorrectness({ judge, embed: fakeEmbed(VECTORS), weights: [0, 1] });
    expect(await m.score(input())).toBeCloseTo(24 / 25, 15);
    expect(judge.count()).toBe(0);
  });

  it("β weighs recall: TP 2, FP 2, FN 0 give F1 2/3 and F2 5/6", async () => {
    const steps = {
      statements: statementsFrom({ [ANSWER]: ["a", "b", "c", "d"], [REFERENCE]: ["r", "s"] }),
      classification: () => ({ TP: classified(["a", "b"]), FP: classified(["c", "d"]), FN: [] }),
    };
    // precision 1/2, recall 1: F1 = 2·(1/2)/(3/2) = 2/3; F2 = 5·(1/2)/(4·(1/2) + 1) = 5/6.
    expect(await correctness({ weights: [1, 0] }, steps)).toBeCloseTo(2 / 3, 15);
    expect(await correctness({ weights: [1, 0], beta: 2 }, steps)).toBeCloseTo(5 / 6, 15);
  });

  it("F-β is 1 when both statement lists are empty, with no classification call", async () => {
    const judge = judgeWith({ statements: () => ({ statements: [] }) });
    const m = new AnswerCorrectness({ judge, embed: fakeEmbed(VECTORS) });
    expect(await m.score(input())).toBeCloseTo(0.75 * 1 + 0.25 * (24 / 25), 15);
    expect(judge.count("statements")).toBe(2);
    expect(judge.count("classification")).toBe(0);
  });

  it("F-β is 0 when only one statement list is empty, with no classification call", async () => {
    for (const table of [
      { [ANSWER]: [], [REFERENCE]: REF },
      { [ANSWER]: ANS, [REFERENCE]: [] },
    ]) {
      const judge = judgeWith({ statements: statementsFrom(table) });
      const m = new AnswerCorrectness({ judge, weights: [1, 0] });
      expect(await m.score(input())).toBe(0);
      expect(judge.count("classification")).toBe(0);
    }
  });

  it("all TP is 1 with weights [1, 0]; all FP is 0", async () => {
    const allTp = () => ({ TP: classified(ANS), FP: [], FN: [] });
    expect(await correctness({ weights: [1, 0] }, { classification: allTp })).toBe(1);
    const allFp = () => ({ TP: [], FP: classified(ANS), FN: classified(REF) });
    expect(await correctness({ weights: [1, 0] }, { classification: allFp })).toBe(0);
  });

  it.each(ACCEPTED)("accepts replies given as %s", async (_, form) => {
    const steps = {
      statements: altered(STEPS.statements as ScriptedStep, form),
      classification: altered(STEPS.classification as ScriptedStep, form),
    };
    expect(await correctness({}, steps)).toBeCloseTo(0.74, 15);
  });

  describe("not applicable: a plain null, no judge or embed call", () => {
    const cases: [string, Parameters<typeof metricInput>[0]][] = [
      ["no answer", { answer: null }],
      ["a blank answer", { answer: "   " }],
      ["no expected answer", { expectedAnswers: [] }],
      ["only an empty expected answer", { expectedAnswers: [""] }],
    ];
    it.each(cases)("%s", async (_, parts) => {
      const judge = judgeWith();
      const embed = fakeEmbed(VECTORS);
      expect(await new AnswerCorrectness({ judge, embed }).score(input(parts))).toBeNull();
      expect(judge.count()).toBe(0);
      expect(embed.calls).toHaveLength(0);
    });

    it("needs no retrieved chunk", async () => {
      const m = new AnswerCorrectness({ judge: judgeWith(), embed: fakeEmbed(VECTORS) });
      expect(await m.score(input({ retrieved: [] }))).toBeCloseTo(0.74, 15);
    });
  });

  describe("a malformed reply: a MetricUnavailableError naming the step", () => {
    for (const step of ["statements", "classification"] as const) {
      it.each(MALFORMED)(`step ${step}: %s`, async (_, corrupt) => {
        const judge = judgeWith({ [step]: altered(STEPS[step] as ScriptedStep, corrupt) });
        const m = new AnswerCorrectness({ judge, embed: fakeEmbed(VECTORS) });
        await unavailable(m.score(input()), step);
      });
    }

    const cases: [string, ScriptedStep, RegExp][] = [
      [
        "TP + FP fewer than the answer statements",
        () => ({ TP: classified(ANS.slice(0, 1)), FP: classified(ANS.slice(2)), FN: [] }),
        /TP and FP hold 2 statements, expected each of the 3 answer statements once/,
      ],
      [
        "TP + FP more than the answer statements",
        () => ({ TP: classified(ANS), FP: classified(ANS.slice(2)), FN: [] }),
        /TP and FP hold 4 statements, expected each of the 3 answer statements once/,
      ],
      [
        "FN more than the reference statements",
        () => ({
          TP: classified(ANS.slice(0, 2)),
          FP: classified(ANS.slice(2)),
          FN: classified([...REF, "extra"]),
        }),
        /FN holds 4 statements, more than the 3 reference statements/,
      ],
      [
        "an entry without its reason",
        () => ({ TP: ANS.map((statement) => ({ statement })), FP: [], FN: [] }),
        /reply\.TP\[0\]\.reason: missing/,
      ],
      ["no FN list", () => ({ TP: classified(ANS), FP: [] }), /reply\.FN: missing/],
      [
        "statements as bare strings",
        () => ({ TP: ANS, FP: [], FN: [] }),
        /reply\.TP\[0\]: expected object/,
      ],
    ];
    it.each(cases)("step classification: %s", async (_, step, message) => {
      const judge = judgeWith({ classification: step });
      const m = new AnswerCorrectness({ judge, embed: fakeEmbed(VECTORS) });
      const error = await unavailable(m.score(input()), "classification");
      expect(error.message).toMatch(message);
    });

    const vectors: [string, EmbedFunction, RegExp][] = [
      ["one vector for two texts", async () => [[1, 0]], /embed returned 1 vectors for 2 texts/],
      [
        "a zero vector",
        async () => [
          [0, 0],
          [1, 0],
        ],
        /zero vector for text 0/,
      ],
      [
        "an infinity",
        async () => [
          [1, Number.POSITIVE_INFINITY],
          [1, 0],
        ],
        /non-finite value/,
      ],
    ];
    it.each(vectors)("step embed: %s", async (_, embed, message) => {
      const m = new AnswerCorrectness({ judge: judgeWith(), embed });
      const error = await unavailable(m.score(input()), "embed");
      expect(error.message).toMatch(message);
    });
  });

  it("refuses bad weights, a missing embed, a bad beta and unknown options", () => {
    const judge = judgeWith();
    const embed = fakeEmbed(VECTORS);
    for (const weights of [[0, 0], [-1, 1], [1], [1, 1, 1], [Number.NaN, 1], ["1", 1], 0.5, null]) {
      expect(() => new AnswerCorrectness({ judge, embed, weights } as never)).toThrow(
        /AnswerCorrectness: option weights must be two non-negative numbers, not both 0/,
      );
    }
    expect(() => new AnswerCorrectness({ judge })).toThrow(
      "AnswerCorrectness: option embed must be a function, found undefined",
    );
    expect(() => new AnswerCorrectness({ judge, weights: [1, 0.5] })).toThrow(
      /option embed must be a function/,
    );
    for (const beta of [0, -2, "1", Number.NaN]) {
      expect(() => new AnswerCorrectness({ judge, embed, beta } as never)).toThrow(
        /AnswerCorrectness: option beta must be a positive number/,
      );
    }
    expect(() => new AnswerCorrectness({ judge, embed, mode: "f1" } as never)).toThrow(
      'AnswerCorrectness: unknown option "mode"; expected judge, name, prompts, timeoutMs, embed, weights, beta',
    );
    expect(() => new AnswerCorrectness({ judge, embed, prompt: () => "" } as never)).toThrow(
      ConfigurationError,
    );
  });
});
