import { describe, expect, it } from "vitest";
import { aboutLine, fmt } from "./diff.js";

describe("diff's numbers", () => {
  it("never print a non-zero value as 0", () => {
    expect(fmt(0.00002)).toBe("0.000020");
    expect(fmt(-0.000036)).toBe("-0.000036");
    expect(fmt(0.25)).toBe("0.2500");
    expect(fmt(0)).toBe("0");
    expect(fmt(3)).toBe("3");
    expect(fmt(null)).toBe("—");
  });
});

describe("diff's line under a changed sample", () => {
  const change = (sampleId: string | undefined, question: string) => ({
    ...(sampleId === undefined ? {} : { sampleId }),
    question,
    baseline: 1,
    candidate: 0,
    change: -1,
    baselineStatus: "successful" as const,
    candidateStatus: "successful" as const,
    error: null,
  });
  const record = (expectedAnswers?: string[]) => ({
    question: "q",
    status: "successful" as const,
    scores: {},
    answer: null,
    retrievedIds: [],
    retrievedUris: [],
    latencyMs: null,
    error: null,
    ...(expectedAnswers === undefined ? {} : { expectedAnswers }),
  });

  it("shows the question beside an id, and short gold answers", () => {
    expect(aboutLine(change("s1", "Who was the Norse leader?"), record(["Rollo", ""]))).toBe(
      '"Who was the Norse leader?"  gold: "Rollo" | (no answer)',
    );
  });

  it("counts long gold answers, and leaves out what the id line already showed", () => {
    const long = ["a".repeat(40), "b".repeat(40)];
    expect(aboutLine(change(undefined, "What?"), record(long))).toBe("gold: 2 answers");
    expect(aboutLine(change(undefined, "What?"), record())).toBe("");
    expect(aboutLine(change(undefined, "What?"), undefined)).toBe("");
  });

  it("cuts a long question and escapes control characters", () => {
    const line = aboutLine(change("s1", `${"x".repeat(150)}`), undefined);
    expect(line).toBe(JSON.stringify(`${"x".repeat(99)}…`));
    expect(aboutLine(change("s1", "a\u001b[2Jb"), undefined)).not.toContain("\u001b");
  });
});
