import { ConfigurationError } from "@fastrag/bench-core";
import { metricInput, type ScriptedStep, scriptedJudge } from "@fastrag/bench-core/testing";
import { describe, expect, it } from "vitest";
import {
  ACCEPTED,
  altered,
  judgingContext,
  MALFORMED,
  statementsFrom,
  unavailable,
  verdictsBy,
} from "../__fixtures__/judge.js";
import { NoiseSensitivity } from "./noise-sensitivity.js";

const QUESTION = "Tell me about the tower.";
const ANSWER = "the answer";
const REFERENCE = "the reference";
const REF = ["r1", "r2"];
const ANS = ["a1", "a2", "a3", "a4", "a5"];
const CHUNKS = [
  { id: "c1", text: "chunk 1" },
  { id: "c2", text: "chunk 2" },
  { id: "c3" },
  { id: "c4", text: "chunk 4" },
];

/**
 * What supports what, by hand:
 * - chunk 1 supports r1 (relevant), a1, a2; chunk 2 supports a3, a5 (irrelevant: no reference
 *   statement); chunk 4 supports r2 (relevant), a5.
 * - the reference supports a1 only: a2 … a5 are incorrect.
 * So a2 (from relevant chunk 1) and a5 (from relevant chunk 4, and irrelevant chunk 2) count in
 * mode relevant: 2/5; a3 (from irrelevant chunk 2 only) counts in mode irrelevant: 1/5; a4 is
 * supported by no chunk and counts in neither.
 */
const SUPPORT: Record<string, ReadonlySet<string>> = {
  "chunk 1": new Set(["r1", "a1", "a2"]),
  "chunk 2": new Set(["a3", "a5"]),
  "chunk 4": new Set(["r2", "a5"]),
  [REFERENCE]: new Set(["a1"]),
};

const STEPS: Record<string, ScriptedStep> = {
  statements: statementsFrom({ [ANSWER]: ANS, [REFERENCE]: REF }),
  verdicts: verdictsBy((context, s) => SUPPORT[context]?.has(s) === true),
};

function judgeWith(overrides: Record<string, ScriptedStep> = {}) {
  return scriptedJudge({ ...STEPS, ...overrides });
}

function input(parts: Parameters<typeof metricInput>[0] = {}) {
  return metricInput({
    question: QUESTION,
    answer: ANSWER,
    expectedAnswers: [REFERENCE],
    retrieved: CHUNKS,
    ...parts,
  });
}

async function noise(
  mode: "relevant" | "irrelevant",
  overrides: Record<string, ScriptedStep> = {},
): Promise<number | null> {
  return new NoiseSensitivity({ judge: judgeWith(overrides), mode }).score(input());
}

describe("NoiseSensitivity", () => {
  it("is named by its mode, lower is better, reads chunk text", () => {
    const judge = judgeWith();
    const relevant = new NoiseSensitivity({ judge });
    expect(relevant.name).toBe("noise_sensitivity");
    expect(relevant.higherIsBetter).toBe(false);
    expect(relevant.needsAnswer).toBe(true);
    expect(relevant.needsChunkText).toBe(true);
    expect(new NoiseSensitivity({ judge, mode: "relevant" }).name).toBe("noise_sensitivity");
    const irrelevant = new NoiseSensitivity({ judge, mode: "irrelevant" });
    expect(irrelevant.name).toBe("noise_sensitivity_irrelevant");
    expect(irrelevant.higherIsBetter).toBe(false);
  });

  it("relevant mode: incorrect statements supported by a relevant chunk, 2/5", async () => {
    expect(await noise("relevant")).toBe(2 / 5);
  });

  it("irrelevant mode: incorrect statements supported by irrelevant chunks only, 1/5", async () => {
    expect(await noise("irrelevant")).toBe(1 / 5);
  });

  it("asks 3 + k steps: both statement sets, each chunk once about both, the reference", async () => {
    const judge = judgeWith();
    await new NoiseSensitivity({ judge }).score(input());
    const calls = judge.calls.map((c) => [c.step, c.input]);
    expect(calls).toHaveLength(3 + 3);
    expect(calls).toEqual(
      expect.arrayContaining([
        ["statements", { question: QUESTION, answer: REFERENCE }],
        ["statements", { question: QUESTION, answer: ANSWER }],
        ["verdicts", { context: "chunk 1", statements: [...REF, ...ANS] }],
        ["verdicts", { context: "chunk 2", statements: [...REF, ...ANS] }],
        ["verdicts", { context: "chunk 4", statements: [...REF, ...ANS] }],
        ["verdicts", { context: REFERENCE, statements: ANS }],
      ]),
    );
  });

  it("both modes of one sample share every step", async () => {
    const judge = judgeWith();
    const judging = judgingContext();
    const [relevant, irrelevant] = await Promise.all([
      new NoiseSensitivity({ judge }).score({ ...input(), judging }),
      new NoiseSensitivity({ judge, mode: "irrelevant" }).score({ ...input(), judging }),
    ]);
    expect([relevant, irrelevant]).toEqual([2 / 5, 1 / 5]);
    expect(judge.count()).toBe(6);
  });

  it("asks a statement both sets hold once per chunk (same text up to case and spacing)", async () => {
    const judge = judgeWith({
      statements: statementsFrom({ [ANSWER]: ["a1", " R1 "], [REFERENCE]: ["r1"] }),
      verdicts: verdictsBy(
        (context, s) => context === "chunk 1" && s.trim().toLowerCase() === "r1",
      ),
    });
    // " R1 " is supported by relevant chunk 1 and not by the reference: 1/2.
    expect(await new NoiseSensitivity({ judge }).score(input())).toBe(1 / 2);
    const chunk1 = judge.calls.find((c) => c.input?.context === "chunk 1");
    expect(chunk1?.input?.statements).toEqual(["r1", "a1"]);
  });

  it("takes verdicts in another order and case (matched by text, not position)", async () => {
    const shuffled = altered(STEPS.verdicts as ScriptedStep, (v) => ({
      verdicts: [...(v.verdicts as { statement: string }[])]
        .reverse()
        .map((x) => ({ ...x, statement: x.statement.toUpperCase() })),
    }));
    expect(await noise("relevant", { verdicts: shuffled })).toBe(2 / 5);
    expect(await noise("irrelevant", { verdicts: shuffled })).toBe(1 / 5);
  });

  it.each(ACCEPTED)("accepts replies given as %s", async (_, form) => {
    const steps = {
      statements: altered(STEPS.statements as ScriptedStep, form),
      verdicts: altered(STEPS.verdicts as ScriptedStep, form),
    };
    expect(await noise("relevant", steps)).toBe(2 / 5);
  });

  it("every answer statement correct: 0 in both modes", async () => {
    const steps = {
      verdicts: verdictsBy((context, s) => context !== REFERENCE || ANS.includes(s)),
    };
    expect(await noise("relevant", steps)).toBe(0);
    expect(await noise("irrelevant", steps)).toBe(0);
  });

  it("every statement incorrect and from a relevant chunk: 1 relevant, 0 irrelevant", async () => {
    const steps = { verdicts: verdictsBy((context) => context !== REFERENCE) };
    expect(await noise("relevant", steps)).toBe(1);
    expect(await noise("irrelevant", steps)).toBe(0);
  });

  it("a reference with no statement: no chunk is relevant", async () => {
    const steps = { statements: statementsFrom({ [ANSWER]: ANS, [REFERENCE]: [] }) };
    // Every chunk is irrelevant: a2, a3 and a5 are incorrect and supported by some chunk.
    expect(await noise("relevant", steps)).toBe(0);
    expect(await noise("irrelevant", steps)).toBe(3 / 5);
  });

  describe("not applicable: a plain null, no judge call", () => {
    const cases: [string, Parameters<typeof metricInput>[0]][] = [
      ["no answer", { answer: null }],
      ["a blank answer", { answer: "\n " }],
      ["no expected answer", { expectedAnswers: [] }],
      ["only an empty expected answer", { expectedAnswers: [""] }],
      ["no retrieved chunk", { retrieved: [] }],
      ["chunks without text", { retrieved: [{ id: "a" }, { id: "b" }] }],
    ];
    for (const mode of ["relevant", "irrelevant"] as const) {
      it.each(cases)(`mode ${mode}: %s`, async (_, parts) => {
        const judge = judgeWith();
        expect(await new NoiseSensitivity({ judge, mode }).score(input(parts))).toBeNull();
        expect(judge.count()).toBe(0);
      });
    }

    it("an answer with no statement: null after the statements, no verdicts asked", async () => {
      const judge = judgeWith({ statements: statementsFrom({ [ANSWER]: [], [REFERENCE]: REF }) });
      expect(await new NoiseSensitivity({ judge }).score(input())).toBeNull();
      expect(judge.count("statements")).toBe(2);
      expect(judge.count("verdicts")).toBe(0);
    });
  });

  describe("a malformed reply: a MetricUnavailableError naming the step", () => {
    for (const step of ["statements", "verdicts"] as const) {
      it.each(MALFORMED)(`step ${step}: %s`, async (_, corrupt) => {
        const judge = judgeWith({ [step]: altered(STEPS[step] as ScriptedStep, corrupt) });
        await unavailable(new NoiseSensitivity({ judge }).score(input()), step);
      });
    }

    it("one chunk's verdicts short of the statements asked", async () => {
      const short = altered(STEPS.verdicts as ScriptedStep, (v) => {
        const list = v.verdicts as { statement: string }[];
        return { verdicts: list.length === 7 ? list.slice(0, 6) : list };
      });
      const error = await unavailable(
        new NoiseSensitivity({ judge: judgeWith({ verdicts: short }) }).score(input()),
        "verdicts",
      );
      expect(error.message).toMatch(/6 verdicts for the 7 statements asked about/);
    });

    it("the reference's verdicts on statements it was not asked about", async () => {
      const wrong = altered(STEPS.verdicts as ScriptedStep, (v) => ({
        verdicts: (v.verdicts as { statement: string }[]).map((x) =>
          x.statement === "a5" ? { ...x, statement: "a6" } : x,
        ),
      }));
      const error = await unavailable(
        new NoiseSensitivity({ judge: judgeWith({ verdicts: wrong }) }).score(input()),
        "verdicts",
      );
      expect(error.message).toMatch(/no verdict for the statement "a5"/);
    });
  });

  it("refuses a bad mode and unknown options", () => {
    const judge = judgeWith();
    expect(() => new NoiseSensitivity({ judge, mode: "noise" } as never)).toThrow(
      'NoiseSensitivity: option mode must be "relevant" or "irrelevant", found the string "noise"',
    );
    expect(() => new NoiseSensitivity({ judge, mode: 1 } as never)).toThrow(ConfigurationError);
    expect(() => new NoiseSensitivity({ judge, against: "answer" } as never)).toThrow(
      'NoiseSensitivity: unknown option "against"; expected judge, name, prompts, timeoutMs, mode',
    );
  });
});
