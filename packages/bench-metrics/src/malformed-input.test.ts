import {
  ConfigurationError,
  type Metric,
  type MetricInput,
  MetricUnavailableError,
} from "@fastrag/bench-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AnswerContains,
  AnswerCorrectness,
  AnswerRelevance,
  ExactMatch,
  Faithfulness,
  RougeL,
  SemanticSimilarity,
  TokenF1,
} from "./generation.js";
import { Cost, Latency, Tokens } from "./operational.js";
import { HitRate, MAP, MRR, NDCG, Precision, Recall, RPrecision } from "./retrieval.js";

// Users call `metric.score(input)` from their own harnesses: an input that breaks MetricInput's
// shape must be a ConfigurationError naming the metric and the field, never a TypeError from a
// kernel. (The runner validates all of this itself, so these never fire inside a Benchmark.)

const judge = async () => '{"score": 1, "reason": "ok"}';
const claimsJudge = async () => '{"claims": [{"claim": "x", "supported": true}]}';
const embed = async (texts: readonly string[]) => texts.map((_, i) => [1, i]);

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
const modelBased: [string, Metric][] = [
  ["AnswerCorrectness", new AnswerCorrectness({ judge })],
  ["SemanticSimilarity", new SemanticSimilarity({ embed })],
];
const operational: [string, Metric][] = [
  ["Latency", new Latency()],
  ["Tokens", new Tokens()],
  ["Cost", new Cost()],
];
const every: [string, Metric][] = [
  ...retrieval,
  ...lexical,
  ...modelBased,
  ["AnswerRelevance", new AnswerRelevance({ judge })],
  ["Faithfulness", new Faithfulness({ judge: claimsJudge })],
  ...operational,
];

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

  it("judged: the question they put in the prompt, and Faithfulness's chunks", async () => {
    for (const [name, m] of [
      ["AnswerCorrectness", new AnswerCorrectness({ judge })],
      ["AnswerRelevance", new AnswerRelevance({ judge })],
      ["Faithfulness", new Faithfulness({ judge: claimsJudge })],
    ] as const) {
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
    }
    const faithfulness = new Faithfulness({ judge: claimsJudge });
    await expectConfigurationError(
      faithfulness,
      malformed({ retrieved: undefined }),
      /^Faithfulness\.score: input\.retrieved must be an array of chunks \{ id, … \}, found undefined$/,
    );
    await expectConfigurationError(
      faithfulness,
      malformed({ retrieved: [{ id: "a", text: "t" }, 5] }),
      /^Faithfulness\.score: input\.retrieved\[1\] must be a chunk \{ id: string, … \}, found the number 5$/,
    );
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
