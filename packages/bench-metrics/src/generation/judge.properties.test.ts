// Ranges and invariants of the judge metrics under random, but consistent, scripted judges.
import { fakeEmbed, metricInput, scriptedJudge } from "@fastrag/bench-core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { judgingContext } from "../__fixtures__/judge.js";
import { AnswerCorrectness } from "./answer-correctness.js";
import { AnswerRelevancy } from "./answer-relevancy.js";
import { ContextPrecision } from "./context-precision.js";
import { ContextRecall } from "./context-recall.js";
import { FactualCorrectness } from "./factual-correctness.js";
import { Faithfulness } from "./faithfulness.js";
import { NoiseSensitivity } from "./noise-sensitivity.js";

const ANSWER = "the answer";
const REFERENCE = "the reference";

/** One random sample and a world the judge answers from, consistently. */
interface World {
  /** The answer's statements and the reference's. */
  readonly ans: readonly string[];
  readonly ref: readonly string[];
  /** Per retrieved chunk: its text ("chunk i") or none. */
  readonly texts: readonly (string | null)[];
  /** support[s] = the chunks (by index) that support statement s. */
  readonly support: ReadonlyMap<string, ReadonlySet<number>>;
  /** The answer statements the reference supports. */
  readonly correct: ReadonlySet<string>;
  /** The reference statements the answer supports (factual correctness's recall side). */
  readonly covered: ReadonlySet<string>;
  /** Per chunk: was it useful (context_verdict). */
  readonly useful: readonly (0 | 1)[];
  /** Attributions of the reference's sentences. */
  readonly attributed: readonly (0 | 1)[];
  /** Generated questions (one per attempt) and their noncommittal flags. */
  readonly generated: readonly { readonly vector: readonly number[]; readonly flag: 0 | 1 }[];
  readonly questionVector: readonly number[];
  readonly answerVector: readonly number[];
  readonly referenceVector: readonly number[];
  /** Classification of the answer statements (true: TP) and the reference's missed (FN). */
  readonly tp: readonly boolean[];
  readonly fn: readonly boolean[];
}

const bit = fc.constantFrom<0 | 1>(0, 1);
/** A vector with a direction: not all zero. */
const vector = (min: number) =>
  fc
    .array(fc.integer({ min, max: 5 }), { minLength: 3, maxLength: 3 })
    .filter((v) => v.some((x) => x !== 0));

function world(nonNegative: boolean): fc.Arbitrary<World> {
  const v = vector(nonNegative ? 0 : -5);
  return fc
    .record({
      nAns: fc.integer({ min: 0, max: 6 }),
      nRef: fc.integer({ min: 0, max: 4 }),
      hasText: fc.array(fc.boolean(), { minLength: 0, maxLength: 5 }),
      seed: fc.array(fc.boolean(), { minLength: 10 * 5 + 40, maxLength: 10 * 5 + 40 }),
      useful: fc.array(bit, { minLength: 5, maxLength: 5 }),
      attributed: fc.array(bit, { minLength: 1, maxLength: 4 }),
      generated: fc.array(fc.record({ vector: v, flag: bit }), { minLength: 1, maxLength: 4 }),
      questionVector: v,
      answerVector: v,
      referenceVector: v,
    })
    .map((r) => {
      const ans = Array.from({ length: r.nAns }, (_, i) => `a${i}`);
      const ref = Array.from({ length: r.nRef }, (_, i) => `r${i}`);
      const texts = r.hasText.map((t, i) => (t ? `chunk ${i}` : null));
      let k = 0;
      const next = (): boolean => r.seed[k++ % r.seed.length] === true;
      const support = new Map<string, Set<number>>();
      for (const s of [...ref, ...ans]) {
        const chunks = new Set<number>();
        for (let c = 0; c < texts.length; c++) if (next()) chunks.add(c);
        support.set(s, chunks);
      }
      return {
        ans,
        ref,
        texts,
        support,
        correct: new Set(ans.filter(() => next())),
        covered: new Set(ref.filter(() => next())),
        useful: r.useful,
        attributed: r.attributed,
        generated: r.generated,
        questionVector: r.questionVector,
        answerVector: r.answerVector,
        referenceVector: r.referenceVector,
        tp: ans.map(() => next()),
        fn: ref.map(() => next()),
      };
    });
}

/**
 * The judge of a world. A context supports a statement iff one of the chunks it joins does (so
 * the joined context and the chunks alone agree), the reference supports the `correct` answer
 * statements, and the answer the `covered` reference statements.
 */
function judgeOf(w: World) {
  const chunkIndex = (line: string): number =>
    line.startsWith("chunk ") ? Number(line.slice(6)) : -1;
  const verdict = (s: string) => ({ statement: s, reason: "", verdict: 1 as const });
  const no = (s: string) => ({ statement: s, reason: "", verdict: 0 as const });
  return scriptedJudge({
    statements: ({ answer }: { answer: string }) => ({
      statements: [...(answer === ANSWER ? w.ans : w.ref)],
    }),
    claims: ({ text }: { text: string }) => ({ claims: [...(text === ANSWER ? w.ans : w.ref)] }),
    verdicts: ({ context, statements }: { context: string; statements: string[] }) => ({
      verdicts: statements.map((s) => {
        if (context === REFERENCE) return w.correct.has(s) ? verdict(s) : no(s);
        if (context === ANSWER) return w.covered.has(s) ? verdict(s) : no(s);
        const chunks = context.split("\n").map(chunkIndex);
        return chunks.some((c) => w.support.get(s)?.has(c)) ? verdict(s) : no(s);
      }),
    }),
    context_verdict: ({ context }: { context: string }) => ({
      reason: "",
      verdict: w.useful[chunkIndex(context)] ?? 0,
    }),
    attributions: () => ({
      attributions: w.attributed.map((a, i) => ({ statement: `r${i}`, reason: "", attributed: a })),
    }),
    question_generation: (_input, { attempt }) => ({
      question: `generated ${attempt}`,
      noncommittal: w.generated[attempt]?.flag ?? 0,
    }),
    classification: ({ answer, ground_truth }: { answer: string[]; ground_truth: string[] }) => ({
      TP: answer.filter((_, i) => w.tp[i]).map((statement) => ({ statement, reason: "" })),
      FP: answer.filter((_, i) => !w.tp[i]).map((statement) => ({ statement, reason: "" })),
      FN: ground_truth.filter((_, i) => w.fn[i]).map((statement) => ({ statement, reason: "" })),
    }),
  });
}

function embedOf(w: World) {
  return fakeEmbed((text) => {
    if (text === "question") return w.questionVector;
    if (text === ANSWER) return w.answerVector;
    if (text === REFERENCE) return w.referenceVector;
    const attempt = Number(text.slice("generated ".length));
    return w.generated[attempt]?.vector as readonly number[];
  });
}

function inputOf(w: World) {
  return {
    ...metricInput({
      question: "question",
      answer: ANSWER,
      expectedAnswers: [REFERENCE],
      retrieved: w.texts.map((text, i) =>
        text === null ? { id: `c${i}` } : { id: `c${i}`, text },
      ),
    }),
    judging: judgingContext(),
  };
}

function inUnit(v: number | null): boolean {
  return v === null || (v >= 0 && v <= 1);
}

describe("judge metrics under a consistent scripted judge", () => {
  it("every score lies in [0, 1] (answer_relevancy in [-1, 1]), or is null", async () => {
    await fc.assert(
      fc.asyncProperty(world(true), async (w) => {
        const judge = judgeOf(w);
        const embed = embedOf(w);
        const input = inputOf(w);
        const unit = [
          new Faithfulness({ judge }),
          new ContextPrecision({ judge }),
          new ContextPrecision({ judge, against: "answer" }),
          new ContextRecall({ judge }),
          new FactualCorrectness({ judge }),
          new FactualCorrectness({ judge, mode: "precision" }),
          new FactualCorrectness({ judge, mode: "recall", beta: 3 }),
          new NoiseSensitivity({ judge }),
          new NoiseSensitivity({ judge, mode: "irrelevant" }),
          new AnswerCorrectness({ judge, embed }),
          new AnswerCorrectness({ judge, embed, weights: [1, 3], beta: 0.5 }),
        ];
        for (const m of unit) {
          const v = await m.score(input);
          expect(inUnit(v), `${m.name} = ${v}`).toBe(true);
        }
        const relevancy = new AnswerRelevancy({ judge, embed, strictness: w.generated.length });
        const r = (await relevancy.score(input)) as number;
        expect(r >= -1 - 1e-12 && r <= 1 + 1e-12, `answer_relevancy = ${r}`).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it("answer_relevancy lies in [-1, 1] for vectors of any sign", async () => {
    await fc.assert(
      fc.asyncProperty(world(false), async (w) => {
        const m = new AnswerRelevancy({
          judge: judgeOf(w),
          embed: embedOf(w),
          strictness: w.generated.length,
        });
        const r = (await m.score(inputOf(w))) as number;
        expect(r >= -1 - 1e-12 && r <= 1 + 1e-12, `answer_relevancy = ${r}`).toBe(true);
        if (w.generated.every((g) => g.flag === 1)) expect(r).toBe(0);
      }),
      { numRuns: 100 },
    );
  });

  it("noise_sensitivity + noise_sensitivity_irrelevant ≤ faithfulness", async () => {
    // Both modes count answer statements that some chunk supports (disjointly); faithfulness
    // counts those the joined context supports, a superset under a consistent judge.
    await fc.assert(
      fc.asyncProperty(world(true), async (w) => {
        const judge = judgeOf(w);
        const input = inputOf(w);
        const [relevant, irrelevant, faithful] = await Promise.all([
          new NoiseSensitivity({ judge }).score(input),
          new NoiseSensitivity({ judge, mode: "irrelevant" }).score(input),
          new Faithfulness({ judge }).score(input),
        ]);
        const applicable = w.ans.length > 0 && w.texts.some((t) => t !== null);
        expect(faithful === null).toBe(!applicable);
        if (faithful === null) {
          expect([relevant, irrelevant]).toEqual([null, null]);
          return;
        }
        expect((relevant as number) + (irrelevant as number)).toBeLessThanOrEqual(faithful + 1e-12);
      }),
      { numRuns: 150 },
    );
  });
});

describe("context_precision over random verdicts", () => {
  const verdicts = fc.array(bit, { minLength: 1, maxLength: 12 });

  async function precisionOf(v: readonly (0 | 1)[]): Promise<number> {
    const judge = scriptedJudge({
      context_verdict: ({ context }: { context: string }) => ({
        reason: "",
        verdict: v[Number(context.slice(6))] as 0 | 1,
      }),
    });
    const input = metricInput({
      expectedAnswers: ["gold"],
      retrieved: v.map((_, i) => ({ id: `c${i}`, text: `chunk ${i}` })),
    });
    return (await new ContextPrecision({ judge }).score(input)) as number;
  }

  it("is exactly 1 when every useful chunk comes first, and 0 iff no verdict is 1", async () => {
    await fc.assert(
      fc.asyncProperty(verdicts, async (v) => {
        const score = await precisionOf(v);
        expect(score >= 0 && score <= 1).toBe(true);
        expect(score === 0).toBe(v.every((x) => x === 0));
        const sorted = [...v].sort((a, b) => b - a);
        if (sorted[0] === 1) expect(await precisionOf(sorted)).toBe(1);
      }),
      { numRuns: 150 },
    );
  });

  it("never falls when a useful chunk swaps places with a useless one above it", async () => {
    await fc.assert(
      fc.asyncProperty(verdicts, fc.nat(), async (v, at) => {
        const i = at % v.length;
        const j = v.indexOf(0);
        fc.pre(v[i] === 1 && j !== -1 && j < i);
        const better = [...v];
        better[j] = 1;
        better[i] = 0;
        expect(await precisionOf(better)).toBeGreaterThanOrEqual(await precisionOf(v));
      }),
      { numRuns: 150 },
    );
  });
});
