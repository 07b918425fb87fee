import type { JudgmentStep } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { judgmentViews } from "./judgments.js";

const step = (s: Omit<JudgmentStep, "key" | "attempt"> & { attempt?: number }): JudgmentStep => ({
  key: `k-${s.step}-${s.attempt ?? 0}`,
  attempt: 0,
  ...s,
});

describe("judgmentViews", () => {
  it("reads faithfulness's statements and verdicts, with their reasons and tallies", () => {
    const [statements, verdicts] = judgmentViews([
      step({
        step: "statements",
        about: "the answer",
        reply: { statements: ["Paris is the capital.", "It has 2M people."] },
      }),
      step({
        step: "verdicts",
        about: "the retrieved context",
        reply: {
          verdicts: [
            { statement: "Paris is the capital.", reason: "stated", verdict: 1 },
            { statement: "It has 2M people.", reason: "not in the context", verdict: 0 },
          ],
        },
      }),
    ]);
    expect(statements).toEqual({
      step: "statements",
      attempt: 0,
      about: "the answer",
      title: "statements of the answer",
      items: [{ text: "Paris is the capital." }, { text: "It has 2M people." }],
      fields: [],
      passed: 0,
      failed: 0,
    });
    expect(verdicts?.title).toBe("verdicts against the retrieved context");
    expect(verdicts?.items).toEqual([
      { text: "Paris is the capital.", verdict: true, label: "supported", reason: "stated" },
      {
        text: "It has 2M people.",
        verdict: false,
        label: "not supported",
        reason: "not in the context",
      },
    ]);
    expect([verdicts?.passed, verdicts?.failed]).toEqual([1, 1]);
  });

  it("reads context verdicts, attributions, claims and classifications", () => {
    const views = judgmentViews([
      step({
        step: "context_verdict",
        about: "chunk 2",
        reply: { reason: "off topic", verdict: 0 },
      }),
      step({
        step: "attributions",
        reply: { attributions: [{ statement: "s", reason: "r", attributed: 1 }] },
      }),
      step({ step: "claims", about: "the reference", reply: { claims: ["c1", "c2"] } }),
      step({
        step: "classification",
        reply: {
          TP: [{ statement: "t", reason: "in both" }],
          FP: [{ statement: "f", reason: "answer only" }],
          FN: [{ statement: "n", reason: "reference only" }],
        },
      }),
    ]);
    expect(views.map((v) => v.title)).toEqual([
      "context verdict on chunk 2",
      "attributions",
      "claims of the reference",
      "classification",
    ]);
    expect(views[0]?.items).toEqual([
      { text: "", verdict: false, label: "not useful", reason: "off topic" },
    ]);
    expect(views[1]?.items).toEqual([
      { text: "s", verdict: true, label: "attributed", reason: "r" },
    ]);
    expect(views[2]?.items).toEqual([{ text: "c1" }, { text: "c2" }]);
    expect(views[3]?.items.map((i) => [i.label, i.verdict, i.text])).toEqual([
      ["TP", true, "t"],
      ["FP", false, "f"],
      ["FN", false, "n"],
    ]);
    expect(views.every((v) => v.fields.length === 0)).toBe(true);
  });

  it("names attempts when a step was asked several times, and marks evasive answers as fails", () => {
    const views = judgmentViews([
      step({ step: "question_generation", reply: { question: "Q0?", noncommittal: 0 } }),
      step({
        step: "question_generation",
        attempt: 1,
        reply: { question: "Q1?", noncommittal: 1 },
      }),
    ]);
    expect(views.map((v) => v.title)).toEqual([
      "question generation (attempt 0)",
      "question generation (attempt 1)",
    ]);
    expect(views.map((v) => v.items[0])).toEqual([
      { text: "Q0?", verdict: true, label: "committal" },
      { text: "Q1?", verdict: false, label: "noncommittal" },
    ]);
    // A step asked once is not numbered.
    expect(judgmentViews([step({ step: "claims", reply: { claims: [] } })])[0]?.title).toBe(
      "claims",
    );
  });

  it("shows unknown steps, extra fields and replies of another shape as key/value text", () => {
    const [unknown, extra, odd, weird] = judgmentViews([
      step({ step: "my_step", about: "x", reply: { score: 0.5, notes: "fine", list: [1, "a"] } }),
      step({ step: "statements", reply: { statements: ["s"], model: "gpt" } }),
      step({ step: "verdicts", reply: { verdicts: "not a list" } }),
      step({ step: "verdicts", reply: { verdicts: [{ statement: "s", verdict: 2 }, "bare"] } }),
    ]);
    expect(unknown?.title).toBe("my_step — x");
    expect(unknown?.items).toEqual([]);
    expect(unknown?.fields).toEqual([
      ["score", "0.5"],
      ["notes", "fine"],
      ["list", '[1,"a"]'],
    ]);
    expect(extra?.items).toEqual([{ text: "s" }]);
    expect(extra?.fields).toEqual([["model", "gpt"]]);
    expect(odd?.items).toEqual([]);
    expect(odd?.fields).toEqual([["verdicts", "not a list"]]);
    expect(weird?.items).toEqual([{ text: "s", label: "2" }, { text: "bare" }]);
    expect([weird?.passed, weird?.failed]).toEqual([0, 0]);
  });

  it("never reads a step name off Object.prototype", () => {
    const [v] = judgmentViews([step({ step: "constructor", reply: { a: 1 } })]);
    expect(v?.title).toBe("constructor");
    expect(v?.fields).toEqual([["a", "1"]]);
  });
});
