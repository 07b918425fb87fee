import { ConfigurationError, type RetrievedChunk } from "@fastrag/bench-core";
import { metricInput, type ScriptedStep, scriptedJudge } from "@fastrag/bench-core/testing";
import { describe, expect, it } from "vitest";
import {
  ACCEPTED,
  altered,
  judgingContext,
  MALFORMED,
  unavailable,
} from "../__fixtures__/judge.js";
import { ContextPrecision } from "./context-precision.js";

const QUESTION = "Where is the Eiffel Tower?";
const REFERENCE = "In Paris.";

/** Chunks whose text says whether the judge finds them useful: "useful …" or "noise …". */
function chunks(verdicts: readonly (0 | 1)[]): RetrievedChunk[] {
  return verdicts.map((v, i) => ({ id: `c${i}`, text: `${v === 1 ? "useful" : "noise"} ${i}` }));
}

const byText: ScriptedStep = ({ context }: { context: string }) => ({
  reason: "judged",
  verdict: context.startsWith("useful") ? 1 : 0,
});

function judgeWith(step: ScriptedStep = byText) {
  return scriptedJudge({ context_verdict: step });
}

function input(parts: Parameters<typeof metricInput>[0] = {}) {
  return metricInput({ question: QUESTION, expectedAnswers: [REFERENCE], ...parts });
}

async function precision(verdicts: readonly (0 | 1)[]): Promise<number | null> {
  return new ContextPrecision({ judge: judgeWith() }).score(input({ retrieved: chunks(verdicts) }));
}

describe("ContextPrecision", () => {
  it("is named context_precision (context_utilization against the answer)", () => {
    const judge = judgeWith();
    const m = new ContextPrecision({ judge });
    expect(m.name).toBe("context_precision");
    expect(m.higherIsBetter).toBe(true);
    expect(m.needsAnswer).toBe(false);
    expect(m.needsChunkText).toBe(true);
    const u = new ContextPrecision({ judge, against: "answer" });
    expect(u.name).toBe("context_utilization");
    expect(u.needsAnswer).toBe(true);
    expect(new ContextPrecision({ judge, against: "reference" }).name).toBe("context_precision");
    expect(new ContextPrecision({ judge, against: "answer", name: "cu" }).name).toBe("cu");
  });

  it("is the average precision of the verdicts in rank order", async () => {
    // Σ_k v_k · (Σ_{j≤k} v_j / k) / Σ_k v_k, by hand:
    expect(await precision([1, 0, 1])).toBe((1 / 1 + 2 / 3) / 2);
    expect(await precision([0, 1])).toBe(1 / 2);
    expect(await precision([0, 1, 1])).toBe((1 / 2 + 2 / 3) / 2);
    expect(await precision([0, 0, 0, 1])).toBe(1 / 4);
    expect(await precision([1, 0, 0, 1, 1])).toBe((1 / 1 + 2 / 4 + 3 / 5) / 3);
  });

  it("is exactly 1 for a perfect ranking (RAGAS's 1e-10 gives 0.9999999999)", async () => {
    expect(await precision([1])).toBe(1);
    expect(await precision([1, 1, 1])).toBe(1);
    // Every useful chunk first: the useless ones after them cost nothing.
    expect(await precision([1, 1, 0, 0])).toBe(1);
  });

  it("is 0 when no chunk is useful", async () => {
    expect(await precision([0])).toBe(0);
    expect(await precision([0, 0, 0])).toBe(0);
  });

  it("asks one context_verdict per chunk with text, in rank order, with its own text", async () => {
    const judge = judgeWith();
    const retrieved = [
      { id: "a", text: "useful 1" },
      { id: "b" },
      { id: "c", text: "noise 2" },
      { id: "d", text: "  " },
      { id: "e", text: "useful 3" },
    ];
    // The chunks without text take no rank: the verdicts are [1, 0, 1], not [1, ?, 0, ?, 1].
    const score = await new ContextPrecision({ judge }).score(
      input({ retrieved, expectedAnswers: ["", " ", REFERENCE, "Paris, France"] }),
    );
    expect(score).toBe((1 / 1 + 2 / 3) / 2);
    // The reference is the first non-empty expected answer.
    expect(judge.calls.map((c) => [c.step, c.input, c.attempt])).toEqual([
      ["context_verdict", { question: QUESTION, context: "useful 1", reference: REFERENCE }, 0],
      ["context_verdict", { question: QUESTION, context: "noise 2", reference: REFERENCE }, 0],
      ["context_verdict", { question: QUESTION, context: "useful 3", reference: REFERENCE }, 0],
    ]);
  });

  it("ties: two chunks with one text get one verdict, counted at both ranks", async () => {
    const judge = judgeWith();
    const retrieved = [
      { id: "a", text: "noise 0" },
      { id: "b", text: "useful 1" },
      { id: "c", text: "useful 1" },
    ];
    const judging = judgingContext();
    const score = await new ContextPrecision({ judge }).score({
      ...input({ retrieved }),
      judging,
    });
    expect(score).toBe((1 / 2 + 2 / 3) / 2);
    // Within a sample the same question is asked once.
    expect(judge.count()).toBe(2);
    expect(judging.steps.context_precision?.map((s) => s.about)).toEqual([
      "chunk 1",
      "chunk 2",
      "chunk 3",
    ]);
  });

  it('against: "answer" judges each chunk against the answer (context utilization)', async () => {
    const judge = judgeWith();
    const m = new ContextPrecision({ judge, against: "answer" });
    const score = await m.score(
      input({ answer: "It is in Paris.", expectedAnswers: [], retrieved: chunks([0, 1]) }),
    );
    expect(score).toBe(1 / 2);
    expect(judge.calls.map((c) => (c.input as { reference: string }).reference)).toEqual([
      "It is in Paris.",
      "It is in Paris.",
    ]);
    expect(judge.calls[0]?.metric).toBe("context_utilization");
  });

  it("needs no answer against the reference: a Retriever's output is scored", async () => {
    const judge = judgeWith();
    const score = await new ContextPrecision({ judge }).score(
      input({ answer: null, retrieved: chunks([1, 0]) }),
    );
    expect(score).toBe(1);
  });

  describe("not applicable: a plain null, no judge call", () => {
    const cases: [string, "reference" | "answer", Parameters<typeof metricInput>[0]][] = [
      ["no expected answer", "reference", { expectedAnswers: [] }],
      ["only an empty expected answer", "reference", { expectedAnswers: [""] }],
      ["only blank expected answers", "reference", { expectedAnswers: [" ", "\t"] }],
      ["no retrieved chunk", "reference", { retrieved: [] }],
      ["chunks without text", "reference", { retrieved: [{ id: "a" }, { id: "b", text: "" }] }],
      ["no answer, against the answer", "answer", { answer: null }],
      ["a blank answer, against the answer", "answer", { answer: "   " }],
      ["chunks without text, against the answer", "answer", { retrieved: [{ id: "a" }] }],
    ];
    it.each(cases)("%s", async (_, against, parts) => {
      const judge = judgeWith();
      const m = new ContextPrecision({ judge, against });
      expect(
        await m.score(input({ answer: "Paris", retrieved: chunks([1, 0]), ...parts })),
      ).toBeNull();
      expect(judge.count()).toBe(0);
    });
  });

  describe("a malformed reply: a MetricUnavailableError naming the step", () => {
    it.each(MALFORMED)("%s", async (_, corrupt) => {
      const judge = judgeWith(altered(byText, corrupt));
      await unavailable(
        new ContextPrecision({ judge }).score(input({ retrieved: chunks([1, 0]) })),
        "context_verdict",
      );
    });

    const cases: [string, unknown, RegExp][] = [
      ["verdict 2", { reason: "", verdict: 2 }, /reply\.verdict: expected one of 0, 1, found/],
      ['verdict "yes"', { reason: "", verdict: "yes" }, /reply\.verdict: expected integer/],
      ["verdict -1", { reason: "", verdict: -1 }, /reply\.verdict: expected one of 0, 1/],
      ["no verdict", { reason: "useful" }, /reply\.verdict: missing/],
      ["no reason", { verdict: 1 }, /reply\.reason: missing/],
      ["a reason that is not text", { reason: 1, verdict: 1 }, /reply\.reason: expected string/],
    ];
    it.each(cases)("%s", async (_, reply, message) => {
      // Only the second chunk's reply is malformed: the whole score is unavailable, never a
      // score from the chunks that did reply.
      const judge = judgeWith(({ context }: { context: string }) =>
        context === "noise 1" ? (reply as never) : { reason: "", verdict: 1 },
      );
      const error = await unavailable(
        new ContextPrecision({ judge }).score(input({ retrieved: chunks([1, 0, 1]) })),
        "context_verdict",
      );
      expect(error.message).toMatch(message);
    });
  });

  it.each(ACCEPTED)("accepts a reply given as %s", async (_, form) => {
    const judge = judgeWith(altered(byText, form));
    const score = await new ContextPrecision({ judge }).score(
      input({ retrieved: chunks([1, 0, 1]) }),
    );
    expect(score).toBe((1 / 1 + 2 / 3) / 2);
  });

  it("refuses a bad against and unknown options", () => {
    const judge = judgeWith();
    for (const against of ["gold", "Answer", "", 1, null]) {
      expect(() => new ContextPrecision({ judge, against } as never)).toThrow(ConfigurationError);
    }
    expect(() => new ContextPrecision({ judge, against: "gold" } as never)).toThrow(
      'ContextPrecision: option against must be "reference" or "answer", found the string "gold"',
    );
    expect(() => new ContextPrecision({ judge, k: 3 } as never)).toThrow(
      'ContextPrecision: unknown option "k"; expected judge, name, prompts, timeoutMs, against',
    );
  });
});
