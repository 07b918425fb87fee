// What every judge metric shares: its options, custom prompts, how a run records a reply it cannot
// use, the run's signal reaching the judge, and any reply giving a score in range or a reason.
// Each metric's own formula is tested beside it (src/generation/*.test.ts).
import {
  Benchmark,
  ConfigurationError,
  type EvalSample,
  type JudgeFunction,
  type Metric,
  type MetricInput,
  MetricUnavailableError,
  RunAbortedError,
} from "@fastrag/bench-core";
import {
  fakeEmbed,
  metricInput,
  type ScriptedStep,
  scriptedJudge,
} from "@fastrag/bench-core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { judgingContext, statementsFrom, verdictsBy } from "./__fixtures__/judge.js";
import {
  AnswerCorrectness,
  AnswerRelevancy,
  ContextPrecision,
  ContextRecall,
  type EmbedFunction,
  FactualCorrectness,
  Faithfulness,
  JUDGE_OPTIONS,
  NoiseSensitivity,
  SemanticSimilarity,
  STEP_PROMPTS,
} from "./generation.js";

const sample: EvalSample = {
  id: "q1",
  question: "Where is the Eiffel Tower?",
  expectedAnswers: ["Paris", ""],
  relevantIds: [],
};

function input(answer: string | null, texts: (string | undefined)[] = []): MetricInput {
  return {
    sample,
    answer,
    retrieved: texts.map((text, i) =>
      text === undefined ? { id: `c${i}` } : { id: `c${i}`, text },
    ),
    latencyMs: 0,
  };
}

const embed = fakeEmbed(() => [1, 0]);

/** Each judge metric (by class name), built from options that may lack `judge`. */
const makers: readonly (readonly [string, string, (o: object) => Metric])[] = [
  ["Faithfulness", "", (o) => new Faithfulness(o as never)],
  ["ContextPrecision", ", against", (o) => new ContextPrecision(o as never)],
  ["ContextRecall", "", (o) => new ContextRecall(o as never)],
  ["AnswerRelevancy", ", embed, strictness", (o) => new AnswerRelevancy({ embed, ...o } as never)],
  [
    "FactualCorrectness",
    ", mode, beta, atomicity, coverage",
    (o) => new FactualCorrectness(o as never),
  ],
  ["NoiseSensitivity", ", mode", (o) => new NoiseSensitivity(o as never)],
  [
    "AnswerCorrectness",
    ", embed, weights, beta",
    (o) => new AnswerCorrectness({ embed, ...o } as never),
  ],
];

function thrown(make: () => unknown): Error {
  try {
    make();
  } catch (error) {
    expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
    return error as Error;
  }
  throw new Error("expected a ConfigurationError");
}

describe("the judge metrics' options", () => {
  const judge = scriptedJudge({});

  it("share judge, name, prompts and timeoutMs", () => {
    expect(JUDGE_OPTIONS).toEqual(["judge", "name", "prompts", "timeoutMs"]);
  });

  it.each(makers)(
    "%s refuses a misspelled or removed option, listing the ones it takes",
    (metric, own, make) => {
      const expected = `expected judge, name, prompts, timeoutMs${own}`;
      // `promts` would otherwise leave the built-in prompts in force without a word; `prompt` was
      // the single-prompt judges' option.
      expect(thrown(() => make({ judge, promts: {} })).message).toBe(
        `${metric}: unknown option "promts"; ${expected}`,
      );
      expect(thrown(() => make({ judge, prompt: () => "" })).message).toBe(
        `${metric}: unknown option "prompt"; ${expected}`,
      );
    },
  );

  it.each(makers)("%s needs a judge function", (metric, _, make) => {
    expect(thrown(() => make({})).message).toBe(
      `${metric}: option judge must be a function, found undefined`,
    );
    expect(thrown(() => make({ judge: "gpt-4o" })).message).toBe(
      `${metric}: option judge must be a function, found the string "gpt-4o"`,
    );
  });

  it.each(makers)("%s takes prompts by step name, each a function", (metric, _, make) => {
    expect(thrown(() => make({ judge, prompts: { verdict: () => "" } })).message).toBe(
      `${metric}: option prompts names an unknown step "verdict"; the steps are statements, verdicts, context_verdict, attributions, question_generation, claims, classification`,
    );
    expect(thrown(() => make({ judge, prompts: { claims: "Split it." } })).message).toBe(
      `${metric}: option prompts.claims must be a function, found the string "Split it."`,
    );
    expect(thrown(() => make({ judge, prompts: () => "" })).message).toMatch(
      new RegExp(`^${metric}: option prompts must be an object of step name → function`),
    );
    expect(thrown(() => make({ judge, prompts: null })).message).toMatch(/found null$/);
    expect(make({ judge, prompts: {} }).name).not.toBe("");
  });

  it.each(makers)("%s takes a name", (_, __, make) => {
    expect(make({ judge, name: "mine" }).name).toBe("mine");
    expect(thrown(() => make({ judge, name: " " })).message).toMatch(
      /option name must be a non-empty string/,
    );
  });
});

describe("custom prompts", () => {
  const steps: Record<string, ScriptedStep> = {
    statements: statementsFrom({ "In Paris.": ["The tower is in Paris."] }),
    verdicts: verdictsBy(() => true),
  };

  it("replace the built-in prompt of their step only, from the step's input", async () => {
    const judge = scriptedJudge(steps);
    const m = new Faithfulness({
      judge,
      prompts: {
        verdicts: ({ context, statements }) => `C=${context}|S=${statements.join(";")}`,
      },
    });
    expect(await m.score(input("In Paris.", ["The tower stands in Paris."]))).toBe(1);
    expect(judge.calls[0]?.prompt).toBe(
      STEP_PROMPTS.statements({ question: sample.question, answer: "In Paris." }),
    );
    expect(judge.calls[1]?.prompt).toBe("C=The tower stands in Paris.|S=The tower is in Paris.");
  });

  it("are keyed apart: a custom prompt's step is not shared with the built-in one's", async () => {
    const judge = scriptedJudge(steps);
    const judging = judgingContext();
    const given = { ...input("In Paris.", ["The tower stands in Paris."]), judging };
    const builtIn = new Faithfulness({ judge });
    const same = new Faithfulness({ judge, name: "same" });
    const custom = new Faithfulness({
      judge,
      name: "custom",
      prompts: { statements: ({ answer }) => `Split: ${answer}` },
    });
    await Promise.all([builtIn.score(given), same.score(given), custom.score(given)]);
    // builtIn and same share both steps; custom asks its own statements (its verdicts, asked
    // with the built-in prompt on the same statements, are shared).
    expect(judge.count("statements")).toBe(2);
    expect(judge.count("verdicts")).toBe(1);
    const key = (name: string, step: string) =>
      judging.steps[name]?.find((s) => s.step === step)?.key;
    expect(key("faithfulness", "statements")).toBe(key("same", "statements"));
    expect(key("custom", "statements")).not.toBe(key("faithfulness", "statements"));
    expect(key("custom", "verdicts")).toBe(key("faithfulness", "verdicts"));
  });
});

describe("SemanticSimilarity", () => {
  const table: Record<string, number[]> = {
    Paris: [1, 0],
    London: [0, 1],
    "Paris, France": [1, 1],
    opposite: [-1, 0],
  };
  const embed: EmbedFunction = async (texts) => texts.map((t) => table[t] ?? [0, 0]);

  it("is the best cosine over expected answers", async () => {
    const m = new SemanticSimilarity({ embed });
    expect(m.name).toBe("semantic_similarity");
    const s = { ...sample, expectedAnswers: ["London", "Paris, France", ""] };
    const v = await m.score({ ...input("Paris"), sample: s });
    expect(v).toBeCloseTo(Math.SQRT1_2, 15);
    expect(await m.score(input("Paris"))).toBeCloseTo(1, 15);
  });

  it("reports a negative cosine as 0 and is null without a non-empty expected answer", async () => {
    const m = new SemanticSimilarity({ embed });
    expect(await m.score(input("opposite"))).toBe(0);
    expect(
      await m.score({ ...input("Paris"), sample: { ...sample, expectedAnswers: [" "] } }),
    ).toBeNull();
  });

  it("gives a reason for malformed embeddings", async () => {
    const cases: [EmbedFunction, RegExp][] = [
      [async () => [[1, 0]], /returned 1 vectors for 2 texts/],
      [async () => [[1, 0], [1]], /different lengths \(2 and 1\)/],
      [
        async () => [
          [1, Number.NaN],
          [1, 0],
        ],
        /NaN at position 1 of vector 0/,
      ],
      [
        async () => [
          [0, 0],
          [1, 0],
        ],
        /zero vector for text 0/,
      ],
      [async () => "nope" as never, /returned the string "nope" for 2 texts/],
    ];
    for (const [bad, reason] of cases) {
      await expect(new SemanticSimilarity({ embed: bad }).score(input("Paris"))).rejects.toThrow(
        reason,
      );
    }
  });

  it("scores huge and tiny vectors by their direction, without overflow or underflow", async () => {
    // Found by a widened property: [1e200] against itself gave ∞/∞ = NaN, reported as 0.
    const cases: [number[], number[], number][] = [
      [[1e200], [1e200], 1],
      [[2e154, 0, 0], [2e154, 0, 0], 1],
      [[1e-200, 1e-200], [3e-300, 0], Math.SQRT1_2],
      [[1e300, 1e300], [-1e300, 0], 0],
    ];
    for (const [a, b, expected] of cases) {
      const m = new SemanticSimilarity({ embed: async () => [a, b] });
      expect(await m.score(input("Paris"))).toBeCloseTo(expected, 15);
    }
  });

  it("accepts typed arrays", async () => {
    const m = new SemanticSimilarity({
      embed: async () => [new Float32Array([3, 4]), new Float32Array([3, 4])],
    });
    expect(await m.score(input("Paris"))).toBeCloseTo(1, 6);
  });
});

describe("judge metrics in the runner", () => {
  it("record null and the step's reason for an unparsable reply, never 0", async () => {
    const judge = scriptedJudge({
      statements: ({ answer }: { answer: string }) =>
        answer === "good answer" ? { statements: ["It is good."] } : "I think it is about 0.5",
      verdicts: verdictsBy(() => true),
    });
    const dataset = [
      { id: "a", question: "q1", expectedAnswers: ["x"], relevantIds: [] },
      { id: "b", question: "q2", expectedAnswers: ["x"], relevantIds: [] },
    ];
    const engine = {
      query: async (_q: string, { sample: s }: { sample: EvalSample }) => ({
        answer: s.id === "a" ? "good answer" : "bad answer",
        chunks: [{ id: "c", text: "a passage" }],
      }),
    };
    const result = await new Benchmark({ dataset, metrics: [new Faithfulness({ judge })] }).run(
      engine,
      { name: "judged", keepChunkText: true },
    );
    expect(result.samples[0]?.scores.faithfulness).toBe(1);
    expect(result.samples[0]?.status).toBe("successful");
    expect(result.samples[1]?.scores.faithfulness).toBeNull();
    expect(result.samples[1]?.status).toBe("incomplete");
    expect(result.samples[1]?.error).toMatch(
      /^faithfulness: (MetricUnavailableError: )?step statements: unparsable judge reply: expected a single JSON object, found the string "I think it is about 0\.5"/,
    );
    expect(result.summary.faithfulness?.count).toBe(1);
  });

  it("hand each judge call a signal of its own that the run's abort reaches", async () => {
    const seen: AbortSignal[] = [];
    const controller = new AbortController();
    const reason = new Error("user pressed Ctrl-C");
    const judge: JudgeFunction = (_prompt, { signal }) => {
      seen.push(signal);
      // Once both samples' calls are pending, the run is aborted.
      if (seen.length === 2) setTimeout(() => controller.abort(reason), 0);
      return new Promise((_resolve, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason), { once: true }),
      );
    };
    const dataset = [
      { id: "a", question: "q1", expectedAnswers: ["x"], relevantIds: [] },
      { id: "b", question: "q2", expectedAnswers: ["y"], relevantIds: [] },
    ];
    const targetSignals: AbortSignal[] = [];
    const engine = {
      query: async (_q: string, { signal }: { signal: AbortSignal }) => {
        targetSignals.push(signal);
        return { answer: "an answer", chunks: [{ id: "c", text: "t" }] };
      },
    };
    const run = new Benchmark({
      dataset,
      metrics: [new ContextRecall({ judge })],
      maxConcurrent: 2,
    }).run(engine, { name: "aborted", signal: controller.signal });
    const error = await run.catch((e: unknown) => e);
    expect(RunAbortedError.isInstance(error), String(error)).toBe(true);
    expect(seen).toHaveLength(2);
    // Each call's signal is its own (it also carries the call's timeout), neither the run's nor
    // the sample's, and each follows the run's abort with its reason.
    expect(new Set(seen).size).toBe(2);
    for (const s of seen) {
      expect(s).not.toBe(controller.signal);
      expect(targetSignals).not.toContain(s);
      expect(s.aborted).toBe(true);
      expect(s.reason).toBe(reason);
    }
  });
});

describe("any judge reply gives a score in range, null, or a MetricUnavailableError", () => {
  it("for every step of every judge metric", async () => {
    const reply = fc.oneof(
      fc.string(),
      fc.json(),
      fc.anything(),
      fc.record({ statements: fc.array(fc.oneof(fc.string(), fc.anything()), { maxLength: 3 }) }),
      fc.record({
        verdicts: fc.array(
          fc.record({
            statement: fc.string(),
            reason: fc.string(),
            verdict: fc.integer({ min: -1, max: 2 }),
          }),
          { maxLength: 3 },
        ),
      }),
      fc.record({
        reason: fc.string(),
        verdict: fc.oneof(fc.integer({ min: -1, max: 2 }), fc.string()),
      }),
      fc.record({ question: fc.string(), noncommittal: fc.integer({ min: 0, max: 1 }) }),
    );
    await fc.assert(
      fc.asyncProperty(reply, async (r) => {
        const step: ScriptedStep = () => r as never;
        const judge = scriptedJudge({
          statements: step,
          verdicts: step,
          context_verdict: step,
          attributions: step,
          question_generation: step,
          claims: step,
          classification: step,
        });
        const embed = fakeEmbed(() => [1, 2]);
        const metrics = [
          new Faithfulness({ judge }),
          new ContextPrecision({ judge }),
          new ContextRecall({ judge }),
          new AnswerRelevancy({ judge, embed }),
          new FactualCorrectness({ judge }),
          new NoiseSensitivity({ judge }),
          new AnswerCorrectness({ judge, embed }),
        ];
        for (const m of metrics) {
          try {
            const v = await m.score(
              metricInput({
                answer: "Paris",
                expectedAnswers: ["Paris"],
                retrieved: [{ id: "c", text: "t" }],
              }),
            );
            const ok =
              v === null ||
              (Number.isFinite(v) && v >= (m.name === "answer_relevancy" ? -1 : 0) && v <= 1);
            expect(ok, `${m.name} = ${v}`).toBe(true);
          } catch (error) {
            expect(MetricUnavailableError.isInstance(error), `${m.name}: ${String(error)}`).toBe(
              true,
            );
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it("semantic similarity lies in [0, 1] for any non-zero vectors", async () => {
    const vector = fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), {
      minLength: 3,
      maxLength: 3,
    });
    await fc.assert(
      fc.asyncProperty(vector, vector, async (a, b) => {
        // Any finite magnitude, from subnormal to the largest double; only all-zero vectors have
        // no direction (a MetricUnavailableError, tested above).
        fc.pre(a.some((x) => x !== 0) && b.some((x) => x !== 0));
        const m = new SemanticSimilarity({ embed: async () => [a, b] });
        const v = await m.score(input("Paris"));
        expect(v !== null && v >= 0 && v <= 1).toBe(true);
      }),
    );
  });
});
