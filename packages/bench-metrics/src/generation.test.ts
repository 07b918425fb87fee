import type { EvalSample, MetricInput } from "@fastrag/bench-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AnswerContains, ExactMatch, normalizeAnswer, RougeL, TokenF1 } from "./generation.js";

function input(expectedAnswers: string[], answer: string | null): MetricInput {
  const sample: EvalSample = { question: "q", expectedAnswers, relevantIds: [] };
  return { sample, answer, retrieved: [], latencyMs: 0 };
}

const em = new ExactMatch();
const f1 = new TokenF1();
const contains = new AnswerContains();
const rouge = new RougeL();

describe("normalizeAnswer (SQuAD's normalize_answer)", () => {
  it("lowercases, drops ASCII punctuation and articles, collapses whitespace", () => {
    expect(normalizeAnswer("  The Eiffel  Tower! ")).toBe("eiffel tower");
    expect(normalizeAnswer("An apple a day")).toBe("apple day");
    expect(normalizeAnswer("U.S.A.")).toBe("usa");
    expect(normalizeAnswer("rock-and-roll")).toBe("rockandroll");
    expect(normalizeAnswer("theatre, anthem, area")).toBe("theatre anthem area");
    expect(normalizeAnswer("the")).toBe("");
  });

  it("removes punctuation before articles, so 'the.' and '(a)' vanish", () => {
    expect(normalizeAnswer("(a) the. cat")).toBe("cat");
  });

  it("keeps non-ASCII letters and punctuation (no accent folding)", () => {
    expect(normalizeAnswer("Beyoncé")).toBe("beyoncé");
    expect(normalizeAnswer("Beyonce")).not.toBe(normalizeAnswer("Beyoncé"));
    expect(normalizeAnswer("“quoted”")).toBe("“quoted”");
  });

  it("uses Python's Unicode word boundaries, not JavaScript's ASCII \\b", () => {
    // Python: ß is a word character, so "the" in "ßthe" is not a word and stays.
    expect(normalizeAnswer("ßthe a")).toBe("ßthe");
    expect(normalizeAnswer("éan the")).toBe("éan");
    // A digit is a word character too.
    expect(normalizeAnswer("2the")).toBe("2the");
  });

  it("lowercases as Python's str.lower() does", () => {
    // evaluate-v2.0.py: final sigma becomes ς, İ becomes i + U+0307, ẞ becomes ß, ﬁ stays.
    expect(normalizeAnswer("ΟΔΟΣ ΑΣ.")).toBe("οδος ας");
    expect(normalizeAnswer("ΑΣ'Α")).toBe("ασα");
    expect(normalizeAnswer("İstanbul")).toBe("i\u0307stanbul");
    expect(normalizeAnswer("ẞ ﬁsh")).toBe("ß ﬁsh");
    // A combining mark is not a word character, so "the" before one is an article.
    expect(normalizeAnswer("the\u0301 cat")).toBe("\u0301 cat");
  });

  it("splits on Python's whitespace set", () => {
    expect(normalizeAnswer("x\u0085y\u001fz")).toBe("x y z");
    expect(normalizeAnswer("x\u3000y")).toBe("x y");
    // U+FEFF is whitespace to JavaScript's \s but not to Python's str.split().
    expect(normalizeAnswer("x\ufeffy")).toBe("x\ufeffy");
  });
});

describe("ExactMatch and TokenF1", () => {
  it("scores the official way on hand-computed cases", () => {
    expect(em.score(input(["The Eiffel Tower"], "eiffel tower!"))).toBe(1);
    expect(em.score(input(["Paris"], "Paris, France"))).toBe(0);
    // gold [cat, sat, on, mat], answer [cat, on, mat, mat]: 3 shared → P = R = 3/4.
    expect(f1.score(input(["the cat sat on the mat"], "cat on mat mat"))).toBe(0.75);
    // gold [paris], answer [paris, france]: P = 1/2, R = 1 → 2/3.
    expect(f1.score(input(["Paris"], "Paris, France"))).toBeCloseTo(2 / 3, 15);
    expect(f1.score(input(["Paris"], "London"))).toBe(0);
  });

  it("takes the maximum over expected answers", () => {
    expect(em.score(input(["London", "Paris"], "paris"))).toBe(1);
    expect(f1.score(input(["big red house", "red house"], "the red house"))).toBe(1);
    // gold [w, x, y, z], answer [x, y]: P = 1, R = 1/2 → 2/3 (the other gold shares nothing).
    expect(f1.score(input(["w x y z", "q"], "x y"))).toBeCloseTo(2 / 3, 15);
  });

  it("follows SQuAD v2's no-answer rules", () => {
    // Unanswerable: gold [""]; only an empty answer is right.
    expect(em.score(input([""], ""))).toBe(1);
    expect(f1.score(input([""], ""))).toBe(1);
    expect(em.score(input([""], "Paris"))).toBe(0);
    expect(f1.score(input([""], "Paris"))).toBe(0);
    // Golds normalizing to "" are dropped when another one is left…
    expect(em.score(input(["", "the", "Paris"], ""))).toBe(0);
    expect(f1.score(input(["", "Paris"], "Paris"))).toBe(1);
    // …and when none is left, the question has no answer.
    expect(em.score(input(["the", "!"], ""))).toBe(1);
    expect(f1.score(input(["Paris"], ""))).toBe(0);
  });

  it("is null without expected answers or without an answer", () => {
    expect(em.score(input([], "x"))).toBeNull();
    expect(f1.score(input([], "x"))).toBeNull();
    expect(em.score(input(["x"], null))).toBeNull();
  });

  it("has the result names and directions of DESIGN §3", () => {
    expect([em.name, f1.name, contains.name, rouge.name]).toEqual([
      "exact_match",
      "f1",
      "answer_contains",
      "rouge_l",
    ]);
    expect([em.needsAnswer, em.needsRelevantIds, em.higherIsBetter]).toEqual([true, false, true]);
  });
});

describe("AnswerContains", () => {
  it("is 1 when a normalized expected answer is inside the normalized answer", () => {
    expect(
      contains.score(input(["Eiffel Tower"], "It is the eiffel-tower? No: the Eiffel Tower.")),
    ).toBe(1);
    expect(contains.score(input(["Louvre", "Orsay"], "The Musée d'Orsay"))).toBe(1);
    expect(contains.score(input(["Louvre"], "the Orsay"))).toBe(0);
    // Character substring, as documented.
    expect(contains.score(input(["art"], "start"))).toBe(1);
  });

  it("matches an unanswerable question only with an empty answer", () => {
    expect(contains.score(input([""], "anything"))).toBe(0);
    expect(contains.score(input([""], "the"))).toBe(1);
  });

  it("matches whole characters: a lone surrogate is not half of an emoji", () => {
    // Python's `in` compares code points: "\ud83d" in "😀" is False, so the reference
    // (normalize_answer + `in`) gives 0 for these three, where String.includes said 1.
    expect(contains.score(input(["\ud83d"], "😀"))).toBe(0);
    expect(contains.score(input(["\ude00"], "😀 x"))).toBe(0);
    expect(contains.score(input(["x\ud83d"], "x😀"))).toBe(0);
    // The same lone surrogate standing alone, or once whole after a split match, is found: 1.
    expect(contains.score(input(["\ud83d"], "\ud83d x"))).toBe(1);
    expect(contains.score(input(["\ud83d"], "😀 \ud83d"))).toBe(1);
    expect(contains.score(input(["\ude00"], "😀\ude00"))).toBe(1);
    // Whole emoji still match inside longer text: 1.
    expect(contains.score(input(["😀"], "smile 😀!"))).toBe(1);
  });
});

describe("RougeL", () => {
  it("is the LCS F1 of lowercase letter/digit tokens", () => {
    // ref: the cat sat on the mat (6), cand: the cat on the mat (5), LCS 5 → P 1, R 5/6.
    expect(rouge.score(input(["The cat sat on the mat."], "the cat on the mat"))).toBeCloseTo(
      10 / 11,
      15,
    );
    // LCS of [a b c d] and [b d a]: 2 ("b d"): P 2/3, R 2/4.
    expect(rouge.score(input(["a b c d"], "b d a"))).toBeCloseTo(
      (2 * (2 / 3) * 0.5) / (2 / 3 + 0.5),
      15,
    );
    expect(rouge.score(input(["x"], "y"))).toBe(0);
    expect(rouge.score(input(["naïve café"], "Naïve CAFÉ"))).toBe(1);
  });

  it("weighs recall with beta", () => {
    const r = new RougeL({ beta: 2 });
    // P = 1, R = 1/2: F2 = 5 · 1 · 0.5 / (0.5 + 4) = 5/9.
    expect(r.score(input(["a b"], "a"))).toBeCloseTo(5 / 9, 15);
    expect(() => new RougeL({ beta: 0 })).toThrow(/beta must be a positive number/);
  });

  it("treats expected answers without tokens like SQuAD's no-answer", () => {
    expect(rouge.score(input(["", "?"], ""))).toBe(1);
    expect(rouge.score(input([""], "Paris"))).toBe(0);
    expect(rouge.score(input(["", "Paris"], "Paris"))).toBe(1);
    expect(rouge.score(input(["Paris"], ""))).toBe(0);
    expect(rouge.score(input([], "Paris"))).toBeNull();
  });
});

describe("generation metric properties", () => {
  const text = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc
      .array(fc.constantFrom("the", "a", "cat", "Cat", "sat", "mat!", "é", "", " "), {
        maxLength: 8,
      })
      .map((w) => w.join(" ")),
  );

  it("every score lies in [0, 1] or is null", () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 4 }), text, (expected, answer) => {
        for (const m of [em, f1, contains, rouge]) {
          const v = m.score(input(expected, answer)) as number | null;
          if (expected.length === 0) expect(v).toBeNull();
          else expect(v !== null && v >= 0 && v <= 1, `${m.name} = ${v}`).toBe(true);
        }
      }),
    );
  });

  it("an exact match has F1 1, contains the answer, and ROUGE-L 1 when it has tokens", () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 4 }), text, (expected, answer) => {
        if (em.score(input(expected, answer)) === 1) {
          expect(f1.score(input(expected, answer))).toBe(1);
          expect(contains.score(input(expected, answer))).toBe(1);
        }
      }),
    );
  });

  it("normalization is idempotent", () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const n = normalizeAnswer(s);
        expect(normalizeAnswer(n)).toBe(n);
      }),
    );
  });

  it("F1 is symmetric in answer and single expected answer", () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(f1.score(input([a], b))).toBe(f1.score(input([b], a)));
      }),
    );
  });
});
