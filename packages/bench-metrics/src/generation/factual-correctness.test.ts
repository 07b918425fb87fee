import { ConfigurationError } from "@fastrag/bench-core";
import { metricInput, type ScriptedStep, scriptedJudge } from "@fastrag/bench-core/testing";
import { describe, expect, it } from "vitest";
import {
  ACCEPTED,
  altered,
  claimsFrom,
  MALFORMED,
  unavailable,
  verdictsBy,
} from "../__fixtures__/judge.js";
import { FactualCorrectness, type FactualCorrectnessOptions } from "./factual-correctness.js";

const ANSWER = "The tower is in Paris, 330 m tall and blue.";
const REFERENCE = "The tower is in Paris, 330 m tall, of iron, and opened in 1889.";
const ANSWER_CLAIMS = ["The tower is in Paris.", "The tower is 330 m tall.", "The tower is blue."];
const REFERENCE_CLAIMS = [
  "The tower is in Paris.",
  "The tower is 330 m tall.",
  "The tower is made of iron.",
  "The tower opened in 1889.",
];

/**
 * The reference supports the first two answer claims: tp = 2, fp = 1. The answer supports the
 * first two reference claims: fn = 2. By hand: precision 2/3, recall 2/(2+2) = 1/2,
 * F1 = 2·(2/3)(1/2) / (2/3 + 1/2) = 4/7, F2 = 5·(2/3)(1/2) / (4·2/3 + 1/2) = 10/19.
 */
const SUPPORT: Record<string, ReadonlySet<string>> = {
  [REFERENCE]: new Set(ANSWER_CLAIMS.slice(0, 2)),
  [ANSWER]: new Set(REFERENCE_CLAIMS.slice(0, 2)),
};

const STEPS: Record<string, ScriptedStep> = {
  claims: claimsFrom({ [ANSWER]: ANSWER_CLAIMS, [REFERENCE]: REFERENCE_CLAIMS }),
  verdicts: verdictsBy((context, claim) => SUPPORT[context]?.has(claim) === true),
};

function judgeWith(overrides: Record<string, ScriptedStep> = {}) {
  return scriptedJudge({ ...STEPS, ...overrides });
}

function input(parts: Parameters<typeof metricInput>[0] = {}) {
  return metricInput({ answer: ANSWER, expectedAnswers: [REFERENCE], ...parts });
}

async function score(
  options: Omit<FactualCorrectnessOptions, "judge"> = {},
  overrides: Record<string, ScriptedStep> = {},
): Promise<number | null> {
  return new FactualCorrectness({ judge: judgeWith(overrides), ...options }).score(input());
}

describe("FactualCorrectness", () => {
  it("is named by its mode: factual_correctness, factual_precision, factual_recall", () => {
    const judge = judgeWith();
    expect(new FactualCorrectness({ judge }).name).toBe("factual_correctness");
    expect(new FactualCorrectness({ judge, mode: "f1" }).name).toBe("factual_correctness");
    expect(new FactualCorrectness({ judge, mode: "precision" }).name).toBe("factual_precision");
    expect(new FactualCorrectness({ judge, mode: "recall" }).name).toBe("factual_recall");
    expect(new FactualCorrectness({ judge, mode: "recall", name: "fr" }).name).toBe("fr");
    const m = new FactualCorrectness({ judge });
    expect(m.higherIsBetter).toBe(true);
    expect(m.needsAnswer).toBe(true);
  });

  it("f1: tp 2, fp 1, fn 2 give F1 = 4/7, not rounded", async () => {
    const f1 = await score();
    expect(f1).toBeCloseTo(4 / 7, 15);
    // RAGAS rounds to 2 decimals (0.57); here it is not rounded.
    expect(Math.abs((f1 as number) - 0.57)).toBeGreaterThan(1e-3);
  });

  it("precision: tp/(tp+fp) = 2/3, asking only the answer's claims", async () => {
    const judge = judgeWith();
    const m = new FactualCorrectness({ judge, mode: "precision" });
    expect(await m.score(input())).toBeCloseTo(2 / 3, 15);
    expect(judge.calls.map((c) => [c.step, c.input])).toEqual([
      ["claims", { text: ANSWER, atomicity: "low", coverage: "low" }],
      ["verdicts", { context: REFERENCE, statements: ANSWER_CLAIMS }],
    ]);
  });

  it("recall: tp/(tp+fn) = 2/(2+2) = 1/2", async () => {
    expect(await score({ mode: "recall" })).toBe(1 / 2);
  });

  it("β = 2 weighs recall more: F2 = 10/19; β = 1/2: F0.5 = (5/4)(1/3)/((1/4)(2/3)+1/2) = 5/8", async () => {
    expect(await score({ beta: 2 })).toBeCloseTo(10 / 19, 15);
    expect(await score({ beta: 0.5 })).toBeCloseTo(5 / 8, 15);
    // β does not change precision or recall alone.
    expect(await score({ mode: "precision", beta: 2 })).toBeCloseTo(2 / 3, 15);
  });

  it("asks the steps of DESIGN §11 with their inputs (f1 and recall)", async () => {
    const judge = judgeWith();
    await new FactualCorrectness({ judge, atomicity: "high", coverage: "high" }).score(input());
    const calls = judge.calls.map((c) => [c.step, c.input]);
    expect(calls).toHaveLength(4);
    expect(calls).toEqual(
      expect.arrayContaining([
        ["claims", { text: ANSWER, atomicity: "high", coverage: "high" }],
        ["claims", { text: REFERENCE, atomicity: "high", coverage: "high" }],
        ["verdicts", { context: REFERENCE, statements: ANSWER_CLAIMS }],
        ["verdicts", { context: ANSWER, statements: REFERENCE_CLAIMS }],
      ]),
    );
    expect(judge.calls.every((c) => c.metric === "factual_correctness" && c.attempt === 0)).toBe(
      true,
    );
  });

  it("every claim supported both ways is 1; none supported is 0 in every mode", async () => {
    const all = { verdicts: verdictsBy(() => true) };
    expect(await score({}, all)).toBe(1);
    expect(await score({ mode: "precision" }, all)).toBe(1);
    expect(await score({ mode: "recall" }, all)).toBe(1);
    const none = { verdicts: verdictsBy(() => false) };
    // tp = 0: precision 0 and recall 0, so F-β is 0 (not NaN).
    expect(await score({}, none)).toBe(0);
    expect(await score({ mode: "precision" }, none)).toBe(0);
    expect(await score({ mode: "recall" }, none)).toBe(0);
  });

  it("ties: precision = recall gives F-β = that value for every β", async () => {
    // 2 answer claims, 1 supported (tp 1, fp 1); 2 reference claims, 1 supported (fn 1).
    const steps = {
      claims: claimsFrom({ [ANSWER]: ["a1", "a2"], [REFERENCE]: ["r1", "r2"] }),
      verdicts: verdictsBy((_c, claim) => claim === "a1" || claim === "r1"),
    };
    for (const beta of [0.5, 1, 3]) expect(await score({ beta }, steps)).toBeCloseTo(1 / 2, 15);
  });

  it("takes verdicts in another order and case (matched by claim text)", async () => {
    const reversed = altered(STEPS.verdicts as ScriptedStep, (v) => ({
      verdicts: [...(v.verdicts as { statement: string }[])]
        .reverse()
        .map((x) => ({ ...x, statement: ` ${x.statement.toUpperCase()} ` })),
    }));
    expect(await score({}, { verdicts: reversed })).toBeCloseTo(4 / 7, 15);
  });

  it.each(ACCEPTED)("accepts replies given as %s", async (_, form) => {
    const steps = {
      claims: altered(STEPS.claims as ScriptedStep, form),
      verdicts: altered(STEPS.verdicts as ScriptedStep, form),
    };
    expect(await score({}, steps)).toBeCloseTo(4 / 7, 15);
  });

  describe("not applicable: a plain null", () => {
    const cases: [string, Parameters<typeof metricInput>[0]][] = [
      ["no answer", { answer: null }],
      ["a blank answer", { answer: "  " }],
      ["no expected answer", { expectedAnswers: [] }],
      ["only an empty expected answer", { expectedAnswers: [""] }],
    ];
    for (const mode of ["f1", "precision", "recall"] as const) {
      it.each(cases)(`mode ${mode}: %s, with no judge call`, async (_, parts) => {
        const judge = judgeWith();
        expect(await new FactualCorrectness({ judge, mode }).score(input(parts))).toBeNull();
        expect(judge.count()).toBe(0);
      });
    }

    it("an answer with no claim: null, no verdicts asked", async () => {
      for (const mode of ["f1", "precision", "recall"] as const) {
        const judge = judgeWith({ claims: claimsFrom({ [ANSWER]: [], [REFERENCE]: ["r1"] }) });
        expect(await new FactualCorrectness({ judge, mode }).score(input())).toBeNull();
        expect(judge.count("verdicts")).toBe(0);
      }
    });

    it("a reference with no claim: null for f1 and recall, precision still scored", async () => {
      const steps = { claims: claimsFrom({ [ANSWER]: ANSWER_CLAIMS, [REFERENCE]: [] }) };
      expect(await score({}, steps)).toBeNull();
      expect(await score({ mode: "recall" }, steps)).toBeNull();
      expect(await score({ mode: "precision" }, steps)).toBeCloseTo(2 / 3, 15);
    });

    it("needs no retrieved chunk", async () => {
      const judge = judgeWith();
      const m = new FactualCorrectness({ judge, mode: "recall" });
      expect(await m.score(input({ retrieved: [] }))).toBe(1 / 2);
    });
  });

  describe("a malformed reply: a MetricUnavailableError naming the step", () => {
    for (const step of ["claims", "verdicts"] as const) {
      it.each(MALFORMED)(`step ${step}: %s`, async (_, corrupt) => {
        const judge = judgeWith({ [step]: altered(STEPS[step] as ScriptedStep, corrupt) });
        await unavailable(new FactualCorrectness({ judge }).score(input()), step);
      });
    }

    const cases: [string, ScriptedStep, RegExp][] = [
      [
        "one verdict short",
        altered(STEPS.verdicts as ScriptedStep, (v) => ({
          verdicts: (v.verdicts as unknown[]).slice(1),
        })),
        /verdicts for the \d statements asked about/,
      ],
      [
        "a verdict on a claim not asked about",
        altered(STEPS.verdicts as ScriptedStep, (v) => ({
          verdicts: (v.verdicts as { statement: string }[]).map((x, i) =>
            i === 0 ? { ...x, statement: "The tower is green." } : x,
          ),
        })),
        /no verdict for the statement "The tower is in Paris\."/,
      ],
      [
        "verdict 2",
        altered(STEPS.verdicts as ScriptedStep, (v) => ({
          verdicts: (v.verdicts as object[]).map((x) => ({ ...x, verdict: 2 })),
        })),
        /reply\.verdicts\[0\]\.verdict: expected one of 0, 1/,
      ],
      [
        "claims that are not a list",
        () => ({ claims: "The tower is in Paris." }),
        /reply\.claims: expected array/,
      ],
    ];
    it.each(cases)("%s", async (label, step, message) => {
      const name = label.startsWith("claims") ? "claims" : "verdicts";
      const judge = judgeWith({ [name]: step });
      const error = await unavailable(new FactualCorrectness({ judge }).score(input()), name);
      expect(error.message).toMatch(message);
    });
  });

  it("refuses bad mode, beta, atomicity, coverage and unknown options", () => {
    const judge = judgeWith();
    const bad: [Record<string, unknown>, string][] = [
      [
        { mode: "f2" },
        'option mode must be "f1" or "precision" or "recall", found the string "f2"',
      ],
      [{ mode: null }, "option mode must be"],
      [{ beta: 0 }, "option beta must be a positive number, found the number 0"],
      [{ beta: -1 }, "option beta must be a positive number, found the number -1"],
      [{ beta: Number.NaN }, "option beta must be a positive number, found the number NaN"],
      [{ beta: Number.POSITIVE_INFINITY }, "option beta must be a positive number"],
      [{ beta: "2" }, 'option beta must be a positive number, found the string "2"'],
      [
        { atomicity: "medium" },
        'option atomicity must be "low" or "high", found the string "medium"',
      ],
      [{ coverage: "all" }, 'option coverage must be "low" or "high", found the string "all"'],
      [{ coverage: true }, "option coverage must be"],
      [
        { strictness: 3 },
        'unknown option "strictness"; expected judge, name, prompts, timeoutMs, mode, beta, atomicity, coverage',
      ],
    ];
    for (const [options, message] of bad) {
      let thrown: unknown;
      try {
        new FactualCorrectness({ judge, ...options } as never);
      } catch (error) {
        thrown = error;
      }
      expect(ConfigurationError.isInstance(thrown), JSON.stringify(options)).toBe(true);
      expect((thrown as Error).message).toContain(`FactualCorrectness: ${message}`);
    }
  });
});
