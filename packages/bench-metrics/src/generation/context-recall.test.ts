import { ConfigurationError } from "@fastrag/bench-core";
import { metricInput, type ScriptedStep, scriptedJudge } from "@fastrag/bench-core/testing";
import { describe, expect, it } from "vitest";
import { ACCEPTED, altered, MALFORMED, unavailable } from "../__fixtures__/judge.js";
import { ContextRecall } from "./context-recall.js";

const QUESTION = "Tell me about the Eiffel Tower.";
const REFERENCE = "It is in Paris. It is 330 m tall. It opened in 1889. It is iron.";
const SENTENCES = ["It is in Paris.", "It is 330 m tall.", "It opened in 1889.", "It is iron."];
const CHUNKS = [
  { id: "c1", text: "The tower is in Paris." },
  { id: "c2" },
  { id: "c3", text: "It was built of iron and opened in 1889." },
];
const CONTEXT = "The tower is in Paris.\nIt was built of iron and opened in 1889.";

/** Attributions [1, 0, 1, 1]: the context says nothing of the height. */
function attributions(marks: readonly unknown[] = [1, 0, 1, 1]): ScriptedStep {
  return () => ({
    attributions: SENTENCES.map((statement, i) => ({
      statement,
      reason: "judged",
      attributed: marks[i],
    })),
  });
}

function input(parts: Parameters<typeof metricInput>[0] = {}) {
  return metricInput({
    question: QUESTION,
    answer: "whatever",
    expectedAnswers: [REFERENCE],
    retrieved: CHUNKS,
    ...parts,
  });
}

describe("ContextRecall", () => {
  it("is named context_recall, higher is better, needs no answer, reads chunk text", () => {
    const m = new ContextRecall({ judge: scriptedJudge({}) });
    expect(m.name).toBe("context_recall");
    expect(m.higherIsBetter).toBe(true);
    expect(m.needsAnswer).toBe(false);
    expect(m.needsChunkText).toBe(true);
  });

  it("is Σ attributed / number of sentences: [1, 0, 1, 1] gives 3/4", async () => {
    const judge = scriptedJudge({ attributions: attributions() });
    expect(await new ContextRecall({ judge }).score(input())).toBe(3 / 4);
    expect(judge.calls.map((c) => [c.step, c.input, c.attempt])).toEqual([
      ["attributions", { question: QUESTION, context: CONTEXT, reference: REFERENCE }, 0],
    ]);
  });

  it("is 1 when every sentence is attributed and 0 when none is", async () => {
    const all = scriptedJudge({ attributions: attributions([1, 1, 1, 1]) });
    expect(await new ContextRecall({ judge: all }).score(input())).toBe(1);
    const none = scriptedJudge({ attributions: attributions([0, 0, 0, 0]) });
    expect(await new ContextRecall({ judge: none }).score(input())).toBe(0);
  });

  it("reads the first non-empty expected answer, and scores a Retriever's output", async () => {
    const judge = scriptedJudge({ attributions: attributions() });
    const score = await new ContextRecall({ judge }).score(
      input({ answer: null, expectedAnswers: ["", "  ", REFERENCE, "Paris"] }),
    );
    expect(score).toBe(3 / 4);
    expect(judge.calls[0]?.input?.reference).toBe(REFERENCE);
  });

  it.each(ACCEPTED)("accepts a reply given as %s", async (_, form) => {
    const judge = scriptedJudge({ attributions: altered(attributions(), form) });
    expect(await new ContextRecall({ judge }).score(input())).toBe(3 / 4);
  });

  describe("not applicable: a plain null, no judge call", () => {
    const cases: [string, Parameters<typeof metricInput>[0]][] = [
      ["no expected answer", { expectedAnswers: [] }],
      ["only an empty expected answer", { expectedAnswers: [""] }],
      ["no retrieved chunk", { retrieved: [] }],
      ["chunks without text", { retrieved: [{ id: "a" }, { id: "b", text: "\n" }] }],
    ];
    it.each(cases)("%s", async (_, parts) => {
      const judge = scriptedJudge({ attributions: attributions() });
      expect(await new ContextRecall({ judge }).score(input(parts))).toBeNull();
      expect(judge.count()).toBe(0);
    });
  });

  describe("a malformed reply: a MetricUnavailableError naming the step", () => {
    it.each(MALFORMED)("%s", async (_, corrupt) => {
      const judge = scriptedJudge({ attributions: altered(attributions(), corrupt) });
      await unavailable(new ContextRecall({ judge }).score(input()), "attributions");
    });

    const cases: [string, ScriptedStep, RegExp][] = [
      [
        "no attribution for a non-empty reference",
        () => ({ attributions: [] }),
        /no attribution for a non-empty reference/,
      ],
      [
        "attributed 2",
        attributions([1, 2, 1, 1]),
        /reply\.attributions\[1\]\.attributed: expected one of 0, 1/,
      ],
      [
        'attributed "yes"',
        attributions([1, "yes", 1, 1]),
        /reply\.attributions\[1\]\.attributed: expected integer, found the string "yes"/,
      ],
      [
        "an attribution without its mark",
        () => ({ attributions: [{ statement: "It is in Paris.", reason: "" }] }),
        /reply\.attributions\[0\]\.attributed: missing/,
      ],
      [
        "attributions that are not a list",
        () => ({ attributions: { statement: "It is in Paris.", reason: "", attributed: 1 } }),
        /reply\.attributions: expected array/,
      ],
    ];
    it.each(cases)("%s", async (_, step, message) => {
      const judge = scriptedJudge({ attributions: step });
      const error = await unavailable(new ContextRecall({ judge }).score(input()), "attributions");
      expect(error.message).toMatch(message);
    });
  });

  it("refuses unknown options", () => {
    const judge = scriptedJudge({});
    expect(() => new ContextRecall({ judge, against: "answer" } as never)).toThrow(
      'ContextRecall: unknown option "against"; expected judge, name, prompts, timeoutMs',
    );
    expect(() => new ContextRecall({ judge, timeoutMs: 0 })).toThrow(ConfigurationError);
  });
});
