import {
  ConfigurationError,
  type Metric,
  type MetricInput,
  MetricUnavailableError,
} from "@fastrag/bench-core";
import { fakeEmbed, scriptedJudge } from "@fastrag/bench-core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AnswerContains,
  AnswerCorrectness,
  AnswerRelevancy,
  ContextPrecision,
  ContextRecall,
  ExactMatch,
  FactualCorrectness,
  Faithfulness,
  NoiseSensitivity,
  RougeL,
  SemanticSimilarity,
  TokenF1,
} from "./generation.js";
import { Cost, Latency, Tokens } from "./operational.js";
import { HitRate, MAP, MRR, NDCG, Precision, Recall, RPrecision } from "./retrieval.js";

// Users call `metric.score(input)` from their own harnesses: an input that breaks MetricInput's
// shape must be a ConfigurationError naming the metric and the field, never a TypeError from a
// kernel. (The runner validates all of this itself, so these never fire inside a Benchmark.)

// A judge that gives a valid reply to every step, whatever its input: one statement (or claim)
// per text, every verdict 1, every chunk useful.
const supported = (statement: string) => ({ statement, reason: "ok", verdict: 1 });
const judge = scriptedJudge({
  statements: ({ answer }: { answer: string }) => ({ statements: [answer] }),
  claims: ({ text }: { text: string }) => ({ claims: [text] }),
  verdicts: ({ statements }: { statements: string[] }) => ({ verdicts: statements.map(supported) }),
  context_verdict: () => ({ reason: "ok", verdict: 1 }),
  attributions: ({ reference }: { reference: string }) => ({
    attributions: [{ statement: reference, reason: "ok", attributed: 1 }],
  }),
  question_generation: ({ answer }: { answer: string }) => ({ question: answer, noncommittal: 0 }),
  classification: ({ answer }: { answer: string[] }) => ({
    TP: answer.map((statement) => ({ statement, reason: "ok" })),
    FP: [],
    FN: [],
  }),
});
const embed = async (texts: readonly string[]) => texts.map((_, i) => [1, i]);
const judgeEmbed = fakeEmbed((text) => [1, text.length]);

const retrieval: [string, Metric][] = [
  ["Recall", new Recall({ k: 3 })],
  ["Precision", new Precision({ k: 3 })],
  ["HitRate", new HitRate({ k: 3 })],
  ["MRR", new MRR()],
  ["MAP", new MAP()],
  ["NDCG", new NDCG({ k: 3 })],
  ["RPrecision", new RPrecision()],
];
const lexical: [string, Metric][] = [
  ["ExactMatch", new ExactMatch()],
  ["TokenF1", new TokenF1()],
  ["AnswerContains", new AnswerContains()],
  ["RougeL", new RougeL()],
];
const judged: [string, Metric][] = [
  ["Faithfulness", new Faithfulness({ judge })],
  ["ContextPrecision", new ContextPrecision({ judge })],
  ["ContextPrecision", new ContextPrecision({ judge, against: "answer" })],
  ["ContextRecall", new ContextRecall({ judge })],
  ["AnswerRelevancy", new AnswerRelevancy({ judge, embed: judgeEmbed })],
  ["FactualCorrectness", new FactualCorrectness({ judge })],
  ["NoiseSensitivity", new NoiseSensitivity({ judge })],
  ["NoiseSensitivity", new NoiseSensitivity({ judge, mode: "irrelevant" })],
  ["AnswerCorrectness", new AnswerCorrectness({ judge, embed: judgeEmbed })],
];
const modelBased: [string, Metric][] = [
  ...judged,
  ["SemanticSimilarity", new SemanticSimilarity({ embed })],
];
const operational: [string, Metric][] = [
  ["Latency", new Latency()],
  ["Tokens", new Tokens()],
  ["Cost", new Cost()],
];
const every: [string, Metric][] = [...retrieval, ...lexical, ...modelBased, ...operational];

function valid(): Record<string, unknown> {
  return {
    sample: { question: "q", expectedAnswers: ["Paris"], relevantIds: ["a"] },
    answer: "Paris",
    retrieved: [{ id: "a", text: "Paris is in France." }, { id: "b" }],
    latencyMs: 3,
  };
}

/** A valid input with `patch` applied (`sample` patched field by field). */
function malformed(patch: Record<string, unknown>, samplePatch?: Record<string, unknown>) {
  const base = valid();
  const sample = { ...(base.sample as object), ...samplePatch };
  return { ...base, sample, ...patch } as unknown as MetricInput;
}

/** The error `score` threw or rejected with, or `undefined` when it settled with a value. */
async function errorOf(metric: Metric, input: unknown): Promise<unknown> {
  try {
    await metric.score(input as MetricInput);
    return undefined;
  } catch (error) {
    return error;
  }
}

async function expectConfigurationError(metric: Metric, input: unknown, message: RegExp) {
  const error = await errorOf(metric, input);
  expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
  expect((error as Error).message).toMatch(message);
}

describe("a malformed input called directly is a ConfigurationError naming metric and field", () => {
  it("a valid input scores, so each case below fails on its one malformed field", async () => {
    for (const [, m] of every) expect(await errorOf(m, valid())).toBeUndefined();
    // The judge metrics score it (not a null that would hide a check never reached).
    for (const [name, m] of judged) {
      expect(await m.score(valid() as unknown as MetricInput), name).toEqual(expect.any(Number));
    }
  });

  it("the input or its sample is not an object", async () => {
    for (const [name, m] of every) {
      await expectConfigurationError(
        m,
        undefined,
        new RegExp(`^${name}\\.score: expected a MetricInput object .*, found undefined$`),
      );
    }
    for (const [name, m] of [...retrieval, ...lexical, ...modelBased]) {
      await expectConfigurationError(
        m,
        malformed({ sample: undefined }),
        new RegExp(
          `^${name}\\.score: input\\.sample must be an EvalSample object, found undefined$`,
        ),
      );
    }
  });

  it("retrieval: retrieved, a chunk, a chunk id, relevantIds and a relevant id", async () => {
    for (const [name, m] of retrieval) {
      const at = `^${name}\\.score: input\\.`;
      await expectConfigurationError(
        m,
        malformed({ retrieved: undefined }),
        new RegExp(`${at}retrieved must be an array of chunks \\{ id, … \\}, found undefined$`),
      );
      await expectConfigurationError(
        m,
        malformed({ retrieved: "a b" }),
        new RegExp(`${at}retrieved must be an array .*, found the string "a b"$`),
      );
      await expectConfigurationError(
        m,
        malformed({ retrieved: [{ id: "x" }, null] }),
        new RegExp(`${at}retrieved\\[1\\] must be a chunk \\{ id: string, … \\}, found null$`),
      );
      await expectConfigurationError(
        m,
        malformed({ retrieved: [{ id: "x" }, { text: "no id" }] }),
        new RegExp(`${at}retrieved\\[1\\]\\.id must be a string, found undefined$`),
      );
      // A number id would match nothing silently past 32768 chunks (a Set), and crash below.
      await expectConfigurationError(
        m,
        malformed({ retrieved: [{ id: 7 }] }),
        new RegExp(`${at}retrieved\\[0\\]\\.id must be a string, found the number 7$`),
      );
      await expectConfigurationError(
        m,
        malformed({}, { relevantIds: undefined }),
        new RegExp(`${at}sample\\.relevantIds must be an array of id strings, found undefined$`),
      );
      await expectConfigurationError(
        m,
        malformed({}, { relevantIds: ["a", 2] }),
        new RegExp(`${at}sample\\.relevantIds\\[1\\] must be a string, found the number 2$`),
      );
    }
  });

  it("retrieval: checked on every path, also for long rankings and long relevant lists", async () => {
    const many = Array.from({ length: 40 }, (_, i) => ({ id: `d${i}` }));
    const huge = Array.from({ length: 40_000 }, (_, i) => ({ id: `d${i}` }));
    const ids = Array.from({ length: 40 }, (_, i) => `d${i}`);
    for (const retrieved of [many, huge]) {
      const bad = [...retrieved.slice(0, 30), { id: 30 }, ...retrieved.slice(31)];
      await expectConfigurationError(
        new Recall({ k: 5 }),
        malformed({ retrieved: bad }),
        /^Recall\.score: input\.retrieved\[30\]\.id must be a string, found the number 30$/,
      );
    }
    await expectConfigurationError(
      new MAP(),
      malformed({}, { relevantIds: [...ids.slice(0, 25), null] }),
      /^MAP\.score: input\.sample\.relevantIds\[25\] must be a string, found null$/,
    );
  });

  it("retrieval at document level: a documentId that is there but not a string", async () => {
    for (const [name, m] of retrieval) {
      const options = name === "RPrecision" ? { level: "document" } : { k: 3, level: "document" };
      const byDocument = new (m.constructor as new (o: object) => Metric)(options);
      // It used to be "has none", which it has: the value is what is wrong.
      await expectConfigurationError(
        byDocument,
        malformed({
          retrieved: [
            { id: "x", documentId: "a" },
            { id: "y", documentId: 7 },
          ],
        }),
        new RegExp(
          `^${name}\\.score: input\\.retrieved\\[1\\]\\.documentId must be a string, or absent, found the number 7$`,
        ),
      );
      // Absent or null is the engine not saying: a reason for this sample, naming the chunk in
      // a line (a long id is cut).
      for (const documentId of [undefined, null]) {
        const error = await errorOf(
          byDocument,
          malformed({
            retrieved: [
              { id: "x", documentId: "a" },
              { id: "y".repeat(500), documentId },
            ],
          }),
        );
        expect(MetricUnavailableError.isInstance(error), String(error)).toBe(true);
        expect((error as Error).message).toBe(
          `level "document" matches by documentId, but the chunk at rank 2 (id the string "${"y".repeat(60)}…") has none`,
        );
      }
    }
  });

  it("NDCG: relevance that is not an object of finite grades", async () => {
    const ndcg = new NDCG({ k: 3 });
    await expectConfigurationError(
      ndcg,
      malformed({}, { relevance: null }),
      /^NDCG\.score: input\.sample\.relevance must be an object of id → grade, found null$/,
    );
    await expectConfigurationError(
      ndcg,
      malformed({}, { relevance: [2, 1] }),
      /^NDCG\.score: input\.sample\.relevance must be an object .*, found an array of 2 items$/,
    );
    // "2" > 0 is true in JavaScript: it used to gain 2; Infinity made the score NaN.
    await expectConfigurationError(
      ndcg,
      malformed({}, { relevance: { a: "2" } }),
      /^NDCG\.score: input\.sample\.relevance\["a"\] must be a finite number, found the string "2"$/,
    );
    await expectConfigurationError(
      ndcg,
      malformed({}, { relevantIds: [], relevance: { b: Number.POSITIVE_INFINITY } }),
      /^NDCG\.score: input\.sample\.relevance\["b"\] must be a finite number, found the number Infinity$/,
    );
  });

  it("generation: answer, expectedAnswers and an expected answer", async () => {
    for (const [name, m] of [...lexical, ...modelBased]) {
      const at = `^${name}\\.score: input\\.`;
      await expectConfigurationError(
        m,
        malformed({}, { expectedAnswers: undefined }),
        new RegExp(`${at}sample\\.expectedAnswers must be an array of strings, found undefined$`),
      );
      await expectConfigurationError(
        m,
        malformed({}, { expectedAnswers: ["Paris", 42] }),
        new RegExp(`${at}sample\\.expectedAnswers\\[1\\] must be a string, found the number 42$`),
      );
      await expectConfigurationError(
        m,
        malformed({ answer: 42 }),
        new RegExp(
          `${at}answer must be a string, or null when there is no answer, found the number 42$`,
        ),
      );
      // `null` is how an input says "no answer"; a missing answer is a mistake, not a null score.
      await expectConfigurationError(
        m,
        malformed({ answer: undefined }),
        new RegExp(`${at}answer must be a string, or null .*, found undefined$`),
      );
    }
  });

  it("judged: the question they put in the prompt, and the retrieved chunks", async () => {
    for (const [name, m] of judged) {
      await expectConfigurationError(
        m,
        malformed({}, { question: undefined }),
        new RegExp(
          `^${name}\\.score: input\\.sample\\.question must be a string, found undefined$`,
        ),
      );
      await expectConfigurationError(
        m,
        malformed({ answer: ["Paris"] }),
        new RegExp(
          `^${name}\\.score: input\\.answer must be a string, .*, found an array of 1 item$`,
        ),
      );
      await expectConfigurationError(
        m,
        malformed({ retrieved: undefined }),
        new RegExp(
          `^${name}\\.score: input\\.retrieved must be an array of chunks \\{ id, … \\}, found undefined$`,
        ),
      );
      await expectConfigurationError(
        m,
        malformed({ retrieved: [{ id: "a", text: "t" }, 5] }),
        new RegExp(
          `^${name}\\.score: input\\.retrieved\\[1\\] must be a chunk \\{ id: string, … \\}, found the number 5$`,
        ),
      );
    }
  });

  it("judged: a malformed field is refused even where the metric would be null", async () => {
    // No answer (null) makes most judge metrics not applicable, but a malformed question or
    // expected answer is still the caller's mistake, not a null.
    const before = judge.count();
    for (const [name, m] of judged) {
      await expectConfigurationError(
        m,
        malformed({ answer: null, retrieved: [] }, { question: 7 }),
        new RegExp(`^${name}\\.score: input\\.sample\\.question must be a string`),
      );
      await expectConfigurationError(
        m,
        malformed({ answer: null }, { expectedAnswers: [null] }),
        new RegExp(`^${name}\\.score: input\\.sample\\.expectedAnswers\\[0\\] must be a string`),
      );
    }
    expect(judge.count()).toBe(before);
  });

  it("never throws anything but a ConfigurationError or MetricUnavailableError, whatever the input", async () => {
    // Each field valid or anything at all; the outcome is a score in range, null, or a named error.
    const field = <T>(ok: fc.Arbitrary<T>) => fc.oneof(ok, fc.anything());
    const chunk = field(fc.record({ id: field(fc.string()), text: field(fc.string()) }));
    const sample = field(
      fc.record({
        question: field(fc.string()),
        expectedAnswers: field(fc.array(field(fc.string()), { maxLength: 3 })),
        relevantIds: field(fc.array(field(fc.constantFrom("a", "b")), { maxLength: 3 })),
        relevance: field(fc.dictionary(fc.constantFrom("a", "b"), field(fc.integer()))),
      }),
    );
    const input = field(
      fc.record({
        sample,
        answer: field(fc.option(fc.string())),
        retrieved: field(fc.array(chunk, { maxLength: 4 })),
        latencyMs: field(fc.nat()),
        usage: field(fc.record({ totalTokens: field(fc.nat()), cost: field(fc.nat()) })),
      }),
    );
    await fc.assert(
      fc.asyncProperty(input, async (i) => {
        for (const [name, m] of every) {
          let value: unknown;
          try {
            value = await m.score(i as MetricInput);
          } catch (error) {
            const named =
              ConfigurationError.isInstance(error) || MetricUnavailableError.isInstance(error);
            expect(named, `${name}: ${String(error)}`).toBe(true);
            continue;
          }
          const ok = value === null || (typeof value === "number" && Number.isFinite(value));
          expect(ok, `${name} = ${String(value)}`).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
