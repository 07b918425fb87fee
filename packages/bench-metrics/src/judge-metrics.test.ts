import {
  Benchmark,
  ConfigurationError,
  type EvalSample,
  type MetricInput,
  MetricUnavailableError,
} from "@fastrag/bench-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AnswerCorrectness,
  AnswerRelevance,
  type EmbedFunction,
  Faithfulness,
  type JudgeFunction,
  SemanticSimilarity,
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

/** A deterministic judge that replies with a fixed text and records the prompts it saw. */
function fakeJudge(reply: string): JudgeFunction & { prompts: string[]; signals: AbortSignal[] } {
  const prompts: string[] = [];
  const signals: AbortSignal[] = [];
  const judge = async (prompt: string, { signal }: { signal: AbortSignal }) => {
    prompts.push(prompt);
    signals.push(signal);
    return reply;
  };
  return Object.assign(judge, { prompts, signals });
}

describe("AnswerCorrectness", () => {
  it("returns the judge's score and prompts with question, references and answer", async () => {
    const judge = fakeJudge('{"score": 0.8, "reason": "right city, no detail"}');
    const m = new AnswerCorrectness({ judge });
    expect(m.name).toBe("answer_correctness");
    expect(await m.score(input("In Paris."))).toBe(0.8);
    const prompt = judge.prompts[0] as string;
    expect(prompt).toContain("Where is the Eiffel Tower?");
    expect(prompt).toContain("[1] Paris");
    expect(prompt).not.toContain("[2]"); // the empty "no answer" reference is left out
    expect(prompt).toContain("In Paris.");
    expect(prompt).toContain('{"score": <a number from 0 to 1>');
    expect(judge.signals[0]?.aborted).toBe(false);
  });

  it("accepts one fenced JSON object", async () => {
    const m = new AnswerCorrectness({ judge: fakeJudge('```json\n{"score": 1}\n```') });
    expect(await m.score(input("Paris"))).toBe(1);
  });

  it("rejects unparsable replies with a reason, never 0", async () => {
    const cases: [string, RegExp][] = [
      ["Score: 0.8", /expected a single JSON object, found the string "Score: 0.8"/],
      ['Sure! {"score": 0.8}', /expected a single JSON object/],
      ['{"score": 0.8} {"score": 0.1}', /expected a single JSON object/],
      ['[{"score": 0.8}]', /expected a JSON object/],
      ['{"score": "0.8"}', /"score" to be a number from 0 to 1, found the string "0.8"/],
      ['{"score": 1.5}', /found the number 1.5/],
      ['{"reason": "ok"}', /found undefined/],
    ];
    for (const [reply, reason] of cases) {
      const m = new AnswerCorrectness({ judge: fakeJudge(reply) });
      await expect(m.score(input("Paris"))).rejects.toThrow(reason);
    }
  });

  it("is null without a non-empty expected answer", async () => {
    const judge = fakeJudge('{"score": 1}');
    const m = new AnswerCorrectness({ judge });
    const noGold = { ...input("x"), sample: { ...sample, expectedAnswers: [""] } };
    expect(await m.score(noGold)).toBeNull();
    expect(judge.prompts).toHaveLength(0);
  });

  it("takes a custom prompt and validates its options", async () => {
    const judge = fakeJudge('{"score": 0.5}');
    const m = new AnswerCorrectness({ judge, prompt: (p) => `Q=${p.question} A=${p.answer}` });
    await m.score(input("x"));
    expect(judge.prompts[0]).toBe("Q=Where is the Eiffel Tower? A=x");
    expect(() => new AnswerCorrectness({} as never)).toThrow(ConfigurationError);
    expect(() => new AnswerCorrectness({ judge: "gpt" } as never)).toThrow(
      /option judge must be a function, found the string "gpt"/,
    );
  });

  it("refuses a misspelled option instead of ignoring it, as every judge metric does", () => {
    const judge = fakeJudge('{"score": 0.5}');
    // `promt` would otherwise leave the built-in prompt in force without a word.
    for (const [label, make] of [
      ["AnswerCorrectness", (o: object) => new AnswerCorrectness(o as never)],
      ["AnswerRelevance", (o: object) => new AnswerRelevance(o as never)],
      ["Faithfulness", (o: object) => new Faithfulness(o as never)],
    ] as const) {
      expect(() => make({ judge, promt: () => "" })).toThrow(
        new RegExp(`${label}: unknown option "promt"; expected judge, name, prompt`),
      );
      expect(make({ judge, name: "mine", prompt: () => "p" }).name).toBe("mine");
    }
    const embed: EmbedFunction = async (texts) => texts.map(() => [1, 0]);
    expect(() => new SemanticSimilarity({ embed, model: "x" } as never)).toThrow(
      /SemanticSimilarity: unknown option "model"; expected embed, name/,
    );
  });
});

describe("AnswerRelevance", () => {
  it("grades the answer against the question alone", async () => {
    const judge = fakeJudge(' {"score": 0} ');
    const m = new AnswerRelevance({ judge });
    expect(m.name).toBe("answer_relevance");
    expect(await m.score(input("I like trains."))).toBe(0);
    expect(judge.prompts[0]).toContain("I like trains.");
    expect(judge.prompts[0]).not.toContain("Paris");
  });
});

describe("Faithfulness", () => {
  it("is the share of supported claims", async () => {
    const judge = fakeJudge(
      JSON.stringify({
        claims: [
          { claim: "It is in Paris", supported: true },
          { claim: "It is 330 m tall", supported: true },
          { claim: "It is painted blue", supported: false },
        ],
      }),
    );
    const m = new Faithfulness({ judge });
    expect(m.name).toBe("faithfulness");
    const v = await m.score(
      input("Paris; 330 m; blue", ["The tower is in Paris.", undefined, "It is 330 m tall."]),
    );
    expect(v).toBeCloseTo(2 / 3, 15);
    expect(judge.prompts[0]).toContain("[1] The tower is in Paris.\n[2] It is 330 m tall.");
  });

  it("gives a reason when it cannot score", async () => {
    const ok = fakeJudge('{"claims": []}');
    await expect(new Faithfulness({ judge: ok }).score(input("x", ["t"]))).rejects.toThrow(
      /no claim/,
    );
    await expect(new Faithfulness({ judge: ok }).score(input("x", [undefined]))).rejects.toThrow(
      /no retrieved chunk carries text \(1 retrieved\)/,
    );
    const bad = fakeJudge('{"claims": [{"claim": "x", "supported": "yes"}]}');
    await expect(new Faithfulness({ judge: bad }).score(input("x", ["t"]))).rejects.toThrow(
      /claims\[0\]\.supported to be true or false, found the string "yes"/,
    );
    const notArray = fakeJudge('{"claims": "none"}');
    await expect(new Faithfulness({ judge: notArray }).score(input("x", ["t"]))).rejects.toThrow(
      /"claims" to be an array/,
    );
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
  it("record null and the reason for an unparsable reply, and pass the sample's signal", async () => {
    const seen: AbortSignal[] = [];
    const judge: JudgeFunction = async (prompt, { signal }) => {
      seen.push(signal);
      return prompt.includes("good answer") ? '{"score": 0.9}' : "I think it is about 0.5";
    };
    const dataset = [
      { id: "a", question: "q1", expectedAnswers: ["x"], relevantIds: [] },
      { id: "b", question: "q2", expectedAnswers: ["x"], relevantIds: [] },
    ];
    const targetSignals: AbortSignal[] = [];
    const engine = {
      query: async (
        _q: string,
        { sample: s, signal }: { sample: EvalSample; signal: AbortSignal },
      ) => {
        targetSignals.push(signal);
        return { answer: s.id === "a" ? "good answer" : "bad answer" };
      },
    };
    const controller = new AbortController();
    const result = await new Benchmark({
      dataset,
      metrics: [new AnswerCorrectness({ judge })],
    }).run(engine, { name: "judged", signal: controller.signal });
    expect(result.samples[0]?.scores.answer_correctness).toBe(0.9);
    expect(result.samples[0]?.status).toBe("successful");
    expect(result.samples[1]?.scores.answer_correctness).toBeNull();
    expect(result.samples[1]?.status).toBe("incomplete");
    expect(result.samples[1]?.error).toMatch(
      /^answer_correctness: (MetricUnavailableError: )?unparsable judge reply: expected a single JSON object, found the string "I think it is about 0.5"/,
    );
    // Each sample's judge call gets that sample's signal (the one its target call got), which
    // follows the run's: one signal per sample, not the run's shared by all.
    expect(seen).toEqual(targetSignals);
    expect(new Set(seen).size).toBe(2);
    expect(seen.some((s) => s === controller.signal)).toBe(false);
  });
});

describe("judge and embedding metric properties", () => {
  it("a judge reply gives a score in [0, 1] or a MetricUnavailableError, nothing else", async () => {
    const reply = fc.oneof(
      fc.string(),
      fc.json(),
      fc.double().map((score) => JSON.stringify({ score })),
      fc.anything().map((claims) => JSON.stringify({ claims })),
    );
    await fc.assert(
      fc.asyncProperty(reply, async (text) => {
        const judge: JudgeFunction = async () => text;
        for (const m of [new AnswerCorrectness({ judge }), new Faithfulness({ judge })]) {
          try {
            const v = await m.score(input("Paris", ["The tower is in Paris."]));
            expect(v !== null && v >= 0 && v <= 1).toBe(true);
          } catch (error) {
            expect(MetricUnavailableError.isInstance(error)).toBe(true);
          }
        }
      }),
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
