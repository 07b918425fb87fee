/**
 * The judge and embed metrics forward the input's `reportUsage` and `limiter` to every model
 * call, with the default time limit and with their own, so a judge built on a real client (e.g.
 * `aiJudge`) can report its tokens and share the run's rate limit.
 */
import type { CallLimiter, EvalSample, Metric, MetricInput, Usage } from "@fastrag/bench-core";
import { scriptedJudge } from "@fastrag/bench-core/testing";
import { describe, expect, it } from "vitest";
import {
  AnswerCorrectness,
  AnswerRelevancy,
  ContextPrecision,
  ContextRecall,
  type EmbedFunction,
  FactualCorrectness,
  Faithfulness,
  type JudgeFunction,
  type ModelCallOptions,
  NoiseSensitivity,
  SemanticSimilarity,
} from "./generation.js";

const sample: EvalSample = {
  id: "q1",
  question: "Where is the Eiffel Tower?",
  expectedAnswers: ["Paris"],
  relevantIds: [],
};

const limiter: CallLimiter = { run: (call) => call() };

function input(extra: Partial<MetricInput>): MetricInput {
  return {
    sample,
    answer: "In Paris.",
    retrieved: [{ id: "c0", text: "The Eiffel Tower is in Paris." }],
    latencyMs: 0,
    ...extra,
  };
}

/** Valid replies to every step: one statement or claim per text, everything supported. */
const answers = scriptedJudge({
  statements: ({ answer }: { answer: string }) => ({ statements: [answer] }),
  claims: ({ text }: { text: string }) => ({ claims: [text] }),
  verdicts: ({ statements }: { statements: string[] }) => ({
    verdicts: statements.map((statement) => ({ statement, reason: "", verdict: 1 })),
  }),
  context_verdict: () => ({ reason: "", verdict: 1 }),
  attributions: () => ({ attributions: [{ statement: "Paris", reason: "", attributed: 1 }] }),
  question_generation: () => ({ question: "Where is the Eiffel Tower?", noncommittal: 0 }),
  classification: ({ answer }: { answer: string[] }) => ({
    TP: answer.map((statement) => ({ statement, reason: "" })),
    FP: [],
    FN: [],
  }),
});

interface Seen {
  readonly kind: "judge" | "embed";
  readonly metric: string;
  readonly options: ModelCallOptions;
}

/**
 * Each metric with models that record the options of every call, and the calls it makes for
 * {@link input}, counted by hand from its steps (DESIGN §11).
 */
function metrics(seen: Seen[], timeoutMs?: number): [Metric, number, number][] {
  const judge: JudgeFunction = (prompt, options) => {
    seen.push({ kind: "judge", metric: options.metric ?? "", options });
    return answers(prompt, options);
  };
  const embedFor =
    (metric: string): EmbedFunction =>
    (texts, options) => {
      seen.push({ kind: "embed", metric, options });
      return texts.map(() => [1, 0]);
    };
  const t = timeoutMs === undefined ? {} : { timeoutMs };
  return [
    // [metric, judge calls, embed calls]
    [new Faithfulness({ judge, ...t }), 2, 0], // statements, verdicts
    [new ContextPrecision({ judge, ...t }), 1, 0], // one context_verdict per chunk
    [new ContextRecall({ judge, ...t }), 1, 0], // attributions
    [new AnswerRelevancy({ judge, embed: embedFor("answer_relevancy"), ...t }), 3, 1],
    [new FactualCorrectness({ judge, ...t }), 4, 0], // claims ×2, verdicts ×2
    [new NoiseSensitivity({ judge, ...t }), 4, 0], // statements ×2, verdicts per chunk + reference
    [new AnswerCorrectness({ judge, embed: embedFor("answer_correctness"), ...t }), 3, 1],
    [new SemanticSimilarity({ embed: embedFor("semantic_similarity"), ...t }), 0, 1],
  ];
}

const JUDGE_KEYS = ["attempt", "input", "metric", "schema", "signal", "step"];

describe("model calls inside metrics", () => {
  for (const timeoutMs of [undefined, 60_000]) {
    it(`forward reportUsage and limiter (timeoutMs ${timeoutMs})`, async () => {
      const reportUsage = (_u: Usage): void => {};
      for (let i = 0; i < metrics([]).length; i++) {
        const seen: Seen[] = [];
        const [m, judgeCalls, embedCalls] = metrics(seen, timeoutMs)[i] as [Metric, number, number];
        // Everything supported: every score 1, but noise sensitivity's 0 (no statement incorrect).
        const expected = m.name === "noise_sensitivity" ? 0 : 1;
        expect(await m.score(input({ reportUsage, limiter })), m.name).toBe(expected);
        expect(
          seen.filter((s) => s.kind === "judge"),
          m.name,
        ).toHaveLength(judgeCalls);
        expect(
          seen.filter((s) => s.kind === "embed"),
          m.name,
        ).toHaveLength(embedCalls);
        for (const { options, metric } of seen) {
          expect(metric).toBe(m.name);
          expect(options.reportUsage).toBe(reportUsage);
          expect(options.limiter).toBe(limiter);
          expect(options.signal).toBeInstanceOf(AbortSignal);
        }
      }
    });

    it(`forward each one alone, and neither when absent (timeoutMs ${timeoutMs})`, async () => {
      const reportUsage = (_u: Usage): void => {};
      const cases: [Partial<MetricInput>, string[]][] = [
        [{}, ["signal"]],
        [{ reportUsage }, ["reportUsage", "signal"]],
        [{ limiter }, ["limiter", "signal"]],
      ];
      for (const [extra, keys] of cases) {
        const seen: Seen[] = [];
        for (const [m] of metrics(seen, timeoutMs)) await m.score(input(extra));
        expect(seen).toHaveLength(2 + 1 + 1 + 4 + 4 + 4 + 4 + 1);
        for (const { kind, options } of seen) {
          // A judge is also told what it is asked: the step, its input, schema and attempt.
          const expected = kind === "judge" ? [...keys, ...JUDGE_KEYS] : keys;
          expect(Object.keys(options).sort()).toEqual([...new Set(expected)].sort());
        }
      }
    });
  }

  it("let a judge report through the sink it is handed, once per call", async () => {
    const reported: Usage[] = [];
    const usage = { inputTokens: 12, outputTokens: 3, totalTokens: 15 };
    const judge = scriptedJudge(
      {
        statements: () => ({ statements: ["The tower is in Paris."] }),
        verdicts: () => ({
          verdicts: [{ statement: "The tower is in Paris.", reason: "", verdict: 0 }],
        }),
      },
      { usage },
    );
    const score = await new Faithfulness({ judge }).score(
      input({ reportUsage: (u) => reported.push(u) }),
    );
    expect(score).toBe(0);
    expect(reported).toEqual([usage, usage]);
  });
});
