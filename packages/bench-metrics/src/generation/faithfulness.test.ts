import { ConfigurationError } from "@fastrag/bench-core";
import { metricInput, type ScriptedStep, scriptedJudge } from "@fastrag/bench-core/testing";
import { describe, expect, it } from "vitest";
import {
  ACCEPTED,
  altered,
  MALFORMED,
  statementsFrom,
  unavailable,
  verdictsBy,
} from "../__fixtures__/judge.js";
import { Faithfulness } from "./faithfulness.js";
import { STEP_SCHEMAS } from "./judge/steps.js";

const QUESTION = "Tell me about the Eiffel Tower.";
const ANSWER = "It is in Paris. It is 330 m tall. It is blue.";
const STATEMENTS = [
  "The Eiffel Tower is in Paris.",
  "The Eiffel Tower is 330 m tall.",
  "The Eiffel Tower is blue.",
];
const CHUNKS = [
  { id: "c1", text: "The Eiffel Tower stands in Paris." },
  { id: "c2" },
  { id: "c3", text: "It is 330 metres tall." },
];
/** The context the verdicts step gets: the texts of the chunks that have one, joined with "\n". */
const CONTEXT = "The Eiffel Tower stands in Paris.\nIt is 330 metres tall.";
/** Verdicts [1, 1, 0]: the context says nothing of the colour. */
const SUPPORTED = new Set([STATEMENTS[0], STATEMENTS[1]]);

const STEPS: Record<string, ScriptedStep> = {
  statements: statementsFrom({ [ANSWER]: STATEMENTS }),
  verdicts: verdictsBy((_context, s) => SUPPORTED.has(s)),
};

function judgeWith(overrides: Record<string, ScriptedStep> = {}) {
  return scriptedJudge({ ...STEPS, ...overrides });
}

function input(parts: Parameters<typeof metricInput>[0] = {}) {
  return metricInput({ question: QUESTION, answer: ANSWER, retrieved: CHUNKS, ...parts });
}

describe("Faithfulness", () => {
  it("is named faithfulness, higher is better, and reads chunk text", () => {
    const m = new Faithfulness({ judge: judgeWith() });
    expect(m.name).toBe("faithfulness");
    expect(m.higherIsBetter).toBe(true);
    expect(m.needsAnswer).toBe(true);
    expect(m.needsChunkText).toBe(true);
    expect(new Faithfulness({ judge: judgeWith(), name: "grounded" }).name).toBe("grounded");
  });

  it("is Σ verdict / number of statements: verdicts [1, 1, 0] give 2/3", async () => {
    const judge = judgeWith();
    expect(await new Faithfulness({ judge }).score(input())).toBe(2 / 3);
    // The steps of DESIGN §11, with their inputs: the answer's statements, then the verdicts of
    // those statements against the chunks' texts joined in rank order (c2 has none).
    expect(judge.calls.map((c) => [c.step, c.input, c.attempt, c.metric])).toEqual([
      ["statements", { question: QUESTION, answer: ANSWER }, 0, "faithfulness"],
      ["verdicts", { context: CONTEXT, statements: STATEMENTS }, 0, "faithfulness"],
    ]);
  });

  it("sends each step's schema, and a built-in prompt holding the step's input", async () => {
    const seen: { step?: string; schema?: unknown; prompt: string }[] = [];
    const base = judgeWith();
    const judge: typeof base = Object.assign(
      (prompt: string, o: Parameters<typeof base>[1]) => {
        seen.push({ step: o.step, schema: o.schema, prompt });
        return base(prompt, o);
      },
      { calls: base.calls, cacheKey: base.cacheKey, count: base.count },
    );
    await new Faithfulness({ judge }).score(input());
    expect(seen.map((s) => s.schema)).toEqual([STEP_SCHEMAS.statements, STEP_SCHEMAS.verdicts]);
    expect(seen[0]?.prompt).toContain(`Question: ${QUESTION}`);
    expect(seen[0]?.prompt).toContain(`Answer: ${ANSWER}`);
    expect(seen[1]?.prompt).toContain(CONTEXT);
    expect(seen[1]?.prompt).toContain(
      `1. ${STATEMENTS[0]}\n2. ${STATEMENTS[1]}\n3. ${STATEMENTS[2]}`,
    );
  });

  it("scores 1 when every statement is supported and 0 when none is", async () => {
    const all = judgeWith({ verdicts: verdictsBy(() => true) });
    expect(await new Faithfulness({ judge: all }).score(input())).toBe(1);
    const none = judgeWith({ verdicts: verdictsBy(() => false) });
    expect(await new Faithfulness({ judge: none }).score(input())).toBe(0);
  });

  it("counts a repeated statement each time it is stated (verdicts matched one to one)", async () => {
    const twice = ["Paris is in France.", "Paris is in France.", "Paris is big."];
    const judge = judgeWith({
      statements: statementsFrom({ [ANSWER]: twice }),
      // Out of order: the repeated statement's two verdicts are not next to each other.
      verdicts: () => ({
        verdicts: [
          { statement: "Paris is in France.", reason: "", verdict: 1 },
          { statement: "Paris is big.", reason: "", verdict: 0 },
          { statement: "Paris is in France.", reason: "", verdict: 1 },
        ],
      }),
    });
    expect(await new Faithfulness({ judge }).score(input())).toBe(2 / 3);
  });

  it("takes verdicts in another order, with other case and spacing (matched by text)", async () => {
    const judge = judgeWith({
      verdicts: () => ({
        verdicts: [
          { statement: "  the eiffel tower is BLUE. ", reason: "", verdict: 0 },
          { statement: "The Eiffel  Tower is in\nParis.", reason: "", verdict: 1 },
          { statement: "THE EIFFEL TOWER IS 330 M TALL.", reason: "", verdict: 1 },
        ],
      }),
    });
    expect(await new Faithfulness({ judge }).score(input())).toBe(2 / 3);
  });

  it.each(ACCEPTED)("accepts a reply given as %s", async (_, form) => {
    const judge = judgeWith({
      statements: altered(STEPS.statements as ScriptedStep, form),
      verdicts: altered(STEPS.verdicts as ScriptedStep, form),
    });
    expect(await new Faithfulness({ judge }).score(input())).toBe(2 / 3);
  });

  describe("not applicable: a plain null, no judge call", () => {
    const cases: [string, Parameters<typeof metricInput>[0]][] = [
      ["no answer (a Retriever target)", { answer: null }],
      ["a blank answer", { answer: "  \n" }],
      ["no retrieved chunk", { retrieved: [] }],
      ["chunks without text", { retrieved: [{ id: "a" }, { id: "b" }] }],
      [
        "chunks with blank text",
        {
          retrieved: [
            { id: "a", text: " " },
            { id: "b", text: "" },
          ],
        },
      ],
    ];
    it.each(cases)("%s", async (_, parts) => {
      const judge = judgeWith();
      expect(await new Faithfulness({ judge }).score(input(parts))).toBeNull();
      expect(judge.count()).toBe(0);
    });

    it("an answer with no statement: null after the statements step, no verdicts asked", async () => {
      const judge = judgeWith({ statements: () => ({ statements: [] }) });
      expect(await new Faithfulness({ judge }).score(input())).toBeNull();
      expect(judge.count("statements")).toBe(1);
      expect(judge.count("verdicts")).toBe(0);
    });

    it("needs no reference: scores with no expected answer", async () => {
      const judge = judgeWith();
      expect(await new Faithfulness({ judge }).score(input({ expectedAnswers: [] }))).toBe(2 / 3);
    });
  });

  describe("a malformed reply: a MetricUnavailableError naming the step, never a score", () => {
    for (const step of ["statements", "verdicts"] as const) {
      it.each(MALFORMED)(`step ${step}: %s`, async (_, corrupt) => {
        const judge = judgeWith({ [step]: altered(STEPS[step] as ScriptedStep, corrupt) });
        await unavailable(new Faithfulness({ judge }).score(input()), step);
      });
    }

    const verdict =
      (v: unknown, extra: Record<string, unknown> = {}) =>
      () => ({
        verdicts: STATEMENTS.map((statement, i) => ({
          statement,
          reason: "",
          verdict: i === 1 ? v : 1,
          ...extra,
        })),
      });
    const cases: [string, () => unknown, RegExp][] = [
      ["verdict 2", verdict(2), /reply\.verdicts\[1\]\.verdict: expected one of 0, 1, found/],
      ["verdict 0.5", verdict(0.5), /reply\.verdicts\[1\]\.verdict: expected integer/],
      ["verdict true", verdict(true), /reply\.verdicts\[1\]\.verdict: expected integer/],
      [
        'verdict "yes"',
        verdict("yes"),
        /verdicts\[1\]\.verdict: expected integer, found the string "yes"/,
      ],
      [
        'verdict "1"',
        verdict("1"),
        /verdicts\[1\]\.verdict: expected integer, found the string "1"/,
      ],
      [
        "a verdict without its reason",
        () => ({ verdicts: STATEMENTS.map((statement) => ({ statement, verdict: 1 })) }),
        /reply\.verdicts\[0\]\.reason: missing/,
      ],
      [
        "a verdict without its verdict",
        () => ({ verdicts: STATEMENTS.map((statement) => ({ statement, reason: "" })) }),
        /reply\.verdicts\[0\]\.verdict: missing/,
      ],
      [
        "fewer verdicts than statements",
        () => ({ verdicts: [{ statement: STATEMENTS[0], reason: "", verdict: 1 }] }),
        /1 verdicts for the 3 statements asked about/,
      ],
      [
        "more verdicts than statements",
        () => ({
          verdicts: [...STATEMENTS, "The Eiffel Tower is old."].map((statement) => ({
            statement,
            reason: "",
            verdict: 1,
          })),
        }),
        /4 verdicts for the 3 statements asked about/,
      ],
      [
        "no verdict at all",
        () => ({ verdicts: [] }),
        /0 verdicts for the 3 statements asked about/,
      ],
      [
        "a verdict on a statement not asked about",
        () => ({
          verdicts: [STATEMENTS[0], STATEMENTS[1], "The Eiffel Tower is red."].map((statement) => ({
            statement,
            reason: "",
            verdict: 1,
          })),
        }),
        /no verdict for the statement "The Eiffel Tower is blue\."/,
      ],
      [
        "one statement answered twice, another not at all",
        () => ({
          verdicts: [STATEMENTS[0], STATEMENTS[0], STATEMENTS[1]].map((statement) => ({
            statement,
            reason: "",
            verdict: 1,
          })),
        }),
        /no verdict for the statement "The Eiffel Tower is blue\."/,
      ],
    ];
    it.each(cases)("step verdicts: %s", async (_, reply, message) => {
      const judge = judgeWith({ verdicts: reply as never });
      const error = await unavailable(new Faithfulness({ judge }).score(input()), "verdicts");
      expect(error.message).toMatch(message);
    });

    it("statements that are not strings", async () => {
      const judge = judgeWith({ statements: () => ({ statements: ["ok", 3] }) });
      const error = await unavailable(new Faithfulness({ judge }).score(input()), "statements");
      expect(error.message).toMatch(/reply\.statements\[1\]: expected string, found the number 3/);
      expect(judge.count("verdicts")).toBe(0);
    });

    it("a judge that throws: its own error, not a score", async () => {
      const judge = judgeWith({
        verdicts: () => {
          throw new Error("HTTP 500");
        },
      });
      await expect(new Faithfulness({ judge }).score(input())).rejects.toThrow("HTTP 500");
    });
  });

  it("takes its own prompt for a step, and the built-in one for the others", async () => {
    const judge = judgeWith();
    const m = new Faithfulness({
      judge,
      prompts: { statements: ({ question, answer }) => `Q=${question}\nA=${answer}` },
    });
    expect(await m.score(input())).toBe(2 / 3);
    expect(judge.calls[0]?.prompt).toBe(`Q=${QUESTION}\nA=${ANSWER}`);
    expect(judge.calls[1]?.prompt).toContain("Decide, for each statement");
  });

  it("refuses unknown and malformed options", () => {
    const judge = judgeWith();
    expect(() => new Faithfulness({ judge, prompt: () => "" } as never)).toThrow(
      'Faithfulness: unknown option "prompt"; expected judge, name, prompts, timeoutMs',
    );
    expect(() => new Faithfulness({} as never)).toThrow(
      /Faithfulness: option judge must be a function, found undefined/,
    );
    expect(() => new Faithfulness({ judge, prompts: { claim: () => "" } } as never)).toThrow(
      /option prompts names an unknown step "claim"/,
    );
    expect(() => new Faithfulness({ judge, prompts: { verdicts: "x" } } as never)).toThrow(
      /option prompts\.verdicts must be a function, found the string "x"/,
    );
    for (const bad of [{ judge, name: "" }, { judge, prompts: [] }, undefined]) {
      expect(() => new Faithfulness(bad as never)).toThrow(ConfigurationError);
    }
  });
});
