/**
 * Differential parity with the official SQuAD v2.0 evaluation on adversarial text. The fixture
 * `__fixtures__/squad-official/cases.json` holds 850 cases (27 pinned, then random ones built from
 * ASCII and Unicode punctuation, articles in every case, Python's and JavaScript's whitespace
 * sets, case-folding traps — İ, ẞ, final Σ, ﬁ — combining marks, emoji and lone surrogates,
 * digits of other scripts, repeated tokens, empty and whitespace-only answers) with the scores
 * that evaluate-v2.0.py's own functions gave under Python 3.11. `squad_official.py` beside it
 * holds those functions verbatim and regenerates the file; CI needs no Python to run this test.
 */
import { readFileSync } from "node:fs";
import type { MetricInput } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { AnswerContains, ExactMatch, TokenF1 } from "./generation.js";

interface OfficialCase {
  readonly expected: string[];
  readonly answer: string;
  /** evaluate-v2.0.py: max over gold answers of compute_exact. */
  readonly exact: number;
  /** evaluate-v2.0.py: max over gold answers of compute_f1. */
  readonly f1: number;
  /** Our AnswerContains' definition over the official normalize_answer (not in the script). */
  readonly contains: number;
}

const FIXTURE = new URL("./__fixtures__/squad-official/cases.json", import.meta.url);
const { cases } = JSON.parse(readFileSync(FIXTURE, "utf8")) as { cases: OfficialCase[] };

function input(c: OfficialCase): MetricInput {
  return {
    sample: { question: "q", expectedAnswers: c.expected, relevantIds: [] },
    answer: c.answer,
    retrieved: [],
    latencyMs: 0,
  };
}

/** The cases where `ours` disagrees with the official value, as readable lines. */
function mismatches(
  metric: { score(input: MetricInput): unknown },
  official: (c: OfficialCase) => number,
  tolerance: number,
): string[] {
  const out: string[] = [];
  cases.forEach((c, i) => {
    const ours = metric.score(input(c));
    if (typeof ours !== "number" || !(Math.abs(ours - official(c)) <= tolerance)) {
      out.push(
        `#${i} ${JSON.stringify([c.expected, c.answer])}: ours ${ours}, official ${official(c)}`,
      );
    }
  });
  return out;
}

describe("SQuAD v2.0 parity on adversarial text (evaluate-v2.0.py outputs)", () => {
  it("has the fixture's cases, with every kind of score represented", () => {
    expect(cases).toHaveLength(850);
    // Guards against a fixture that could not catch anything (all zeros, all ones).
    expect(cases.filter((c) => c.exact === 1).length).toBeGreaterThan(100);
    expect(cases.filter((c) => c.f1 > 0 && c.f1 < 1).length).toBeGreaterThan(100);
    expect(cases.filter((c) => c.contains === 1).length).toBeGreaterThan(100);
  });

  it("ExactMatch equals compute_exact's max on every case", () => {
    expect(mismatches(new ExactMatch(), (c) => c.exact, 0)).toEqual([]);
  });

  it("TokenF1 equals compute_f1's max to 1e-12 on every case", () => {
    expect(mismatches(new TokenF1(), (c) => c.f1, 1e-12)).toEqual([]);
  });

  it("AnswerContains equals its definition over the official normalize_answer", () => {
    expect(mismatches(new AnswerContains(), (c) => c.contains, 0)).toEqual([]);
  });
});
